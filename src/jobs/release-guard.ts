// graphile-worker's local queue, released while the database is away (a runner shut down by the supervisor
// during a restart or failover), fails to hand its fetched jobs back and rejects a promise nobody holds — which
// would kill the process. Those jobs stay locked under the released pool's id, which no longer heartbeats
// (trackLockOwners drops it on `pool:release`), so the dead-worker sweep unlocks them: the rejection is logged
// and dropped. Any other unhandled rejection still ends the process, as Node's default does.
import type { Logger } from '../lib/logger.ts';

const RETURN_FAILED = 'Error occurred whilst returning jobs from local queue to database queue';

export function guardLocalQueueRelease(logger: Pick<Logger, 'warn'>): { remove(): void } {
  const onRejection = (reason: unknown) => {
    if (reason instanceof Error && reason.message.startsWith(RETURN_FAILED)) {
      logger.warn(
        { err: reason },
        'a released job runner could not return its queued jobs; the dead-worker sweep will unlock them',
      );
      return;
    }
    throw reason;
  };
  process.on('unhandledRejection', onRejection);
  return { remove: () => process.off('unhandledRejection', onRejection) };
}
