// Self-healing of publishing, run by every worker process (one at a time, under an advisory try-lock): targets
// in `publishing` that no job carries any more, and `scheduled` targets overdue past HERALD_OVERDUE_AFTER_MS
// whose job is gone, are requeued through the normal claim — which reconciles before sending anything. The jobs
// of dead workers are unlocked by liveness.ts (heartbeats per lock owner); this sweep handles what is left.
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../lib/logger.ts';
import { JOB_ID } from '../app/publish-queue.ts';

// Arbitrary constant shared by every Herald process: "the publishing sweeper lock".
const SWEEP_LOCK = 7_245_812_003;

export interface PublishSweepReport {
  requeuedPublishing: number;
  requeuedOverdue: number;
}

/** One sweep; does nothing when another process is sweeping. */
export async function sweepPublishing(
  pool: Pool,
  o: { graceMs: number; overdueAfterMs: number },
): Promise<PublishSweepReport | undefined> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [
      SWEEP_LOCK,
    ]);
    if (!lock[0]?.ok) {
      await client.query('ROLLBACK');
      return undefined;
    }
    // In flight, carried by no job, untouched for a while (a lost job, a bug): requeue through the normal path.
    const { rows: stuck } = await client.query<{ n: number }>(
      `WITH stuck AS (
         SELECT t.id, greatest(coalesce(t.next_attempt_at, now()), now()) AS run_at FROM post_targets t
          WHERE t.status = 'publishing'
            AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = 'publish:' || t.id)
            AND (t.claimed_by IS NULL OR NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.id = ${JOB_ID('t.claimed_by')}))
            AND t.updated_at < now() - make_interval(secs => $1::double precision / 1000)
       )
       SELECT count(graphile_worker.add_job('publish_target', json_build_object('target_id', s.id, 'schedule_at', NULL::text),
                run_at => s.run_at, job_key => 'publish:' || s.id, max_attempts => 10, job_key_mode => 'replace'))::int AS n FROM stuck s`,
      [o.graceMs],
    );
    const { rows: overdue } = await client.query<{ n: number }>(
      `WITH overdue AS (
         SELECT t.id, p.schedule_at FROM post_targets t JOIN posts p ON p.id = t.post_id
          WHERE t.status = 'scheduled' AND p.status IN ('scheduled', 'publishing') AND p.deleted_at IS NULL AND p.schedule_at < now() - make_interval(secs => $1::double precision / 1000)
            AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = 'publish:' || t.id AND j.attempts < j.max_attempts)
       )
       SELECT count(graphile_worker.add_job('publish_target', json_build_object('target_id', o.id, 'schedule_at', to_char(o.schedule_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
                job_key => 'publish:' || o.id, max_attempts => 10, job_key_mode => 'replace'))::int AS n FROM overdue o`,
      [o.overdueAfterMs],
    );
    await client.query('COMMIT');
    return { requeuedPublishing: stuck[0]?.n ?? 0, requeuedOverdue: overdue[0]?.n ?? 0 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Sweeps on a timer until stopped. */
export function startPublishSweeper(o: {
  pool: Pool;
  logger: Logger;
  intervalMs: number;
  graceMs: number;
  overdueAfterMs: number;
}): { stop(): Promise<void> } {
  let current: Promise<void> = Promise.resolve();
  const tick = () => {
    current = current.then(async () => {
      try {
        const report = await sweepPublishing(o.pool, o);
        if (report && (report.requeuedPublishing || report.requeuedOverdue))
          o.logger.warn(report, 'requeued publishing work that no job carried');
      } catch (error) {
        o.logger.error({ err: error }, 'publishing sweep failed');
      }
    });
  };
  tick();
  const timer = setInterval(tick, o.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
