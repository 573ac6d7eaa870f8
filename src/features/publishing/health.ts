// The state of publishing across the fleet, for `GET /health/publishing` (and for anything else that wants the same
// figures, e.g. the fleet gauges in /metrics): how many worker processes are alive and the age of the freshest
// heartbeat, and how many targets are overdue — due longer ago than HERALD_OVERDUE_AFTER_MS and not taken by a
// worker (unless the platform asked us to wait) — with the oldest one's due time. "Scheduled posts silently never
// published" is the top complaint about every peer, so this is what a monitor alerts on. It is not a readiness
// check: an API process serves whether or not a worker is alive (docs/decisions.md, "Readiness is per process").
import type { Pool } from '../../db/pool.ts';

export type PublishingProblem = 'no_worker' | 'overdue';

export interface PublishingHealth {
  /** `degraded` when no worker is alive or any target is overdue. */
  status: 'ok' | 'degraded';
  /** Why it is degraded (empty when ok). */
  problems: PublishingProblem[];
  /** Worker processes whose publishing heartbeat is younger than HERALD_WORKER_DEAD_AFTER_MS. */
  workers: { alive: number; last_heartbeat_age_ms: number | null };
  overdue: { targets: number; oldest_due_at: string | null; oldest_age_ms: number | null };
  thresholds: { worker_dead_after_ms: number; overdue_after_ms: number };
}

/**
 * The due time of each post target due before `cutoff` (an SQL expression) and not taken by a worker, in a column
 * `due`: targets of scheduled posts not started, and targets between attempts whose next attempt has come. Waiting
 * for a platform's rate-limit reset is not being due. Two arms, each on its own partial index (posts_due_idx,
 * post_targets_in_flight_idx), so the count stays cheap with millions of posts scheduled in the future. Shared by
 * this health check (overdue: due longer ago than HERALD_OVERDUE_AFTER_MS) and the fleet gauges (due now).
 */
export function dueTargets(cutoff: string): string {
  return `
    SELECT p.schedule_at AS due
      FROM posts p JOIN post_targets t ON t.post_id = p.id LEFT JOIN connections c ON c.id = t.connection_id
     WHERE p.status IN ('scheduled', 'publishing') AND p.deleted_at IS NULL AND p.schedule_at < ${cutoff}
       AND t.status = 'scheduled' AND (c.throttled_until IS NULL OR c.throttled_until <= now())
    UNION ALL
    SELECT t.next_attempt_at AS due
      FROM post_targets t JOIN posts p ON p.id = t.post_id LEFT JOIN connections c ON c.id = t.connection_id
     WHERE t.status = 'publishing' AND t.claimed_by IS NULL AND p.deleted_at IS NULL AND t.next_attempt_at < ${cutoff}
       AND (c.throttled_until IS NULL OR c.throttled_until <= now())`;
}

/** Two queries, each on indexes: cheap enough for a monitor polling every few seconds on a large database. */
export async function publishingHealth(
  pool: Pool,
  o: { workerDeadAfterMs: number; overdueAfterMs: number },
): Promise<PublishingHealth> {
  // A publishing worker process heartbeats its graphile-worker pool (and workers) in job_worker_heartbeats.
  const { rows: beats } = await pool.query<{ processes: number; age_ms: string | null }>(
    `SELECT count(*) FILTER (WHERE worker_id LIKE 'pool-%' AND last_seen_at > now() - make_interval(secs => $1::double precision / 1000))::int AS processes,
            (extract(epoch FROM now() - max(last_seen_at)) * 1000)::bigint AS age_ms
       FROM job_worker_heartbeats WHERE queue_schema = 'graphile_worker'`,
    [o.workerDeadAfterMs],
  );
  const { rows: overdue } = await pool.query<{ n: number; oldest: Date | null; age_ms: string | null }>(
    `SELECT count(*)::int AS n, min(due) AS oldest, (extract(epoch FROM now() - min(due)) * 1000)::bigint AS age_ms
       FROM (${dueTargets('now() - make_interval(secs => $1::double precision / 1000)')}) d`,
    [o.overdueAfterMs],
  );
  const processes = beats[0]?.processes ?? 0;
  const n = overdue[0]?.n ?? 0;
  const oldest = overdue[0]?.oldest ?? null;
  const problems: PublishingProblem[] = [];
  if (processes === 0) problems.push('no_worker');
  if (n > 0) problems.push('overdue');
  return {
    status: problems.length === 0 ? 'ok' : 'degraded',
    problems,
    workers: { alive: processes, last_heartbeat_age_ms: beats[0]?.age_ms == null ? null : Number(beats[0].age_ms) },
    overdue: {
      targets: n,
      oldest_due_at: oldest?.toISOString() ?? null,
      oldest_age_ms: oldest ? Math.max(0, Number(overdue[0]!.age_ms)) : null,
    },
    thresholds: { worker_dead_after_ms: o.workerDeadAfterMs, overdue_after_ms: o.overdueAfterMs },
  };
}
