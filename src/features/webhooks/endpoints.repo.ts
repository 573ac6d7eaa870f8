// SQL for webhook endpoints. Every function takes the workspace id: no query reaches tenant data without it.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';

export type DisabledReason = 'manual' | 'endpoint_gone' | 'failing';

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  events: string[];
  metadata: Record<string, string>;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  secret: Buffer;
  previous_secret: Buffer | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, workspace_id, url, description, events, metadata, enabled, disabled_reason, disabled_at, failing_since, secret,
  previous_secret, previous_secret_expires_at, secret_rotated_at, created_at, updated_at`;

export async function insertEndpoint(
  db: Queryable,
  e: {
    id: string;
    workspaceId: string;
    url: string;
    description: string | null;
    events: string[];
    metadata: Record<string, string>;
    secret: Buffer;
  },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, description, events, metadata, secret) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [e.id, e.workspaceId, e.url, e.description, e.events, JSON.stringify(e.metadata), e.secret],
  );
  return rows[0]!;
}

/**
 * `lock` takes a row lock for a read-modify-write — FOR NO KEY UPDATE, which does not hold up the fan-out of
 * events (it takes FOR KEY SHARE) while an endpoint is being edited.
 */
export async function findEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2${lock ? ' FOR NO KEY UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function countEndpoints(db: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1',
    [workspaceId],
  );
  return rows[0]!.n;
}

/** One page, newest first; returns up to `limit` rows (the caller asks for one more to see if there is a next page). */
export async function listEndpoints(
  db: Queryable,
  workspaceId: string,
  after: CursorPosition | undefined,
  limit: number,
): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints
      WHERE workspace_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [workspaceId, after?.value ?? null, after?.id ?? '', limit],
  );
  return rows;
}

export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  metadata?: Record<string, string>;
  /** true: enable (clears the failure state); a reason: disable for that reason. */
  enable?: true | { reason: DisabledReason; at: Date };
}

export async function updateEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
  c: EndpointChanges,
): Promise<EndpointRow> {
  const sets: string[] = ['updated_at = now()'];
  const values: unknown[] = [workspaceId, id];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (c.url !== undefined) set('url', c.url);
  if (c.events !== undefined) set('events', c.events);
  if (c.description !== undefined) set('description', c.description);
  if (c.metadata !== undefined) set('metadata', JSON.stringify(c.metadata));
  if (c.enable === true)
    sets.push('enabled = true', 'disabled_reason = NULL', 'disabled_at = NULL', 'failing_since = NULL');
  else if (c.enable) {
    sets.push('enabled = false');
    set('disabled_reason', c.enable.reason);
    set('disabled_at', c.enable.at);
  }
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    values,
  );
  return rows[0]!;
}

export async function deleteEndpoint(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query('DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
}

export async function rotateSecret(
  db: Queryable,
  workspaceId: string,
  id: string,
  r: { secret: Buffer; previous: Buffer | null; previousExpiresAt: Date | null; at: Date },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET secret = $3, previous_secret = $4, previous_secret_expires_at = $5, secret_rotated_at = $6, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, r.secret, r.previous, r.previousExpiresAt, r.at],
  );
  return rows[0]!;
}

/** Records a failed attempt; returns since when the endpoint has been failing (the first failure sets it). */
export async function markFailing(db: Queryable, workspaceId: string, id: string, at: Date): Promise<Date | null> {
  const { rows } = await db.query<{ failing_since: Date | null }>(
    `WITH first AS (
       UPDATE webhook_endpoints SET failing_since = $3 WHERE workspace_id = $1 AND id = $2 AND failing_since IS NULL RETURNING failing_since)
     SELECT coalesce((SELECT failing_since FROM first), (SELECT failing_since FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2)) AS failing_since`,
    [workspaceId, id, at],
  );
  return rows[0]?.failing_since ?? null;
}

/** Disables an enabled endpoint; undefined when it was already disabled (or is gone), so only one caller reports it. */
export async function disableEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
  reason: DisabledReason,
  at: Date,
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, disabled_at = $4, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND enabled RETURNING ${COLUMNS}`,
    [workspaceId, id, reason, at],
  );
  return rows[0];
}
