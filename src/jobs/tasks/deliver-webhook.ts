// The `deliver_webhook` task (delivery runner): one attempt of one delivery. Failures are not thrown: the
// attempt is logged and the delivery rescheduled on the webhook schedule. Only a crash (database down, a bug)
// throws, and then graphile-worker's own retry runs the attempt again.
import type { Task } from 'graphile-worker';
import type { Deliverer } from '../../features/webhooks/delivery.ts';
import type { DeliverWebhookPayload } from '../../app/delivery-queue.ts';

export function deliverWebhookTask(deliver: Deliverer): Task {
  return async function deliverWebhook(payload) {
    const p = payload as Partial<DeliverWebhookPayload> | null;
    if (!p || typeof p.workspace_id !== 'string' || typeof p.delivery_id !== 'string') return; // not ours to guess at
    await deliver(p.workspace_id, p.delivery_id, p.trigger === 'manual' ? 'manual' : 'automatic');
  };
}
