// SQL for API keys. Keys are looked up by the SHA-256 of the presented token; the token is never stored.
import type { Queryable } from '../../db/pool.ts';
import type { WorkspaceMode } from '../../app/context.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';

export interface KeyRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: string[];
  workspace_ids: string[] | null;
  brand_ids: string[] | null;
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** The OAuth grant whose access token this key is (null for keys made by hand). */
  grant_id: string | null;
  /** `actions`: a key for callers that send only Authorization (docs/gpt-actions.md); else `standard`. */
  profile: KeyProfile;
  /** Who made the key over HTTP (migration 0030); null for the CLI, first start and OAuth. */
  created_by: string | null;
}

/** The kinds of key (migration 0024): `actions` keys reach one workspace and may write without Idempotency-Key. */
export const KEY_PROFILES = ['standard', 'actions'] as const;
export type KeyProfile = (typeof KEY_PROFILES)[number];

/** A key as `herald keys list` shows it: with the name of the OAuth client it was issued to, if any. */
export interface ListedKeyRow extends KeyRow {
  client_name: string | null;
}

/** A key with everything a request needs to authorise it: the workspaces it reaches and their default brands. */
export interface KeyGrant extends KeyRow {
  /** With the owner's current role in each (src/features/workspaces/roles.ts reads it at every request). */
  reachable: Array<{ id: string; mode: WorkspaceMode; default_brand_id: string | null; role: MemberRole }>;
}

const KEY_COLUMNS =
  'k.id, k.user_id, k.name, k.prefix, k.last4, k.scopes, k.workspace_ids, k.brand_ids, k.expires_at, k.created_at, k.last_used_at, k.revoked_at, k.grant_id, k.profile, k.created_by';

export async function insertKey(
  db: Queryable,
  k: {
    id: string;
    userId: string;
    name: string;
    tokenHash: Buffer;
    prefix: string;
    last4: string;
    scopes: string[];
    workspaceIds: string[] | null;
    brandIds: string[] | null;
    expiresAt: Date | null;
    grantId?: string | null;
    profile?: KeyProfile;
    createdBy?: string | null;
  },
): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys AS k (id, user_id, name, token_hash, prefix, last4, scopes, workspace_ids, brand_ids, expires_at, grant_id, profile, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${KEY_COLUMNS}`,
    [
      k.id,
      k.userId,
      k.name,
      k.tokenHash,
      k.prefix,
      k.last4,
      k.scopes,
      k.workspaceIds,
      k.brandIds,
      k.expiresAt,
      k.grantId ?? null,
      k.profile ?? 'standard',
      k.createdBy ?? null,
    ],
  );
  return rows[0]!;
}

export async function findGrantByHash(db: Queryable, tokenHash: Buffer): Promise<KeyGrant | undefined> {
  const { rows } = await db.query<KeyGrant>(
    `SELECT ${KEY_COLUMNS},
       COALESCE((SELECT json_agg(json_build_object('id', w.id, 'mode', w.mode, 'default_brand_id',
                   (SELECT b.id FROM brands b WHERE b.workspace_id = w.id AND b.is_default), 'role', m.role) ORDER BY w.created_at, w.id)
                 FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
                WHERE m.user_id = k.user_id AND (k.workspace_ids IS NULL OR m.workspace_id = ANY (k.workspace_ids))), '[]'::json) AS reachable
       FROM api_keys k WHERE k.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

/**
 * Every key made by hand, and for each OAuth grant only its newest key (a grant rotates its key at every
 * refresh; the ones it replaced are history, not keys anyone holds).
 */
export async function listKeys(db: Queryable): Promise<ListedKeyRow[]> {
  const { rows } = await db.query<ListedKeyRow>(
    `SELECT ${KEY_COLUMNS}, c.name AS client_name
       FROM api_keys k
       LEFT JOIN oauth_grants g ON g.id = k.grant_id
       LEFT JOIN oauth_clients c ON c.id = g.client_id
      WHERE k.grant_id IS NULL
         OR k.id = (SELECT k2.id FROM api_keys k2 WHERE k2.grant_id = k.grant_id ORDER BY k2.created_at DESC, k2.id DESC LIMIT 1)
      ORDER BY k.created_at, k.id`,
  );
  return rows;
}

/**
 * Marks the key revoked and tells every process to forget it (NOTIFY is delivered on commit). Revoking the key
 * of an OAuth grant revokes the grant too, or its client would simply refresh a new one.
 */
export async function revokeKey(db: Queryable, id: string): Promise<KeyRow | undefined> {
  // The grant is ended by the oauth feature's own SQL function (migration 0008), in this same statement.
  const { rows } = await db.query<KeyRow & { grant_revoked: unknown }>(
    `WITH k AS (UPDATE api_keys k SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${KEY_COLUMNS})
     SELECT k.*, herald_revoke_oauth_grant(k.grant_id, 'key_revoked') AS grant_revoked FROM k`,
    [id],
  );
  if (!rows[0]) return undefined;
  await db.query(`SELECT pg_notify('herald_key_revoked', $1)`, [id]);
  const { grant_revoked: _grantRevoked, ...row } = rows[0];
  return row;
}

/** Revokes every live key an OAuth grant issued (the grant is ending); returns the keys newly revoked. */
export async function revokeKeysOfGrant(db: Queryable, grantId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'UPDATE api_keys SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL RETURNING id',
    [grantId],
  );
  const ids = rows.map((r) => r.id);
  if (ids.length > 0) await db.query(`SELECT pg_notify('herald_key_revoked', id) FROM unnest($1::text[]) AS id`, [ids]);
  return ids;
}

/** Revokes one key without touching its grant (a refresh retiring the key it replaces). */
export async function revokeKeyOnly(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1', [id]);
  await db.query(`SELECT pg_notify('herald_key_revoked', $1)`, [id]);
}

/** Write-behind of last use: one statement for a batch of keys, never moving a timestamp backwards. */
export async function touchKeys(db: Queryable, uses: Map<string, Date>): Promise<void> {
  if (uses.size === 0) return;
  await db.query(
    `UPDATE api_keys k SET last_used_at = u.at
       FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at)
      WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
    [[...uses.keys()], [...uses.values()]],
  );
}

// ---- Over HTTP (GET/POST /v1/keys): a person's own keys, as seen from one workspace -----------------------------

/**
 * The live keys of `userId` that reach `workspaceId` (unrestricted, or restricted to a list naming it), with the
 * assistant's name for an OAuth key; for an OAuth grant only its newest key (the others are revoked history).
 * Oldest first, keyset-paged by (created_at, id).
 */
export async function listUserKeys(
  db: Queryable,
  userId: string,
  workspaceId: string,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<ListedKeyRow[]> {
  const { rows } = await db.query<ListedKeyRow>(
    `SELECT ${KEY_COLUMNS}, c.name AS client_name
       FROM api_keys k
       LEFT JOIN oauth_grants g ON g.id = k.grant_id
       LEFT JOIN oauth_clients c ON c.id = g.client_id
      WHERE k.user_id = $1 AND (k.workspace_ids IS NULL OR $2::uuid = ANY (k.workspace_ids)) AND k.revoked_at IS NULL
        AND ($3::timestamptz IS NULL OR (k.created_at, k.id) > ($3, $4::text))
      ORDER BY k.created_at, k.id LIMIT $5`,
    [userId, workspaceId, after?.createdAt ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** One key of `userId` that reaches `workspaceId`, revoked or not. */
export async function findUserKey(
  db: Queryable,
  userId: string,
  workspaceId: string,
  id: string,
): Promise<ListedKeyRow | undefined> {
  const { rows } = await db.query<ListedKeyRow>(
    `SELECT ${KEY_COLUMNS}, c.name AS client_name
       FROM api_keys k
       LEFT JOIN oauth_grants g ON g.id = k.grant_id
       LEFT JOIN oauth_clients c ON c.id = g.client_id
      WHERE k.id = $3 AND k.user_id = $1 AND (k.workspace_ids IS NULL OR $2::uuid = ANY (k.workspace_ids))`,
    [userId, workspaceId, id],
  );
  return rows[0];
}
