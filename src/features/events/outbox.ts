// The events outbox: every lifecycle change appends a row here in the same transaction as the change itself,
// so an event is recorded exactly when the change commits. The same transaction fans it out to the
// workspace's webhook endpoints (one delivery and one queued job per subscribed endpoint).
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { fanOutEvent } from '../webhooks/fanout.ts';

/** The event types of API.md "Events". Types whose features come later are listed so the catalogue is whole. */
export const EVENT_TYPES = [
  'post.created', 'post.updated', 'post.deleted', 'post.scheduled', 'post.cancelled',
  'post.publishing', 'post.published', 'post.partially_published', 'post.failed',
  'media.ready', 'media.failed',
  'connection.connected', 'connection.expired', 'connection.disconnected',
  'webhook.test', 'webhook_endpoint.disabled',
  'approval.requested', 'approval.approved', 'approval.rejected',
  'inbox.item.created', 'automation.run.completed', 'repurpose.completed', 'repurpose.failed',
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
export async function appendEvent(db: Queryable, workspaceId: string, type: EventType, data: unknown): Promise<EventRecord> {
  const id = newId('evt');
  const { rows } = await db.query<{ created_at: Date }>(
    'INSERT INTO events (id, workspace_id, type, data) VALUES ($1, $2, $3, $4) RETURNING created_at',
    [id, workspaceId, type, JSON.stringify(data)],
  );
  const event: EventRecord = { id, type, created_at: rows[0]!.created_at.toISOString(), workspace_id: workspaceId, data };
  await fanOutEvent(db, event);
  return event;
}
