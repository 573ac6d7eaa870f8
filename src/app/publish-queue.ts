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

/** Removes the pending publish jobs of these targets (a job already running is left to its own checks). */
export async function removePublishJobs(db: Queryable, targetIds: string[]): Promise<void> {
  if (targetIds.length === 0) return;
  await db.query(`SELECT graphile_worker.remove_job('publish:' || t.id) FROM unnest($1::text[]) AS t(id)`, [targetIds]);
}
