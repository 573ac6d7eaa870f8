// The approval policy (docs/approvals.md "Policy"): its vocabulary, its defaults, and the policy that applies to one
// brand (the workspace's, with the brand's override laid over it). Pure: the gate and the API both read it here.
//
// Glossary
// - source: where a post (or reply) came from; for a post, its `created_via`. `inbox_automation` is for replies.
// - gated: the policy holds the item for a reviewer instead of letting it be scheduled or published.
// - approver: a role the policy lets decide; a person never decides their own request unless self-approval is on.
import type { MemberRole } from '../workspaces/workspaces.repo.ts';

export const APPROVAL_MODES = ['off', 'members', 'everyone'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export const APPROVAL_SOURCES = [
  'api',
  'mcp',
  'dashboard',
  'cli',
  'automation',
  'repurpose',
  'queue_import',
  'inbox_automation',
] as const;
export type ApprovalSource = (typeof APPROVAL_SOURCES)[number];

/** Members never decide: the `approvals:write` scope is admin-only (src/features/workspaces/roles.ts). */
export const APPROVER_ROLES = ['owner', 'admin'] as const;
export type ApproverRole = (typeof APPROVER_ROLES)[number];

export const EXPIRY_ACTIONS = ['to_draft', 'cancel'] as const;
export type ExpiryAction = (typeof EXPIRY_ACTIONS)[number];

export interface PolicyFields {
  mode: ApprovalMode;
  /** The sources whose items the mode applies to; a source absent here is never gated. */
  sources: ApprovalSource[];
  approver_roles: ApproverRole[];
  allow_self_approval: boolean;
  /** Seconds a pending item waits before the sweeper expires it; null: never. */
  expire_after: number | null;
  on_expire: ExpiryAction;
  require_reject_reason: boolean;
}

export type BrandOverride = Partial<PolicyFields>;

export interface Policy extends PolicyFields {
  brand_overrides: Record<string, BrandOverride>;
  version: number;
  updated_at: Date | null;
}

/**
 * A workspace that never set a policy: nothing is gated. When a mode is switched on, every source is reviewed
 * (automations and imports are the reason teams want approvals at all), owners and admins decide, nobody approves
 * their own work, and a rejection says why.
 */
export const DEFAULT_POLICY: Policy = {
  mode: 'off',
  sources: [...APPROVAL_SOURCES],
  approver_roles: ['owner', 'admin'],
  allow_self_approval: false,
  expire_after: null,
  on_expire: 'to_draft',
  require_reject_reason: true,
  brand_overrides: {},
  version: 0,
  updated_at: null,
};

/** The policy one brand's items are held to: the workspace's fields, then the brand's override field by field. */
export function effectivePolicy(policy: Policy, brandId: string | null): PolicyFields {
  const { brand_overrides, version: _v, updated_at: _u, ...fields } = policy;
  const override = brandId === null ? undefined : brand_overrides[brandId];
  if (!override) return fields;
  const merged = { ...fields };
  for (const [key, value] of Object.entries(override)) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

export type Role = MemberRole;
