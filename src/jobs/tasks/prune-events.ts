// Retention for the events API: events older than HERALD_EVENT_RETENTION_DAYS (30 by default, never fewer) go,
// a day later than that. The delivery log keeps a finished delivery 30 days in a job of its own; the day's margin
// means an event always outlives the deliveries that refer to it, so a delivery retried by hand on its last day
// still finds its event (a delivery without one would stay pending for good).
import type { Pool } from '../../db/pool.ts';
import { pruneEvents } from '../../features/events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { pruneInBatches } from './prune.ts';

const DAY_MS = 86_400_000;
const EVENT_PRUNE_MARGIN_MS = DAY_MS;

export function pruneEventsTask(deps: { pool: Pool; clock: Clock; logger: Logger; retentionDays: number }) {
  return async function pruneOldEvents(): Promise<void> {
    const before = new Date(deps.clock.now().getTime() - deps.retentionDays * DAY_MS - EVENT_PRUNE_MARGIN_MS);
    const removed = await pruneInBatches((batch) => pruneEvents(deps.pool, before, batch));
    if (removed > 0) deps.logger.info({ removed }, 'old events removed');
  };
}
