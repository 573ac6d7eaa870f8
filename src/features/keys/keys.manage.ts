// Keys over HTTP (GET/POST /v1/keys, GET/DELETE /v1/keys/{id}; docs/api.md "Keys"): a person manages their own
// keys, from the workspace the call is made in. A key made here never holds more than its maker: no scope the
// maker lacks or their role forbids in a workspace it reaches, no workspace or brand beyond the maker's reach, and
// no life beyond the maker's own expiry. Refusals are 403s naming what was beyond; the key is shown once.
import type { Queryable } from '../../db/pool.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { scopesBeyondRole } from '../workspaces/roles.ts';
import type { Principal } from './authenticator.ts';
import { createKey, KeyInputError, type CreatedKey } from './keys.service.ts';
import * as repo from './keys.repo.ts';
import type { ListedKeyRow } from './keys.repo.ts';
import type { CreateKeyBody } from './keys.schemas.ts';
import type { Scope } from './scopes.ts';

/** The caller as key management sees it: the request's principal and the workspace of the call. */
export interface KeyCaller {
  db: Queryable;
  principal: Principal;
  workspaceId: string;
}

export function apiKeyJson(k: ListedKeyRow): Record<string, unknown> {
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    prefix: k.prefix,
    last_four: k.last4,
    scopes: k.scopes,
    workspace_ids: k.workspace_ids,
    brand_ids: k.brand_ids,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    expires_at: k.expires_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
    created_by: k.created_by,
    oauth_client: k.grant_id ? { name: k.client_name ?? 'An OAuth client' } : null,
  };
}

export async function listOwnKeys(
  caller: KeyCaller,
  query: { limit?: number; cursor?: string },
): Promise<{ items: unknown[]; next_cursor: string | null; has_more: boolean }> {
  const limit = query.limit ?? 20;
  const after = query.cursor ? decodeCursor(query.cursor, 'keys') : undefined;
  const rows = await repo.listUserKeys(
    caller.db,
    caller.principal.userId,
    caller.workspaceId,
    after?.value ? { createdAt: new Date(after.value), id: after.id } : undefined,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return {
    items: page.map(apiKeyJson),
    next_cursor: hasMore ? encodeCursor({ value: last.created_at.toISOString(), id: last.id }, 'keys') : null,
    has_more: hasMore,
  };
}

export async function getOwnKey(caller: KeyCaller, id: string): Promise<ListedKeyRow> {
  const row = await repo.findUserKey(caller.db, caller.principal.userId, caller.workspaceId, id);
  if (!row) throw notFound('API key');
  return row;
}

/** Revokes at once: the NOTIFY reaches every process on commit; the caller evicts its own cache too. */
export async function revokeOwnKey(caller: KeyCaller, id: string): Promise<ListedKeyRow> {
  const row = await getOwnKey(caller, id);
  const revoked = await repo.revokeKey(caller.db, row.id);
  return { ...row, revoked_at: revoked?.revoked_at ?? new Date() };
}

/** The workspaces (with the maker's role) a new key will reach, and its restriction as stored. */
function reachOf(
  principal: Principal,
  asked: string[] | null | undefined,
): {
  workspaceIds: string[] | null;
  roles: Array<{ id: string; role: MemberRole }>;
} {
  if (asked) {
    const beyond = asked.filter((id) => !principal.reachable.some((w) => w.id === id.toLowerCase()));
    if (beyond.length > 0)
      throw new AppError('PUBLIC_API_WORKSPACE_FORBIDDEN', `You cannot reach workspace ${beyond.join(', ')}.`);
    const ids = [...new Set(asked.map((id) => id.toLowerCase()))];
    return { workspaceIds: ids, roles: principal.reachable.filter((w) => ids.includes(w.id)) };
  }
  // A session stands for its person, whose keys may follow them into workspaces joined later; a key's reach is
  // today's, so what it makes is limited to that.
  const ids = principal.kind === 'session' ? null : principal.reachable.map((w) => w.id);
  return { workspaceIds: ids, roles: [...principal.reachable] };
}

async function checkBrands(db: Queryable, brandIds: string[], workspaceIds: string[]): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM brands WHERE id = ANY($1::text[]) AND workspace_id = ANY($2::uuid[]) AND deleted_at IS NULL',
    [brandIds, workspaceIds],
  );
  const unknown = brandIds.filter((id) => !rows.some((r) => r.id === id));
  if (unknown.length > 0)
    throw validationFailed(
      unknown.map((id) => ({
        path: '/brand_ids',
        rule: 'unknown_brand',
        message: `No brand ${id} in the key's workspaces.`,
      })),
    );
}

export async function createOwnKey(caller: KeyCaller, body: CreateKeyBody, now: Date): Promise<CreatedKey> {
  const { principal, db } = caller;
  const lacking = body.scopes.filter((s) => !principal.scopes.has(s));
  if (lacking.length > 0)
    throw new AppError(
      'PUBLIC_API_SCOPE_FORBIDDEN',
      `A key cannot grant more than its maker holds: you lack ${lacking.map((s) => `\`${s}\``).join(', ')}.`,
    );
  const reach = reachOf(principal, body.workspace_ids);
  for (const { id, role } of reach.roles) {
    const beyond = scopesBeyondRole(role, body.scopes);
    if (beyond.length > 0)
      throw new AppError(
        'PUBLIC_API_SCOPE_FORBIDDEN',
        `You are a ${role} of workspace ${id}, a role that may not hand out ${beyond.map((s) => `\`${s}\``).join(', ')}: limit the key to other workspaces or leave ${beyond.length > 1 ? 'them' : 'it'} out.`,
      );
  }
  let brandIds = body.brand_ids ?? null;
  if (principal.brandIds !== null) {
    const beyond = (brandIds ?? []).filter((id) => !principal.brandIds!.includes(id));
    if (beyond.length > 0)
      throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', `You cannot reach brand ${beyond.join(', ')}.`);
    brandIds ??= [...principal.brandIds];
  }
  if (brandIds && body.brand_ids)
    await checkBrands(
      db,
      brandIds,
      reach.roles.map((w) => w.id),
    );
  let expiresAt = body.expires_at ? new Date(body.expires_at) : null;
  const makerEnds = principal.expiresAt ?? null;
  if (makerEnds) {
    if (expiresAt && expiresAt.getTime() > makerEnds.getTime())
      throw validationFailed([
        {
          path: '/expires_at',
          rule: 'after_maker_expiry',
          message: `The key that makes this one expires at ${makerEnds.toISOString()}; the new key cannot outlive it.`,
        },
      ]);
    expiresAt ??= makerEnds;
  }
  try {
    return await createKey(db, {
      userId: principal.userId,
      name: body.name,
      scopes: body.scopes as Scope[],
      workspaceIds: reach.workspaceIds,
      brandIds,
      expiresAt,
      now,
      createdBy: principal.userId,
    });
  } catch (error) {
    if (error instanceof KeyInputError)
      throw validationFailed([
        { path: '/', rule: 'key_invalid', message: error.message.replace('--expires-at', 'expires_at') },
      ]);
    throw error;
  }
}
