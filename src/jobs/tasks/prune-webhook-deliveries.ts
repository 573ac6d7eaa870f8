// Retention for the webhook delivery log: finished deliveries (with their attempts) are kept 30 days.
import type { Pool } from '../../db/pool.ts';
import { pruneFinishedDeliveries } from '../../features/webhooks/deliveries.repo.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { pruneInBatches } from './prune.ts';

export const DELIVERY_LOG_RETENTION_MS = 30 * 24 * 3_600_000;

export function pruneWebhookDeliveriesTask(deps: { pool: Pool; clock: Clock; logger: Logger }) {
  return async function pruneWebhookDeliveries(): Promise<void> {
    const before = new Date(deps.clock.now().getTime() - DELIVERY_LOG_RETENTION_MS);
    const removed = await pruneInBatches((batch) => pruneFinishedDeliveries(deps.pool, before, batch));
    if (removed > 0) deps.logger.info({ removed }, 'old webhook deliveries removed');
  };
}
