// SQL for connections. Every function takes the workspace id. Credentials are stored sealed (bytea); this
// file never sees them in clear.
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
