// Worker liveness and self-healing. Each worker process writes a heartbeat (with the ids graphile-worker gave
// its workers) every few seconds. The sweeper, run by one process at a time, then (1) force-unlocks the jobs of
// processes silent for longer than the threshold — graphile-worker would leave them locked for 4 hours —
// so their targets are taken over through the reconcile path; (2) requeues publishing targets that no job
// carries any more; (3) requeues scheduled targets overdue past the threshold whose job is gone.
import { hostname } from 'node:os';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../lib/logger.ts';

// Arbitrary constant shared by every Herald process: "the sweeper lock".
const SWEEP_LOCK = 7_245_812_003;

export interface LivenessOptions {
  pool: Pool;
  logger: Logger;
  processId: string;
  /** graphile-worker's ids of this process's workers, as they are created. */
  jobWorkerIds: () => string[];
  heartbeatIntervalMs: number;
  deadAfterMs: number;
  overdueAfterMs: number;
}

export interface SweepReport {
  deadProcesses: number;
  unlockedWorkers: number;
  requeuedPublishing: number;
  requeuedOverdue: number;
}

export async function beat(o: Pick<LivenessOptions, 'pool' | 'processId' | 'jobWorkerIds'>): Promise<void> {
  await o.pool.query(
    `INSERT INTO worker_heartbeats (id, hostname, pid, job_worker_ids) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), job_worker_ids = EXCLUDED.job_worker_ids`,
    [o.processId, hostname(), process.pid, o.jobWorkerIds()],
  );
}

/** One sweep; does nothing when another process is sweeping. */
export async function sweep(o: Pick<LivenessOptions, 'pool' | 'deadAfterMs' | 'overdueAfterMs'>): Promise<SweepReport | undefined> {
  const client = await o.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [SWEEP_LOCK]);
    if (!lock[0]?.ok) {
      await client.query('ROLLBACK');
      return undefined;
    }
    const dead = `make_interval(secs => $1::double precision / 1000)`;
    const { rows: gone } = await client.query<{ id: string }>(`DELETE FROM worker_heartbeats WHERE last_seen_at < now() - ${dead} RETURNING id`, [o.deadAfterMs]);
    // Locked by a worker no live process claims, for longer than the threshold: its process died (whether or
    // not it ever wrote a heartbeat).
    const { rows: orphans } = await client.query<{ locked_by: string }>(
      `SELECT DISTINCT j.locked_by FROM graphile_worker.jobs j
        WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - ${dead}
          AND NOT EXISTS (SELECT 1 FROM worker_heartbeats h WHERE j.locked_by = ANY(h.job_worker_ids))`,
      [o.deadAfterMs],
    );
    const workerIds = orphans.map((r) => r.locked_by);
    if (workerIds.length > 0) await client.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
    // In flight but carried by no job (a lost job, a bug): requeue through the normal path, which reconciles.
    const { rows: stuck } = await client.query<{ n: number }>(
      `WITH stuck AS (
         SELECT t.id, greatest(coalesce(t.next_attempt_at, now()), now()) AS run_at FROM post_targets t
          WHERE t.status = 'publishing'
            AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = 'publish:' || t.id)
            AND (t.claimed_by IS NULL OR NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.id::text = t.claimed_by))
            AND t.updated_at < now() - ${dead}
       )
       SELECT count(graphile_worker.add_job('publish_target', json_build_object('target_id', s.id, 'schedule_at', NULL::text),
                run_at => s.run_at, job_key => 'publish:' || s.id, max_attempts => 10, job_key_mode => 'replace'))::int AS n FROM stuck s`,
      [o.deadAfterMs],
    );
    const { rows: overdue } = await client.query<{ n: number }>(
      `WITH overdue AS (
         SELECT t.id, p.schedule_at FROM post_targets t JOIN posts p ON p.id = t.post_id
          WHERE t.status = 'scheduled' AND p.deleted_at IS NULL AND p.schedule_at < now() - make_interval(secs => $1::double precision / 1000)
            AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = 'publish:' || t.id AND j.attempts < j.max_attempts)
       )
       SELECT count(graphile_worker.add_job('publish_target', json_build_object('target_id', o.id, 'schedule_at', to_char(o.schedule_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
                job_key => 'publish:' || o.id, max_attempts => 10, job_key_mode => 'replace'))::int AS n FROM overdue o`,
      [o.overdueAfterMs],
    );
    await client.query('COMMIT');
    return { deadProcesses: gone.length, unlockedWorkers: workerIds.length, requeuedPublishing: stuck[0]?.n ?? 0, requeuedOverdue: overdue[0]?.n ?? 0 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Heartbeats and sweeps on timers until stopped; the process's heartbeat row is removed on a clean stop. */
export function startLiveness(o: LivenessOptions): { stop(): Promise<void> } {
  let running = true;
  const tick = async () => {
    try {
      await beat(o);
      const report = await sweep(o);
      if (report && (report.unlockedWorkers || report.requeuedPublishing || report.requeuedOverdue)) o.logger.warn(report, 'sweeper recovered work of dead workers or lost jobs');
    } catch (error) {
      o.logger.error({ err: error }, 'heartbeat or sweep failed');
    }
  };
  let current = tick();
  const timer = setInterval(() => {
    if (running) current = current.then(tick);
  }, o.heartbeatIntervalMs);
  return {
    async stop() {
      running = false;
      clearInterval(timer);
      await current;
      await o.pool.query('DELETE FROM worker_heartbeats WHERE id = $1', [o.processId]).catch(() => {});
    },
  };
}
