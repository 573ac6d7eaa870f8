// The events outbox: every lifecycle change appends a row here in the same transaction as the change itself,
// so an event is recorded exactly when the change commits. The same transaction fans it out to the
// workspace's webhook endpoints (one delivery and one queued job per subscribed endpoint).
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { fanOutEvents, SUBSCRIBED_ENDPOINTS, type SubscribedEndpoint } from '../webhooks/fanout.ts';

/**
 * The event types of docs/api.md "Event types". Types whose features come later are listed so the catalogue is
 * whole.
 */
export const EVENT_TYPES = [
  'post.created',
  'post.updated',
  'post.deleted',
  'post.scheduled',
  'post.cancelled',
  'post.publishing',
  'post.published',
  'post.partially_published',
  'post.failed',
  'post.queued',
  'post.rescheduled',
  'media.ready',
  'media.failed',
  'connection.connected',
  'connection.expired',
  'connection.disconnected',
  'brand.created',
  'brand.updated',
  'brand.deleted',
  'webhook.test',
  'webhook_endpoint.disabled',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.expired',
  'inbox.item.created',
  'inbox.item.replied',
  'inbox.reply.failed',
  'inbox.automation.triggered',
  'automation.run.completed',
  'automation.run.failed',
  'automation.paused',
  'repurpose.completed',
  'repurpose.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRecord {
  id: string;
  type: EventType;
  created_at: string;
  workspace_id: string;
  data: unknown;
}

/** Call it with the transaction that makes the change: the event and its webhook deliveries commit with it. */
export async function appendEvent(
  db: Queryable,
  workspaceId: string,
  type: EventType,
  data: unknown,
): Promise<EventRecord> {
  return (await appendEvents(db, [{ workspaceId, type, data }]))[0]!;
}

// ---- Across workspaces on purpose: the publishing engine's batches, each event with its workspace id (docs/tables.md)

/**
 * Several events at once (in this order), in one statement that also reads the endpoints subscribed to them
 * (locked FOR KEY SHARE, as their deliveries will refer to them); deliveries, when there are any, follow in one
 * insert per workspace. An event nobody subscribed to costs one round trip.
 */
export async function appendEvents(
  db: Queryable,
  events: Array<{ workspaceId: string; type: EventType; data: unknown }>,
): Promise<EventRecord[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => newId('evt'));
  // One event (every API write) takes the plainest insert; a batch's bodies travel as one JSON array (as a text[],
  // every character of every body would be escaped).
  const insert =
    events.length === 1
      ? 'INSERT INTO events (id, workspace_id, type, data) VALUES ($1, $2, $3, $4) RETURNING created_at'
      : `INSERT INTO events (id, workspace_id, type, data)
         SELECT e.id, e.workspace_id, e.type, d.data
           FROM unnest($1::text[], $2::uuid[], $3::text[]) WITH ORDINALITY AS e(id, workspace_id, type, n)
           JOIN jsonb_array_elements($4::jsonb) WITH ORDINALITY AS d(data, n) ON d.n = e.n
          ORDER BY e.n RETURNING created_at`;
  const params =
    events.length === 1
      ? [ids[0], events[0]!.workspaceId, events[0]!.type, JSON.stringify(events[0]!.data)]
      : [ids, events.map((e) => e.workspaceId), events.map((e) => e.type), JSON.stringify(events.map((e) => e.data))];
  const { rows } = await db.query<{ created_at: Date; endpoints: SubscribedEndpoint[] }>(
    `WITH added AS (${insert}),
          subscribed AS (${SUBSCRIBED_ENDPOINTS})
     SELECT (SELECT created_at FROM added LIMIT 1) AS created_at,
            coalesce((SELECT json_agg(s ORDER BY s.id) FROM subscribed s), '[]'::json) AS endpoints`,
    [...params, [...new Set(events.map((e) => e.workspaceId))], [...new Set(events.map((e) => e.type))]],
  );
  const created = rows[0]!.created_at.toISOString();
  const records: EventRecord[] = events.map((e, i) => ({
    id: ids[i]!,
    type: e.type,
    created_at: created,
    workspace_id: e.workspaceId,
    data: e.data,
  }));
  await fanOutEvents(db, records, rows[0]!.endpoints);
  return records;
}

// ---- Across workspaces on purpose (housekeeping): retention is the same rule for every tenant (docs/tables.md)

/**
 * Retention of the events API: events created before `before`, in batches; returns how many went. Deliveries refer
 * to events by id; finished ones are pruned after 30 days, and the caller's `before` is a day earlier than that
 * (HERALD_EVENT_RETENTION_DAYS is at least 30, plus a day: jobs/tasks/prune-events.ts), so a delivery that can
 * still be retried finds its event.
 */
export async function pruneEvents(db: Queryable, before: Date, batch = 5000): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < $1 LIMIT $2)',
    [before, batch],
  );
  return rowCount ?? 0;
}
