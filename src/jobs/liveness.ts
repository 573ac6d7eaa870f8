// Liveness of job runners. graphile-worker leaves the jobs of a killed process locked for 4 hours; here every
// runner writes a heartbeat for the ids it locks jobs under (its pool and its workers), and sweeps: a job
// locked under an id that has not been seen for `deadAfterMs` belongs to a dead process and is unlocked, so
// another runner picks it up. Any number of processes may sweep at once; unlocking twice is harmless.
import type { WorkerEvents } from 'graphile-worker';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../lib/logger.ts';

export interface LivenessOptions {
  /** How often heartbeats are written and the sweep runs. */
  intervalMs: number;
  /** A lock owner silent this long is dead. Must be well above `intervalMs` (docs/architecture.md "Jobs": 30 s). */
  deadAfterMs: number;
}

export const DEFAULT_LIVENESS: LivenessOptions = { intervalMs: 10_000, deadAfterMs: 30_000 };

export interface Liveness {
  stop(): Promise<void>;
}

/** Records the lock-owner ids of a runner as graphile-worker creates them (pass `events` to `run()`). */
export function trackLockOwners(events: WorkerEvents): Set<string> {
  const ids = new Set<string>();
  events.on('pool:create', ({ workerPool }) => ids.add(workerPool.id));
  // A pool that ended (a runner restarted after losing the database) must stop looking alive, so that the jobs
  // it could not release are unlocked by the sweep.
  events.on('pool:release', ({ workerPool }) => ids.delete(workerPool.id));
  events.on('worker:create', ({ worker }) => ids.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => ids.delete(worker.workerId));
  return ids;
}

/** Unlocks the jobs of lock owners not seen for `deadAfterMs`; returns the ids it declared dead. */
export async function sweepDeadWorkers(pool: Pool, schema: string, deadAfterMs: number): Promise<string[]> {
  const { rows } = await pool.query<{ locked_by: string }>(
    `SELECT DISTINCT j.locked_by FROM ${schema}.jobs j
      WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - make_interval(secs => $1 / 1000.0)
        AND NOT EXISTS (SELECT 1 FROM job_worker_heartbeats h
                         WHERE h.worker_id = j.locked_by AND h.last_seen_at >= now() - make_interval(secs => $1 / 1000.0))`,
    [deadAfterMs],
  );
  const dead = rows.map((r) => r.locked_by);
  if (dead.length === 0) return [];
  await pool.query(`SELECT ${schema}.force_unlock_workers($1::text[])`, [dead]);
  await pool.query('DELETE FROM job_worker_heartbeats WHERE worker_id = ANY($1::text[])', [dead]);
  return dead;
}

async function beat(pool: Pool, schema: string, ids: Iterable<string>, written: Set<string>): Promise<void> {
  const list = [...ids];
  if (list.length === 0) return;
  for (const id of list) written.add(id);
  await pool.query(
    `INSERT INTO job_worker_heartbeats (worker_id, queue_schema, last_seen_at) SELECT id, $2, now() FROM unnest($1::text[]) AS t(id)
     ON CONFLICT (worker_id) DO UPDATE SET last_seen_at = now()`,
    [list, schema],
  );
}

/**
 * Heartbeats and sweeps for one runner until stopped. On stop every id this runner ever wrote a heartbeat for is
 * removed: by then the runner has stopped its pool and workers, which took their ids out of `owners`, and a
 * heartbeat left behind would count a stopped process as a live worker until it aged out (/health/publishing).
 */
export function startLiveness(deps: {
  pool: Pool;
  schema: string;
  owners: Set<string>;
  logger: Logger;
  options?: LivenessOptions;
}): Liveness {
  const { pool, schema, owners, logger } = deps;
  const options = deps.options ?? DEFAULT_LIVENESS;
  let running: Promise<void> = Promise.resolve();
  const written = new Set<string>();
  const tick = () => {
    running = (async () => {
      try {
        await beat(pool, schema, owners, written);
        const dead = await sweepDeadWorkers(pool, schema, options.deadAfterMs);
        if (dead.length > 0)
          logger.warn({ schema, workers: dead }, 'unlocked the jobs of job workers that stopped answering');
      } catch (error) {
        logger.warn({ err: error, schema }, 'job worker heartbeat failed');
      }
    })();
  };
  tick();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      const ids = [...new Set([...owners, ...written])];
      if (ids.length > 0)
        await pool.query('DELETE FROM job_worker_heartbeats WHERE worker_id = ANY($1::text[])', [ids]).catch(() => {});
    },
  };
}
