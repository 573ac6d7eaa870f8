// SQL for authorization codes, grants and refresh tokens, the one writer of them (with herald_revoke_oauth_grant,
// migration 0008; docs/tables.md). Codes and tokens are stored as SHA-256 hashes only.
import type { Queryable } from '../../db/pool.ts';
import { revokeKeysOfGrant } from '../keys/keys.repo.ts';

export interface CodeRow {
  client_id: string;
  user_id: string;
  workspace_id: string;
  brand_ids: string[] | null;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  expires_at: Date;
  used_at: Date | null;
  grant_id: string | null;
}

export interface GrantRow {
  id: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  brand_ids: string[] | null;
  scopes: string[];
  resource: string;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface RefreshRow {
  grant_id: string;
  key_id: string;
  rotated_at: Date | null;
  replaced_by: Buffer | null;
  replacement: Buffer | null;
  key_revoked_at: Date | null;
}

export async function insertCode(db: Queryable, hash: Buffer, c: Omit<CodeRow, 'used_at' | 'grant_id'>): Promise<void> {
  await db.query(
    `INSERT INTO oauth_codes (code_hash, client_id, user_id, workspace_id, brand_ids, scopes, redirect_uri, code_challenge, resource, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      hash,
      c.client_id,
      c.user_id,
      c.workspace_id,
      c.brand_ids,
      c.scopes,
      c.redirect_uri,
      c.code_challenge,
      c.resource,
      c.expires_at,
    ],
  );
}

/** The code, locked for the rest of the transaction (two exchanges of one code run one after the other). */
export async function lockCode(db: Queryable, hash: Buffer): Promise<CodeRow | undefined> {
  const { rows } = await db.query<CodeRow>(
    `SELECT client_id, user_id, workspace_id, brand_ids, scopes, redirect_uri, code_challenge, resource, expires_at, used_at, grant_id
       FROM oauth_codes WHERE code_hash = $1 FOR UPDATE`,
    [hash],
  );
  return rows[0];
}

export async function markCodeUsed(db: Queryable, hash: Buffer, grantId: string, at: Date): Promise<void> {
  await db.query('UPDATE oauth_codes SET used_at = $3, grant_id = $2 WHERE code_hash = $1', [hash, grantId, at]);
}

export async function insertGrant(
  db: Queryable,
  g: Omit<GrantRow, 'revoked_at'> & { created_at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO oauth_grants (id, client_id, user_id, workspace_id, brand_ids, scopes, resource, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [g.id, g.client_id, g.user_id, g.workspace_id, g.brand_ids, g.scopes, g.resource, g.created_at, g.expires_at],
  );
}

export async function lockGrant(db: Queryable, id: string): Promise<GrantRow | undefined> {
  const { rows } = await db.query<GrantRow>(
    'SELECT id, client_id, user_id, workspace_id, brand_ids, scopes, resource, expires_at, revoked_at FROM oauth_grants WHERE id = $1 FOR UPDATE',
    [id],
  );
  return rows[0];
}

export async function insertRefreshToken(
  db: Queryable,
  hash: Buffer,
  grantId: string,
  keyId: string,
  at: Date,
): Promise<void> {
  await db.query(
    'INSERT INTO oauth_refresh_tokens (token_hash, grant_id, key_id, created_at) VALUES ($1, $2, $3, $4)',
    [hash, grantId, keyId, at],
  );
}

/** The refresh token with the state of its key, locked (concurrent refreshes with one token run in turn). */
export async function lockRefreshToken(db: Queryable, hash: Buffer): Promise<RefreshRow | undefined> {
  const { rows } = await db.query<RefreshRow>(
    `SELECT r.grant_id, r.key_id, r.rotated_at, r.replaced_by, r.replacement, k.revoked_at AS key_revoked_at
       FROM oauth_refresh_tokens r JOIN api_keys k ON k.id = r.key_id
      WHERE r.token_hash = $1 FOR UPDATE OF r`,
    [hash],
  );
  return rows[0];
}

export async function isCurrentRefreshToken(db: Queryable, hash: Buffer): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM oauth_refresh_tokens WHERE token_hash = $1 AND rotated_at IS NULL', [
    hash,
  ]);
  return rows.length === 1;
}

/** Retires a refresh token (before its successor is inserted: a grant has one current token). */
export async function markRotated(db: Queryable, hash: Buffer, at: Date): Promise<void> {
  await db.query('UPDATE oauth_refresh_tokens SET rotated_at = $2 WHERE token_hash = $1', [hash, at]);
}

/** Remembers what the rotation answered, for a client that presents the retired token again within the grace. */
export async function storeReplacement(
  db: Queryable,
  hash: Buffer,
  replacedBy: Buffer,
  replacement: Buffer,
): Promise<void> {
  await db.query('UPDATE oauth_refresh_tokens SET replaced_by = $2, replacement = $3 WHERE token_hash = $1', [
    hash,
    replacedBy,
    replacement,
  ]);
}

export async function findGrantOfRefreshToken(
  db: Queryable,
  hash: Buffer,
): Promise<{ grant_id: string; client_id: string } | undefined> {
  const { rows } = await db.query<{ grant_id: string; client_id: string }>(
    'SELECT g.id AS grant_id, g.client_id FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = $1',
    [hash],
  );
  return rows[0];
}

export async function findGrantOfKey(
  db: Queryable,
  keyHash: Buffer,
): Promise<{ grant_id: string; client_id: string } | undefined> {
  const { rows } = await db.query<{ grant_id: string; client_id: string }>(
    'SELECT g.id AS grant_id, g.client_id FROM api_keys k JOIN oauth_grants g ON g.id = k.grant_id WHERE k.token_hash = $1',
    [keyHash],
  );
  return rows[0];
}

/**
 * Ends a grant: marks it revoked and revokes every key it issued, telling every process to forget them at
 * commit. Idempotent. Returns the keys newly revoked.
 */
export async function revokeGrant(db: Queryable, grantId: string, reason: string): Promise<string[]> {
  await db.query('SELECT herald_revoke_oauth_grant($1, $2)', [grantId, reason]);
  return revokeKeysOfGrant(db, grantId);
}

/** Housekeeping: used or expired codes, rotation answers past any grace, grants ended `days` ago (with their keys). */
export async function deleteEndedOAuthState(db: Queryable, days: number): Promise<number> {
  const codes = await db.query(`DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day'`);
  await db.query(
    `UPDATE oauth_refresh_tokens SET replacement = NULL WHERE replacement IS NOT NULL AND rotated_at < now() - interval '1 minute'`,
  );
  const grants = await db.query(
    `DELETE FROM oauth_grants WHERE LEAST(expires_at, revoked_at) < now() - make_interval(days => $1)`,
    [days],
  );
  return (codes.rowCount ?? 0) + (grants.rowCount ?? 0);
}
