// Fan-out: an event appended to the outbox becomes one delivery (and one queued job) per enabled endpoint of
// its workspace subscribed to its type — in the transaction that appended the event, so a delivery exists
// exactly when the event does: nothing to relay, nothing a crash can lose.
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { queueDeliveries } from '../../app/delivery-queue.ts';
import { insertDeliveries } from './deliveries.repo.ts';

/** Creates and queues the deliveries of one event to the given endpoints; returns the delivery ids. */
export async function createDeliveries(
  db: Queryable,
  workspaceId: string,
  event: { id: string; type: string },
  endpointIds: string[],
  trigger?: 'manual',
): Promise<string[]> {
  const rows = endpointIds.map((endpointId) => ({ id: newId('dlv'), endpointId }));
  await insertDeliveries(
    db,
    workspaceId,
    rows.map((r) => ({ ...r, event })),
  );
  await queueDeliveries(
    db,
    workspaceId,
    rows.map((r) => r.id),
    { trigger },
  );
  return rows.map((r) => r.id);
}

/** An enabled endpoint subscribed to one of the events appended, as the outbox's statement reads it. */
export interface SubscribedEndpoint {
  id: string;
  workspace_id: string;
  events: string[];
}

/**
 * The endpoints subscribed to the events being appended, as a subquery of the outbox's insert (its parameters $5:
 * the workspaces, $6: the types). Locked FOR KEY SHARE: an endpoint deleted meanwhile waits for the deliveries.
 */
export const SUBSCRIBED_ENDPOINTS = `SELECT id, workspace_id::text AS workspace_id, events FROM webhook_endpoints
  WHERE workspace_id = ANY($5::uuid[]) AND enabled AND events && ($6::text[] || '*'::text)
  ORDER BY id FOR KEY SHARE`;

/** Fans out events appended together to the endpoints subscribed to them: one insert per workspace. */
export async function fanOutEvents(
  db: Queryable,
  events: Array<{ id: string; type: string; workspace_id: string }>,
  endpoints: readonly SubscribedEndpoint[],
): Promise<void> {
  if (endpoints.length === 0) return;
  // A test event goes only to the endpoint under test (webhooks.service sends it).
  const byWorkspace = Map.groupBy(
    events.filter((e) => e.type !== 'webhook.test'),
    (e) => e.workspace_id,
  );
  for (const [workspaceId, inWorkspace] of byWorkspace) {
    const own = endpoints.filter((e) => e.workspace_id === workspaceId);
    // In the events' order, so each endpoint receives them in the order they happened.
    const rows = inWorkspace.flatMap((event) =>
      own
        .filter((e) => e.events.includes(event.type) || e.events.includes('*'))
        .map((e) => ({ id: newId('dlv'), endpointId: e.id, event })),
    );
    if (rows.length === 0) continue;
    await insertDeliveries(db, workspaceId, rows);
    await queueDeliveries(
      db,
      workspaceId,
      rows.map((r) => r.id),
    );
  }
}
