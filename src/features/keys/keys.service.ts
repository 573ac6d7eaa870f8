// Creating, listing and revoking API keys (used by the CLI, the first-start bootstrap and, later, OAuth grants).
import type { Queryable } from '../../db/pool.ts';
import { describeApiKey, generateApiKey, sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import * as workspaces from '../workspaces/workspaces.repo.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { scopesBeyondRole } from '../workspaces/roles.ts';
import * as repo from './keys.repo.ts';
import type { KeyProfile, KeyRow } from './keys.repo.ts';
import type { Scope } from './scopes.ts';

export class KeyInputError extends Error {}

export interface CreatedKey {
  row: KeyRow;
  /** The key itself: shown once, never stored. */
  key: string;
}

/**
 * Creates a key for `userId`. A key limited to workspaces that are all in test mode prints as `hk_test_`; any
 * other key as `hk_live_` (docs/api.md "Authentication").
 */
export async function createKey(
  db: Queryable,
  input: {
    userId: string;
    name: string;
    scopes: Scope[];
    workspaceIds: string[] | null;
    brandIds?: string[] | null;
    expiresAt: Date | null;
    now?: Date;
    grantId?: string;
    profile?: KeyProfile;
    /** Who made it over HTTP (keys.http.ts). */
    createdBy?: string;
  },
): Promise<CreatedKey> {
  if (input.name.trim() === '') throw new KeyInputError('A key needs a name.');
  // An actions key is called without a workspace header, so it must reach exactly one (migration 0024).
  if (input.profile === 'actions' && input.workspaceIds?.length !== 1)
    throw new KeyInputError('A key with the actions profile reaches exactly one workspace: give one --workspace.');
  if (input.expiresAt && input.expiresAt.getTime() <= (input.now ?? new Date()).getTime())
    throw new KeyInputError('--expires-at must be in the future.');
  let mode: 'live' | 'test' = 'live';
  let roles: Map<string, MemberRole> | undefined;
  if (input.workspaceIds) {
    if (input.workspaceIds.length === 0) throw new KeyInputError('A key limited to workspaces needs at least one.');
    const modes = await workspaces.workspaceModes(db, input.workspaceIds);
    const missing = input.workspaceIds.filter((id) => !modes.has(id));
    if (missing.length > 0) throw new KeyInputError(`Unknown workspace: ${missing.join(', ')}`);
    const member = await rolesOf(db, input.userId, input.workspaceIds);
    const foreign = input.workspaceIds.filter((id) => !member.has(id));
    if (foreign.length > 0)
      throw new KeyInputError(`The key's owner is not a member of workspace ${foreign.join(', ')}`);
    if ([...modes.values()].every((m) => m === 'test')) mode = 'test';
    roles = member;
  }
  // Never beyond the owner's role in any workspace the key reaches (an unrestricted key: every membership).
  for (const [workspaceId, role] of roles ?? (await rolesOf(db, input.userId, null))) {
    const beyond = scopesBeyondRole(role, input.scopes);
    if (beyond.length > 0)
      throw new KeyInputError(
        `The key's owner is a ${role} of workspace ${workspaceId}, a role that may not carry ${beyond.join(', ')} (docs/api.md "Roles").`,
      );
  }
  const key = generateApiKey(mode);
  const { prefix, last4 } = describeApiKey(key);
  const row = await repo.insertKey(db, {
    id: newId('key'),
    userId: input.userId,
    name: input.name.trim(),
    tokenHash: sha256(key),
    prefix,
    last4,
    scopes: [...input.scopes],
    workspaceIds: input.workspaceIds,
    brandIds: input.brandIds ?? null,
    expiresAt: input.expiresAt,
    grantId: input.grantId ?? null,
    profile: input.profile ?? 'standard',
    createdBy: input.createdBy ?? null,
  });
  return { row, key };
}

/** The user's role in each of `workspaceIds` they are a member of (every membership when null). */
export async function rolesOf(
  db: Queryable,
  userId: string,
  workspaceIds: readonly string[] | null,
): Promise<Map<string, MemberRole>> {
  const { rows } = await db.query<{ workspace_id: string; role: MemberRole }>(
    'SELECT workspace_id, role FROM memberships WHERE user_id = $1 AND ($2::uuid[] IS NULL OR workspace_id = ANY($2::uuid[]))',
    [userId, workspaceIds],
  );
  return new Map(rows.map((r) => [r.workspace_id, r.role]));
}

export function keyJson(k: KeyRow & { client_name?: string | null }): Record<string, unknown> {
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    prefix: k.prefix,
    last4: k.last4,
    scopes: k.scopes,
    workspace_ids: k.workspace_ids,
    brand_ids: k.brand_ids,
    expires_at: k.expires_at?.toISOString() ?? null,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
    oauth: k.grant_id ? { grant_id: k.grant_id, client_name: k.client_name ?? null } : null,
    profile: k.profile,
  };
}

export const { listKeys, revokeKey } = repo;
export { KEY_PROFILES, type KeyProfile } from './keys.repo.ts';
