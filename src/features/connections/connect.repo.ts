// SQL for connect links and the OAuth apps Herald registered per instance, the one writer of both (docs/tables.md).
// Link secrets (PKCE verifier, app, accounts awaiting a choice) and app secrets are stored sealed, never in clear.
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';

export type ConnectLinkStatus = 'open' | 'authorizing' | 'choosing' | 'completed' | 'failed';

export interface ConnectLinkRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  platform: PlatformName;
  sandbox: boolean;
  redirect_url: string | null;
  server_url: string | null;
  state: string | null;
  secrets: Buffer | null;
  status: ConnectLinkStatus;
  connection_id: string | null;
  error_code: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, workspace_id, brand_id, platform, sandbox, redirect_url, server_url, state, secrets, status, connection_id, error_code, expires_at, used_at, created_at';

export async function insertConnectLink(
  db: Queryable,
  link: {
    id: string;
    workspaceId: string;
    brandId: string;
    platform: PlatformName;
    sandbox: boolean;
    tokenHash: Buffer;
    redirectUrl: string | null;
    serverUrl: string | null;
    createdBy: string | null;
    expiresAt: Date;
  },
): Promise<ConnectLinkRow> {
  const { rows } = await db.query<ConnectLinkRow>(
    `INSERT INTO connect_links (id, workspace_id, brand_id, platform, sandbox, token_hash, redirect_url, server_url, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      link.id,
      link.workspaceId,
      link.brandId,
      link.platform,
      link.sandbox,
      link.tokenHash,
      link.redirectUrl,
      link.serverUrl,
      link.createdBy,
      link.expiresAt,
    ],
  );
  return rows[0]!;
}

/** Starts (or restarts) a consent: a new state and sealed secrets replace any earlier ones. */
export async function beginConsent(
  db: Queryable,
  workspaceId: string,
  id: string,
  o: { state: string; secrets: Buffer; serverUrl: string | null },
): Promise<void> {
  await db.query(
    `UPDATE connect_links SET state = $3, secrets = $4, server_url = coalesce($5, server_url), status = 'authorizing' WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, o.state, o.secrets, o.serverUrl],
  );
}

export async function awaitChoice(db: Queryable, workspaceId: string, id: string, secrets: Buffer): Promise<void> {
  await db.query(`UPDATE connect_links SET secrets = $3, status = 'choosing' WHERE workspace_id = $1 AND id = $2`, [
    workspaceId,
    id,
    secrets,
  ]);
}

/** Ends the link (completed or failed): it can never be used again, and its secrets are dropped. The state is
 *  kept so that a replayed callback is recognised (and answered `link_used` on the client's redirect_url). */
export async function finishLink(
  db: Queryable,
  workspaceId: string,
  id: string,
  o: { connectionId: string | null; errorCode: string | null },
): Promise<void> {
  await db.query(
    `UPDATE connect_links SET status = $3, connection_id = $4, error_code = $5, secrets = NULL, used_at = now() WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, o.connectionId ? 'completed' : 'failed', o.connectionId, o.errorCode],
  );
}

/**
 * Claims the platform's callback for the consent in progress: true for exactly one request per consent (a
 * replayed or concurrent callback finds the link used).
 */
export async function claimCallback(db: Queryable, workspaceId: string, id: string, state: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE connect_links SET used_at = now() WHERE workspace_id = $1 AND id = $2 AND state = $3 AND status = 'authorizing' AND used_at IS NULL RETURNING id`,
    [workspaceId, id, state],
  );
  return rows[0] !== undefined;
}

/** The link's status under a row lock, so that two completions of one link run one after the other. */
export async function lockLinkStatus(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<ConnectLinkStatus | undefined> {
  const { rows } = await db.query<{ status: ConnectLinkStatus }>(
    'SELECT status FROM connect_links WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
    [workspaceId, id],
  );
  return rows[0]?.status;
}

// ---- Across workspaces on purpose (docs/tables.md): the browser holds only the link's token or the consent's
// state, which name the link and so its workspace; and the housekeeping job. ----

/** The link a URL token names (the token is the capability; the workspace comes from the link). */
export async function findLinkByToken(
  db: Queryable,
  tokenHash: Buffer,
  lock = false,
): Promise<ConnectLinkRow | undefined> {
  const { rows } = await db.query<ConnectLinkRow>(
    `SELECT ${COLUMNS} FROM connect_links WHERE token_hash = $1${lock ? ' FOR UPDATE' : ''}`,
    [tokenHash],
  );
  return rows[0];
}

export async function findLinkByState(db: Queryable, state: string, lock = false): Promise<ConnectLinkRow | undefined> {
  const { rows } = await db.query<ConnectLinkRow>(
    `SELECT ${COLUMNS} FROM connect_links WHERE state = $1${lock ? ' FOR UPDATE' : ''}`,
    [state],
  );
  return rows[0];
}

/** Links that expired or ended more than `ageSeconds` ago (housekeeping). */
export async function deleteEndedConnectLinks(db: Queryable, ageSeconds: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM connect_links WHERE coalesce(used_at, expires_at) < now() - make_interval(secs => $1)`,
    [ageSeconds],
  );
  return rowCount ?? 0;
}

// ---- platform_apps: instance-level, not tenant data ----

export interface PlatformAppRow {
  client_id: string;
  client_secret: Buffer | null;
}

/** An app Herald registered on a user-chosen server (not tenant data: one app serves every workspace). */
export async function findPlatformApp(
  db: Queryable,
  platform: PlatformName,
  serverUrl: string,
  redirectUri: string,
): Promise<PlatformAppRow | undefined> {
  const { rows } = await db.query<PlatformAppRow>(
    'SELECT client_id, client_secret FROM platform_apps WHERE platform = $1 AND server_url = $2 AND redirect_uri = $3',
    [platform, serverUrl, redirectUri],
  );
  return rows[0];
}

/**
 * Keeps the first app registered when two requests registered one at the same time (or, with `replace`, the
 * newest: a simulator's apps do not survive its restart); returns the one kept.
 */
export async function savePlatformApp(
  db: Queryable,
  platform: PlatformName,
  serverUrl: string,
  redirectUri: string,
  app: { clientId: string; clientSecret: Buffer | null },
  replace = false,
): Promise<PlatformAppRow> {
  await db.query(
    `INSERT INTO platform_apps (platform, server_url, redirect_uri, client_id, client_secret) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (platform, server_url, redirect_uri) DO ${replace ? 'UPDATE SET client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret, created_at = now()' : 'NOTHING'}`,
    [platform, serverUrl, redirectUri, app.clientId, app.clientSecret],
  );
  return (await findPlatformApp(db, platform, serverUrl, redirectUri))!;
}
