// What /health/ready says about publishing ("scheduled posts silently never published" is the top complaint about every
// peer): the age of the freshest worker heartbeat, and how many targets are overdue — due longer ago than
// HERALD_OVERDUE_AFTER_MS and not taken by a worker (unless the platform asked us to wait). Not ready when no worker is
// alive or any is overdue.
import type { Pool } from '../../db/pool.ts';

export interface PublishingHealth {
  ready: boolean;
  worker: { alive: boolean; processes: number; last_heartbeat_age_ms: number | null };
  publishing: { overdue_targets: number; oldest_overdue_since: string | null };
}

export async function publishingHealth(
  pool: Pool,
  o: { workerDeadAfterMs: number; overdueAfterMs: number },
): Promise<PublishingHealth> {
  // A publishing worker process heartbeats its graphile-worker pool (and workers) in job_worker_heartbeats.
  const { rows: beats } = await pool.query<{ processes: number; age_ms: number | null }>(
    `SELECT count(*) FILTER (WHERE worker_id LIKE 'pool-%' AND last_seen_at > now() - make_interval(secs => $1::double precision / 1000))::int AS processes,
            (extract(epoch FROM now() - max(last_seen_at)) * 1000)::bigint AS age_ms
       FROM job_worker_heartbeats WHERE queue_schema = 'graphile_worker'`,
    [o.workerDeadAfterMs],
  );
  const { rows: overdue } = await pool.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(due) AS oldest FROM (
       -- Two arms, each on its own partial index (posts_due_idx, post_targets_in_flight_idx), so the check stays
       -- cheap with millions of posts scheduled in the future.
       SELECT p.schedule_at AS due
         FROM posts p JOIN post_targets t ON t.post_id = p.id LEFT JOIN connections c ON c.id = t.connection_id
        WHERE p.status IN ('scheduled', 'publishing') AND p.deleted_at IS NULL
          AND p.schedule_at < now() - make_interval(secs => $1::double precision / 1000)
          AND t.status = 'scheduled'
          -- Waiting for a platform's rate-limit reset is not being late.
          AND (c.throttled_until IS NULL OR c.throttled_until <= now())
       UNION ALL
       SELECT t.next_attempt_at AS due
         FROM post_targets t JOIN posts p ON p.id = t.post_id LEFT JOIN connections c ON c.id = t.connection_id
        WHERE t.status = 'publishing' AND t.claimed_by IS NULL AND p.deleted_at IS NULL
          AND (c.throttled_until IS NULL OR c.throttled_until <= now())
     ) d WHERE due < now() - make_interval(secs => $1::double precision / 1000)`,
    [o.overdueAfterMs],
  );
  const processes = beats[0]?.processes ?? 0;
  const n = overdue[0]?.n ?? 0;
  return {
    ready: processes > 0 && n === 0,
    worker: { alive: processes > 0, processes, last_heartbeat_age_ms: beats[0]?.age_ms ?? null },
    publishing: { overdue_targets: n, oldest_overdue_since: overdue[0]?.oldest?.toISOString() ?? null },
  };
}
