// The job queue (graphile-worker), used from inside the caller's transaction so that a job exists exactly when
// the rows it acts on do. Job keys make rescheduling a replace and cancelling a removal.
import type { Queryable } from '../db/pool.ts';

/** Payload of the `publish_target` task: the target and the schedule it was queued for. */
export interface PublishTargetPayload {
  target_id: string;
  /**
   * The post's schedule_at when the job was queued (null for publish-now); a stale job sees a mismatch and does
   * nothing.
   */
  schedule_at: string | null;
}

/**
 * A target's `claimed_by` (text) as a graphile-worker job id, so the look-up in the jobs table is by primary key:
 * compared as text, it was a scan of every queued job for each claim.
 */
export const JOB_ID = (column: string) => `(CASE WHEN ${column} ~ '^[0-9]{1,18}$' THEN ${column}::bigint END)`;

/**
 * SQL: the job named by `column` is running (locked by a worker). The job's lock is the claim's lease: a target held
 * by a running job is in flight; one held by a job that is not running (failed and awaiting its retry, or unlocked
 * after its worker died) waits. The engine's claim, cancel and the posts' `next_attempt_at` all use this one test.
 */
export const RUNNING_JOB = (column: string) =>
  // A scalar look-up by primary key, row by row: written as EXISTS, the planner may hash every queued job once per
  // statement instead (20,000 rows read by each status roll-up of a 10,000-post burst).
  `((SELECT gj.locked_at FROM graphile_worker.jobs gj WHERE gj.id = ${JOB_ID(column)}) IS NOT NULL)`;

export function publishJobKey(targetId: string): string {
  return `publish:${targetId}`;
}

/** Queues (or re-queues, replacing the pending job) one publish job per target, due at `runAt`. */
export async function queuePublishJobs(
  db: Queryable,
  targetIds: string[],
  runAt: Date,
  scheduleAt: Date | null,
): Promise<void> {
  if (targetIds.length === 0) return;
  await db.query(
    `SELECT graphile_worker.add_job('publish_target',
              json_build_object('target_id', t.id, 'schedule_at', $3::text),
              run_at => $2::timestamptz, job_key => 'publish:' || t.id, max_attempts => 10, job_key_mode => 'replace')
       FROM unnest($1::text[]) AS t(id)`,
    [targetIds, runAt, scheduleAt ? scheduleAt.toISOString() : null],
  );
  // Wakes the workers' timers (src/jobs/waker.ts) so the job starts at run_at, not at the next poll.
  await db.query(`SELECT pg_notify('herald_publish_scheduled', $1)`, [runAt.toISOString()]);
}

/**
 * Re-queues publish jobs, each target at its own time (a queue moving its posts to new slots), replacing the pending
 * ones, in one statement; `schedule_at` of each job is its run time (the post's new schedule_at).
 */
export async function queuePublishJobsAt(
  db: Queryable,
  jobs: ReadonlyArray<{ targetId: string; runAt: Date }>,
): Promise<void> {
  if (jobs.length === 0) return;
  const at = jobs.map((j) => j.runAt.toISOString());
  await db.query(
    `SELECT graphile_worker.add_job('publish_target', json_build_object('target_id', t.id, 'schedule_at', t.at),
              run_at => t.at::timestamptz, job_key => 'publish:' || t.id, max_attempts => 10, job_key_mode => 'replace')
       FROM unnest($1::text[], $2::text[]) AS t(id, at)`,
    [jobs.map((j) => j.targetId), at],
  );
  await db.query(`SELECT pg_notify('herald_publish_scheduled', $1)`, [at.toSorted()[0]]);
}

/** Removes the pending publish jobs of these targets (a job already running is left to its own checks). */
export async function removePublishJobs(db: Queryable, targetIds: string[]): Promise<void> {
  if (targetIds.length === 0) return;
  await db.query(`SELECT graphile_worker.remove_job('publish:' || t.id) FROM unnest($1::text[]) AS t(id)`, [targetIds]);
}
