// Fan-out: an event appended to the outbox becomes one delivery (and one queued job) per enabled endpoint of
// its workspace subscribed to its type — in the transaction that appended the event, so a delivery exists
// exactly when the event does: nothing to relay, nothing a crash can lose.
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { queueDeliveries } from '../../app/delivery-queue.ts';
import { insertDeliveries } from './deliveries.repo.ts';
import { subscribedEndpointIds } from './endpoints.repo.ts';

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

/** Fans out events appended together: one endpoint look-up per workspace and type, one insert per workspace. */
export async function fanOutEvents(
  db: Queryable,
  events: Array<{ id: string; type: string; workspace_id: string }>,
): Promise<void> {
  // A test event goes only to the endpoint under test (webhooks.service sends it).
  const byWorkspace = Map.groupBy(
    events.filter((e) => e.type !== 'webhook.test'),
    (e) => e.workspace_id,
  );
  for (const [workspaceId, inWorkspace] of byWorkspace) {
    const subscribed = new Map<string, string[]>();
    for (const type of new Set(inWorkspace.map((e) => e.type)))
      subscribed.set(type, await subscribedEndpointIds(db, workspaceId, type));
    // In the events' order, so each endpoint receives them in the order they happened.
    const rows = inWorkspace.flatMap((event) =>
      subscribed.get(event.type)!.map((endpointId) => ({ id: newId('dlv'), endpointId, event })),
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
