// Scheduled posts start on time. graphile-worker finds jobs that become due only when it polls (every
// HERALD_WORKER_POLL_INTERVAL_MS), so a post scheduled for 09:00:00.000 could start up to a poll interval late.
// The waker keeps a timer for the next publish job due and nudges the worker pool at that instant; it learns
// of new jobs from a notification queuePublishJobs sends, and re-reads the queue on every poll as a backstop.
import type { Pool, PoolClient } from '../db/pool.ts';
import type { Logger } from '../lib/logger.ts';

export const WAKE_CHANNEL = 'herald_publish_scheduled';
/**
 * setTimeout's ceiling (about 24.8 days): a longer delay fires after 1 ms, and a post scheduled next month would
 * then have the waker nudge and re-read the queue in a tight loop. Jobs further out are left to the periodic
 * refresh, which arms the timer once they come within range.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The next publish job due, read from graphile-worker's index of available jobs (priority, run_at): one index
 * entry whatever the length of the queue. The `jobs` view with min(run_at) scanned every job, a second per refresh
 * with a million posts scheduled ahead (docs/decisions.md "The waker reads the next job from the index").
 * Publish jobs are queued at the default priority (0); a job that has used its attempts is not available and
 * never runs, so it arms nothing.
 */
export const NEXT_PUBLISH_JOB = `SELECT j.run_at AS at FROM graphile_worker._private_jobs j
  WHERE j.is_available AND j.priority = 0 AND j.run_at > now()
    AND j.task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'publish_target')
  ORDER BY j.priority, j.run_at LIMIT 1`;

export interface Waker {
  stop(): Promise<void>;
}

export async function startWaker(o: {
  pool: Pool;
  logger: Logger;
  nudge: () => void;
  refreshMs: number;
}): Promise<Waker> {
  let timer: NodeJS.Timeout | undefined;
  let armedFor = Infinity;
  let stopped = false;

  const fire = () => {
    timer = undefined;
    armedFor = Infinity;
    o.nudge();
    // The database's clock may trail ours by a few milliseconds: nudge once more shortly after.
    setTimeout(() => !stopped && o.nudge(), 50).unref();
    void refresh();
  };
  const arm = (at: number) => {
    const delay = Math.max(0, at - Date.now()) + 2;
    if (stopped || at >= armedFor || delay > MAX_TIMER_MS) return;
    if (timer) clearTimeout(timer);
    armedFor = at;
    timer = setTimeout(fire, delay);
  };
  const refresh = async () => {
    try {
      const { rows } = await o.pool.query<{ at: Date | null }>(NEXT_PUBLISH_JOB);
      if (rows[0]?.at) arm(rows[0].at.getTime());
    } catch (error) {
      o.logger.warn({ err: error }, 'waker could not read the queue');
    }
  };

  // The LISTEN connection: when it breaks (a database restart), it is dropped and opened again every second
  // until the database is back; meanwhile the periodic refresh still arms the timer, a little later.
  let listener: PoolClient | undefined;
  let releaseListener: (() => void) | undefined;
  let reconnect: NodeJS.Timeout | undefined;
  const retryListen = () => {
    if (stopped || reconnect) return;
    reconnect = setTimeout(() => {
      reconnect = undefined;
      void listen();
    }, 1000);
    reconnect.unref();
  };
  const listen = async (): Promise<void> => {
    let client: PoolClient | undefined;
    try {
      client = await o.pool.connect();
      const own = client;
      const onNotification = (message: { payload?: string }) => {
        const at = Date.parse(message.payload ?? '');
        if (!Number.isNaN(at)) arm(at);
      };
      const onError = () => {
        if (listener !== own) return;
        listener = undefined;
        detach();
        own.release(true);
        retryListen();
      };
      // Our handlers leave with the client: once released it belongs to the pool, and a later error on it (the
      // database shutting down after stop()) must not release it a second time.
      const detach = () => {
        own.off('notification', onNotification);
        own.off('error', onError);
      };
      own.on('notification', onNotification);
      own.on('error', onError);
      releaseListener = detach;
      await own.query(`LISTEN ${WAKE_CHANNEL}`);
      if (stopped) {
        detach();
        own.release();
        return;
      }
      listener = own;
      // Jobs queued while we were not listening: read the queue now.
      void refresh();
    } catch (error) {
      client?.release(true);
      o.logger.warn({ err: error }, 'waker could not LISTEN; retrying, and reading the queue periodically meanwhile');
      retryListen();
    }
  };
  await listen();
  const interval = setInterval(() => void refresh(), o.refreshMs);
  await refresh();
  return {
    async stop() {
      stopped = true;
      clearInterval(interval);
      if (timer) clearTimeout(timer);
      if (reconnect) clearTimeout(reconnect);
      const own = listener;
      listener = undefined;
      if (own) {
        await own.query(`UNLISTEN ${WAKE_CHANNEL}`).catch(() => {});
        releaseListener?.();
        own.release();
      }
    },
  };
}
