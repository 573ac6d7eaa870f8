// The approval gate (docs/approvals.md "The gate"): the one decision of whether an item must wait for a reviewer,
// and of whether a person may decide one. Every surface (REST, MCP, the CLI, automations, repurpose, imports) reaches
// it through its feature's service (posts: posts.approval.ts), never on its own; decideGate and mayDecide are pure.
import type { ServiceContext } from '../../app/context.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { effectivePolicy, type ApprovalSource, type Policy, type PolicyFields } from './approvals.policy.ts';
import { findPolicy, memberRole } from './approvals.repo.ts';

export type GateReason =
  /** The policy is off: nothing waits. */
  | 'mode_off'
  /** The policy does not review this source. */
  | 'source_not_reviewed'
  /** `members` mode: owners and admins go straight through. */
  | 'role_bypasses'
  /** `members` mode and a member asked. */
  | 'member_reviewed'
  /** `everyone` mode: every role waits. */
  | 'everyone_reviewed';

export interface GateDecision {
  gated: boolean;
  reason: GateReason;
}

export function decideGate(input: { policy: PolicyFields; role: MemberRole; source: ApprovalSource }): GateDecision {
  const { policy, role, source } = input;
  if (policy.mode === 'off') return { gated: false, reason: 'mode_off' };
  if (!policy.sources.includes(source)) return { gated: false, reason: 'source_not_reviewed' };
  if (policy.mode === 'everyone') return { gated: true, reason: 'everyone_reviewed' };
  return role === 'member' ? { gated: true, reason: 'member_reviewed' } : { gated: false, reason: 'role_bypasses' };
}

export type DecideRefusal = 'role_not_approver' | 'self_approval';

/** Null when `deciderId` (with `role`) may decide an item `requestedBy` asked for under `policy`. */
export function mayDecide(input: {
  policy: PolicyFields;
  role: MemberRole;
  deciderId: string;
  requestedBy: string | null;
}): DecideRefusal | null {
  if (!(input.policy.approver_roles as readonly string[]).includes(input.role)) return 'role_not_approver';
  if (!input.policy.allow_self_approval && input.requestedBy !== null && input.requestedBy === input.deciderId)
    return 'self_approval';
  return null;
}

/**
 * The caller's role in the workspace. Someone without a membership (the server's operator, a system task) is held
 * to the strictest reading: a member.
 */
export async function callerRole(ctx: ServiceContext): Promise<MemberRole> {
  return (await memberRole(ctx.db, ctx.workspaceId, ctx.userId)) ?? 'member';
}

/**
 * The gate for the caller: the brand's policy, the caller's role and the source of what they submit. `stored`: the
 * workspace's policy when the caller has just read it in the same transaction.
 */
export async function gateFor(
  ctx: ServiceContext,
  brandId: string,
  source: ApprovalSource,
  stored?: Policy,
): Promise<GateDecision & { policy: PolicyFields }> {
  const policy = effectivePolicy(stored ?? (await findPolicy(ctx.db, ctx.workspaceId)), brandId);
  if (policy.mode === 'off') return { gated: false, reason: 'mode_off', policy };
  return { ...decideGate({ policy, role: await callerRole(ctx), source }), policy };
}
