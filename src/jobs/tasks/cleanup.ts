// Housekeeping run by the worker on a schedule: forget idempotency answers older than 24 h.
import type { Pool } from '../../db/pool.ts';
import { deleteExpiredIdempotencyKeys } from '../../http/idempotency.ts';
import type { Logger } from '../../lib/logger.ts';

export function cleanupTask(deps: { pool: Pool; logger: Logger }) {
  return async function cleanup(): Promise<void> {
    const removed = await deleteExpiredIdempotencyKeys(deps.pool);
    if (removed > 0) deps.logger.info({ removed }, 'expired idempotency keys removed');
  };
}
