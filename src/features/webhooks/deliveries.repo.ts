// SQL for webhook deliveries and their attempts. Every function takes the workspace id.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export type FailureReason = 'retries_exhausted' | 'endpoint_disabled' | 'endpoint_gone';
export type AttemptErrorCode = 'http_status' | 'timeout' | 'connection_failed' | 'connection_reset' | 'address_blocked';

export interface DeliveryRow {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  failure_reason: FailureReason | null;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  trigger: 'automatic' | 'manual';
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  response_body: string | null;
  response_truncated: boolean;
  error_code: AttemptErrorCode | null;
  error_message: string | null;
}

const COLUMN_NAMES = [
  'id',
  'workspace_id',
  'endpoint_id',
  'event_id',
  'event_type',
  'status',
  'failure_reason',
  'attempt_count',
  'next_attempt_at',
  'last_attempt_at',
  'delivered_at',
  'created_at',
];
const COLUMNS = COLUMN_NAMES.join(', ');

export async function insertDeliveries(
  db: Queryable,
  workspaceId: string,
  rows: Array<{ id: string; endpointId: string; event: { id: string; type: string } }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type)
     SELECT d.id, $1, d.endpoint_id, d.event_id, d.event_type FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS d(id, endpoint_id, event_id, event_type)`,
    [
      workspaceId,
      rows.map((r) => r.id),
      rows.map((r) => r.endpointId),
      rows.map((r) => r.event.id),
      rows.map((r) => r.event.type),
    ],
  );
}

export async function findDelivery(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  id: string,
  lock = false,
): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries WHERE workspace_id = $1 AND endpoint_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, endpointId, id],
  );
  return rows[0];
}

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: string;
  eventId?: string;
}

/** One page of an endpoint's deliveries, newest first; up to `limit` rows. */
export async function listDeliveries(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  filters: DeliveryFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const where = ['workspace_id = $1', 'endpoint_id = $2'];
  const values: unknown[] = [workspaceId, endpointId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filters.status) where.push(`status = ${param(filters.status)}`);
  if (filters.eventType) where.push(`event_type = ${param(filters.eventType)}`);
  if (filters.eventId) where.push(`event_id = ${param(filters.eventId)}`);
  if (after) where.push(`(created_at, id) < (${param(after.value)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

export async function findAttempts(db: Queryable, workspaceId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await db.query<AttemptRow>(
    `SELECT id, delivery_id, trigger, started_at, duration_ms, status_code, response_body, response_truncated, error_code, error_message
       FROM webhook_attempts WHERE workspace_id = $1 AND delivery_id = ANY($2::text[]) ORDER BY delivery_id, started_at, id`,
    [workspaceId, deliveryIds],
  );
  return rows;
}

export interface EventRow {
  id: string;
  type: string;
  created_at: Date;
  workspace_id: string;
  data: unknown;
}

export async function findEvent(db: Queryable, workspaceId: string, id: string): Promise<EventRow | undefined> {
  const { rows } = await db.query<EventRow>(
    'SELECT id, type, created_at, workspace_id, data FROM events WHERE workspace_id = $1 AND id = $2',
    [workspaceId, id],
  );
  return rows[0];
}

/** Makes a finished (or pending) delivery pending again, for a manual retry. */
export async function reopenDelivery(
  db: Queryable,
  workspaceId: string,
  id: string,
  nextAttemptAt: Date,
): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'pending', failure_reason = NULL, next_attempt_at = $3, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, nextAttemptAt],
  );
  return rows[0]!;
}

/** Everything one attempt needs: the delivery, its endpoint and its event, in one read. */
export interface DeliveryWork {
  delivery: DeliveryRow;
  url: string;
  enabled: boolean;
  secret: Buffer;
  previous_secret: Buffer | null;
  previous_secret_expires_at: Date | null;
  event: { id: string; type: string; created_at: Date; workspace_id: string; data: unknown };
}

export async function loadDeliveryWork(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<DeliveryWork | undefined> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT ${COLUMN_NAMES.map((c) => `d.${c}`).join(', ')},
            e.url, e.enabled, e.secret, e.previous_secret, e.previous_secret_expires_at,
            ev.created_at AS event_created_at, ev.data AS event_data
       FROM webhook_deliveries d
       JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.workspace_id = d.workspace_id
       JOIN events ev ON ev.id = d.event_id
      WHERE d.workspace_id = $1 AND d.id = $2`,
    [workspaceId, id],
  );
  const r = rows[0];
  if (!r) return undefined;
  const delivery = r as unknown as DeliveryRow;
  return {
    delivery,
    url: r.url as string,
    enabled: r.enabled as boolean,
    secret: r.secret as Buffer,
    previous_secret: r.previous_secret as Buffer | null,
    previous_secret_expires_at: r.previous_secret_expires_at as Date | null,
    event: {
      id: delivery.event_id,
      type: delivery.event_type,
      created_at: r.event_created_at as Date,
      workspace_id: workspaceId,
      data: r.event_data,
    },
  };
}

export interface AttemptRecord {
  id: string;
  trigger: 'automatic' | 'manual';
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseBody: string | null;
  responseTruncated: boolean;
  errorCode: AttemptErrorCode | null;
  errorMessage: string | null;
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  failureReason: FailureReason | null;
  nextAttemptAt: Date | null;
}

/**
 * Logs an attempt and moves the delivery on, in one statement; a successful attempt also ends the endpoint's
 * failing streak. Only a pending delivery moves: a duplicate job for one already finished changes nothing and
 * returns false.
 */
export async function recordAttempt(
  db: Queryable,
  workspaceId: string,
  deliveryId: string,
  a: AttemptRecord,
  outcome: DeliveryOutcome,
): Promise<boolean> {
  // No write at all to a healthy endpoint's row: thousands of concurrent deliveries to it never contend there.
  const healthy =
    outcome.status === 'delivered'
      ? `, healthy AS (
       UPDATE webhook_endpoints SET failing_since = NULL
        WHERE workspace_id = $1 AND id = (SELECT endpoint_id FROM moved) AND failing_since IS NOT NULL)`
      : '';
  const { rows } = await db.query<{ id: string }>(
    `WITH moved AS (
       UPDATE webhook_deliveries
          SET status = $12, failure_reason = $13, next_attempt_at = $14, attempt_count = attempt_count + 1,
              last_attempt_at = $5, delivered_at = CASE WHEN $12 = 'delivered' THEN $5::timestamptz ELSE delivered_at END, updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'pending'
        RETURNING id, endpoint_id)${healthy}
     INSERT INTO webhook_attempts (id, workspace_id, delivery_id, trigger, started_at, duration_ms, status_code, response_body, response_truncated, error_code, error_message)
     SELECT $3, $1, moved.id, $4, $5, $6, $7, $8, $9, $10, $11 FROM moved
     RETURNING delivery_id AS id`,
    [
      workspaceId,
      deliveryId,
      a.id,
      a.trigger,
      a.startedAt,
      a.durationMs,
      a.statusCode,
      a.responseBody,
      a.responseTruncated,
      a.errorCode,
      a.errorMessage,
      outcome.status,
      outcome.failureReason,
      outcome.nextAttemptAt,
    ],
  );
  return rows.length > 0;
}

/** Closes a pending delivery without an attempt (its endpoint is disabled). */
export async function failDelivery(
  db: Queryable,
  workspaceId: string,
  deliveryId: string,
  reason: FailureReason,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'failed', failure_reason = $3, next_attempt_at = NULL, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`,
    [workspaceId, deliveryId, reason],
  );
}

// ---- Across workspaces on purpose (housekeeping): docs/tables.md ----

/** Retention: finished deliveries (and their attempts) older than `before`, in batches; returns how many went. */
export async function pruneFinishedDeliveries(db: Queryable, before: Date, batch = 5000): Promise<number> {
  // Retention is the one cross-workspace statement here: it deletes by age, the same rule for every tenant.
  const { rowCount } = await db.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1 LIMIT $2)`,
    [before, batch],
  );
  return rowCount ?? 0;
}
