// Fan-out: an event appended to the outbox becomes one delivery (and one queued job) per enabled endpoint of
// its workspace subscribed to its type — in the transaction that appended the event, so a delivery exists
// exactly when the event does: nothing to relay, nothing a crash can lose.
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { queueDeliveries } from '../../jobs/delivery-queue.ts';
import { insertDeliveries } from './deliveries.repo.ts';
import { subscribedEndpointIds } from './endpoints.repo.ts';

/** Creates and queues the deliveries of one event to the given endpoints; returns the delivery ids. */
export async function createDeliveries(db: Queryable, workspaceId: string, event: { id: string; type: string }, endpointIds: string[], trigger?: 'manual'): Promise<string[]> {
  const rows = endpointIds.map((endpointId) => ({ id: newId('dlv'), endpointId }));
  await insertDeliveries(db, workspaceId, event, rows);
  await queueDeliveries(db, workspaceId, rows.map((r) => r.id), { trigger });
  return rows.map((r) => r.id);
}

export async function fanOutEvent(db: Queryable, event: { id: string; type: string; workspace_id: string }): Promise<void> {
  // A test event goes only to the endpoint under test (webhooks.service sends it).
  if (event.type === 'webhook.test') return;
  const endpointIds = await subscribedEndpointIds(db, event.workspace_id, event.type);
  if (endpointIds.length > 0) await createDeliveries(db, event.workspace_id, event, endpointIds);
}
