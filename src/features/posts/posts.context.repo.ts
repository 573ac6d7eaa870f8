// What a new post is checked against, read in one round trip (docs/decisions.md "A new post's look-ups in one
// statement"): the brand's rules, the brand's default connection of each platform named, and the workspace's
// approval policy. Each has its own repository read for other callers; creating and validating a post use this
// one, so a create sends one statement where it sent three.
import type { Queryable } from '../../db/pool.ts';
import { DEFAULT_POLICY, type Policy } from '../approvals/approvals.policy.ts';
import type { BrandForPosts } from '../brands/brands.repo.ts';
import type { ConnectionRow } from '../connections/connections.repo.ts';
import type { PlatformName } from '../../platforms/limits.ts';

export interface CreateContext {
  /** Undefined when the brand is not in the workspace or was deleted. */
  brand: BrandForPosts | undefined;
  /** The brand's default, not disconnected, connections of the platforms asked for. */
  defaults: ConnectionRow[];
  policy: Policy;
}

type PolicyJson = Omit<Policy, 'updated_at'> & { updated_at: string };

// The connections come back as rows (their times and encrypted credentials typed by the driver as everywhere
// else); the brand and the policy, one each, ride along as JSON. The outer join keeps one row when the brand has
// no default connection for any of the platforms.
const CONTEXT = `
  SELECT (SELECT row_to_json(b) FROM (
            SELECT id, version, banned_terms, required_terms, default_hashtags, signature, cta_default, rules
              FROM brands WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL) b) AS context_brand,
         (SELECT row_to_json(p) FROM (
            SELECT mode, sources, approver_roles, allow_self_approval, expire_after_seconds AS expire_after, on_expire,
                   require_reject_reason, brand_overrides, version, updated_at
              FROM approval_policies WHERE workspace_id = $1) p) AS context_policy,
         c.id, c.workspace_id, c.brand_id, c.platform, c.sandbox, c.account_id, c.handle, c.display_name, c.avatar_url,
         c.server_url, c.is_default, c.status, c.credentials, c.token_expires_at, c.settings, c.throttled_until,
         c.last_error, c.created_at, c.updated_at
    FROM (SELECT) AS one
    LEFT JOIN connections c
      ON c.workspace_id = $1 AND c.brand_id = $2 AND c.platform = ANY($3::text[]) AND c.is_default
     AND c.status <> 'disconnected'`;

export async function readCreateContext(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  platforms: PlatformName[],
): Promise<CreateContext> {
  const { rows } = await db.query<
    { context_brand: BrandForPosts | null; context_policy: PolicyJson | null } & ConnectionRow
  >({ name: 'posts.create-context', text: CONTEXT, values: [workspaceId, brandId, platforms] });
  const first = rows[0]!;
  const policy = first.context_policy;
  return {
    brand: first.context_brand ?? undefined,
    defaults: rows
      .filter((row) => row.id !== null)
      .map(({ context_brand: _brand, context_policy: _policy, ...connection }) => connection),
    policy: policy ? { ...policy, updated_at: new Date(policy.updated_at) } : DEFAULT_POLICY,
  };
}
