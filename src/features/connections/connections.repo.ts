// SQL for connections, the one writer of that table (docs/tables.md). Every function takes the workspace id but the
// jobs' sweeps in the section at the end. Credentials are stored sealed (bytea); this file never sees them in clear.
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';

export type ConnectionStatus = 'active' | 'expired' | 'disconnected';

export interface ConnectionRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  platform: PlatformName;
  sandbox: boolean;
  account_id: string;
  handle: string;
  display_name: string | null;
  avatar_url: string | null;
  server_url: string | null;
  is_default: boolean;
  status: ConnectionStatus;
  credentials: Buffer;
  token_expires_at: Date | null;
  settings: Record<string, unknown>;
  throttled_until: Date | null;
  last_error: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, workspace_id, brand_id, platform, sandbox, account_id, handle, display_name, avatar_url, server_url, is_default, status,
  credentials, token_expires_at, settings, throttled_until, last_error, created_at, updated_at`;

export interface NewConnection {
  id: string;
  workspaceId: string;
  brandId: string;
  platform: PlatformName;
  sandbox: boolean;
  accountId: string;
  handle: string;
  displayName: string | null;
  avatarUrl?: string | null;
  serverUrl: string | null;
  credentials: Buffer;
  tokenExpiresAt: Date | null;
  settings: Record<string, unknown>;
}

/** Inserts a connection; it becomes the brand's default for its platform when the brand has none yet. */
export async function insertConnection(db: Queryable, c: NewConnection): Promise<ConnectionRow> {
  const { rows } = await db.query<ConnectionRow>(
    `INSERT INTO connections (id, workspace_id, brand_id, platform, sandbox, account_id, handle, display_name, server_url, status, credentials, token_expires_at, settings, is_default, avatar_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $12,
             NOT EXISTS (SELECT 1 FROM connections d WHERE d.brand_id = $3 AND d.platform = $4 AND d.is_default AND d.status <> 'disconnected'), $13)
     RETURNING ${COLUMNS}`,
    [
      c.id,
      c.workspaceId,
      c.brandId,
      c.platform,
      c.sandbox,
      c.accountId,
      c.handle,
      c.displayName,
      c.serverUrl,
      c.credentials,
      c.tokenExpiresAt,
      JSON.stringify(c.settings),
      c.avatarUrl ?? null,
    ],
  );
  return rows[0]!;
}

export async function findConnection(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE workspace_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function findConnections(db: Queryable, workspaceId: string, ids: string[]): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, ids],
  );
  return rows;
}

/** The brand's default, usable connection per platform. */
export async function findDefaults(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  platforms: PlatformName[],
): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE workspace_id = $1 AND brand_id = $2 AND platform = ANY($3::text[]) AND is_default AND status <> 'disconnected'`,
    [workspaceId, brandId, platforms],
  );
  return rows;
}

export interface ConnectionFilters {
  platform?: PlatformName;
  brandIds?: readonly string[];
  status?: ConnectionStatus;
}

export async function listConnections(
  db: Queryable,
  workspaceId: string,
  filters: ConnectionFilters,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<ConnectionRow[]> {
  const where = ['workspace_id = $1'];
  const values: unknown[] = [workspaceId];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  if (filters.platform) where.push(`platform = ${param(filters.platform)}`);
  if (filters.brandIds) where.push(`brand_id = ANY(${param(filters.brandIds)}::text[])`);
  if (filters.status) where.push(`status = ${param(filters.status)}`);
  if (after) where.push(`(created_at, id) < (${param(after.createdAt)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

export async function updateCredentials(
  db: Queryable,
  workspaceId: string,
  id: string,
  credentials: Buffer,
  tokenExpiresAt: Date | null,
): Promise<void> {
  await db.query(
    `UPDATE connections SET credentials = $3, token_expires_at = $4, status = CASE WHEN status = 'expired' THEN 'active' ELSE status END, updated_at = now()
      WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, credentials, tokenExpiresAt],
  );
}

/**
 * Stores refreshed credentials unless the row's credentials changed since `previous` was read (compare-and-set),
 * for a refresh whose locked transaction failed after the platform answered (lifecycle.ts). True when stored.
 */
export async function updateCredentialsIfUnchanged(
  db: Queryable,
  workspaceId: string,
  id: string,
  credentials: Buffer,
  tokenExpiresAt: Date | null,
  previous: Buffer,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connections SET credentials = $3, token_expires_at = $4, status = CASE WHEN status = 'expired' THEN 'active' ELSE status END, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND credentials = $5 AND status <> 'disconnected'`,
    [workspaceId, id, credentials, tokenExpiresAt, previous],
  );
  return (rowCount ?? 0) > 0;
}

/** Marks the connection expired (reconnect needed); returns true when this call changed it. */
export async function markExpired(
  db: Queryable,
  workspaceId: string,
  id: string,
  error: Record<string, unknown>,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connections SET status = 'expired', last_error = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
    [workspaceId, id, JSON.stringify(error)],
  );
  return (rowCount ?? 0) > 0;
}

/** Holds publishing on this connection until `until` (a platform's rate-limit reset); never shortens a hold. */
export async function throttle(db: Queryable, workspaceId: string, id: string, until: Date): Promise<void> {
  await db.query(
    `UPDATE connections SET throttled_until = GREATEST(coalesce(throttled_until, $3), $3) WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, until],
  );
}

export async function countByWorkspaceBrand(
  db: Queryable,
  workspaceId: string,
  brandId: string,
): Promise<Map<string, number>> {
  const { rows } = await db.query<{ platform: string; n: number }>(
    `SELECT platform, count(*)::int AS n FROM connections WHERE workspace_id = $1 AND brand_id = $2 AND status <> 'disconnected' GROUP BY platform`,
    [workspaceId, brandId],
  );
  return new Map(rows.map((r) => [r.platform, r.n]));
}

/** The account connected again through a connect link: new tokens and profile on the brand's live connection of it. */
export async function renewConnectedAccount(
  db: Queryable,
  workspaceId: string,
  a: {
    brandId: string;
    platform: PlatformName;
    accountId: string;
    serverUrl: string | null;
    credentials: Buffer;
    tokenExpiresAt: Date | null;
    handle: string;
    displayName: string | null;
    settings: Record<string, unknown>;
    avatarUrl: string | null;
  },
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `UPDATE connections SET credentials = $5, token_expires_at = $6, handle = $7, display_name = $8, settings = $9, avatar_url = $11, status = 'active', last_error = NULL, updated_at = now()
      WHERE workspace_id = $1 AND brand_id = $2 AND platform = $3 AND coalesce(server_url, '') = coalesce($10, '') AND account_id = $4 AND status <> 'disconnected'
      RETURNING *`,
    [
      workspaceId,
      a.brandId,
      a.platform,
      a.accountId,
      a.credentials,
      a.tokenExpiresAt,
      a.handle,
      a.displayName,
      JSON.stringify(a.settings),
      a.serverUrl,
      a.avatarUrl,
    ],
  );
  return rows[0];
}

/** Disconnects: drops the credentials and the default flag. False when there is no such connection. */
export async function markDisconnected(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE connections SET status = 'disconnected', is_default = false, credentials = '\\x'::bytea, token_expires_at = NULL, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING id`,
    [workspaceId, id],
  );
  return rows[0] !== undefined;
}

/** Makes the brand's best remaining connection of a platform its default (active first, then the oldest). */
export async function promoteDefault(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  platform: PlatformName,
): Promise<void> {
  await db.query(
    `UPDATE connections SET is_default = true WHERE id = (
       SELECT id FROM connections WHERE workspace_id = $1 AND brand_id = $2 AND platform = $3 AND status <> 'disconnected'
        ORDER BY (status = 'active') DESC, created_at LIMIT 1)`,
    [workspaceId, brandId, platform],
  );
}

/** Replaces sealed credentials with the same credentials sealed again, unless they changed since they were read. */
export async function resealCredentialsOf(
  db: Queryable,
  workspaceId: string,
  id: string,
  sealed: Buffer,
  previous: Buffer,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE connections SET credentials = $3 WHERE workspace_id = $1 AND id = $2 AND credentials = $4',
    [workspaceId, id, sealed, previous],
  );
  return (rowCount ?? 0) > 0;
}

// ---- Across workspaces on purpose: the token-refresh job and key rotation (docs/tables.md) ----

/**
 * Active connections due for a token refresh, soonest first, leaving out `seen`: within `aheadMs` of expiry, or
 * in the last tenth of the token's life (its life counted from when it was stored), so a 60-day token is renewed
 * days ahead and a transient failure has many runs to recover.
 */
export async function findExpiringConnections(
  db: Queryable,
  now: Date,
  aheadMs: number,
  seen: string[],
  limit: number,
): Promise<Array<{ workspace_id: string; id: string }>> {
  const { rows } = await db.query<{ workspace_id: string; id: string }>(
    `SELECT workspace_id, id FROM connections
      WHERE status = 'active' AND token_expires_at IS NOT NULL AND id <> ALL($3::text[])
        AND token_expires_at < $1::timestamptz + greatest($4 * interval '1 millisecond', (token_expires_at - updated_at) / 10)
      ORDER BY token_expires_at LIMIT $2`,
    [now, limit, seen, aheadMs],
  );
  return rows;
}

/** Every connection that holds credentials (a key rotation re-seals them all). */
export async function findSealedCredentials(
  db: Queryable,
): Promise<Array<{ id: string; workspace_id: string; credentials: Buffer }>> {
  const { rows } = await db.query<{ id: string; workspace_id: string; credentials: Buffer }>(
    `SELECT id, workspace_id, credentials FROM connections WHERE length(credentials) > 0`,
  );
  return rows;
}
