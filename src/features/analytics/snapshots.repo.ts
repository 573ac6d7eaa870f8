// The metric tables' writer (migration 0022): snapshots are only ever inserted, and target_metrics — the rollup
// one row per published target — is rewritten from each reading in the same transaction, so its `latest` is the
// newest snapshot of each metric, never a sum of readings.
// The sync works for every workspace at once, so enrolling and claiming are not scoped to one; every row written
// carries the workspace of its target.
import type { Queryable } from '../../db/pool.ts';
import { METRIC_NAMES, type MetricName, type PostMetrics } from '../../platforms/types.ts';

/** A target a sync pass claimed, with what the adapter needs to find its post on the platform. */
export interface DueTarget {
  target_id: string;
  workspace_id: string;
  connection_id: string;
  platform: string;
  sandbox: boolean;
  published_at: Date;
  unavailable: string[];
  platform_post_id: string;
  url: string | null;
  ref: Record<string, string> | null;
  /** The claim: next_sync_at as the claim set it. A reading is stored only while the row still holds it. */
  lease_until: Date;
}

/** What the sync records when a reading fails; `null` fields are left out of the stored JSON. */
export interface SyncError {
  code: string;
  message: string;
  at: string;
}

/**
 * Gives every published target without a rollup row one (the sweep that enrolls new posts in the sync), for
 * targets published within the sync window. The first reading is due `firstAfterMs` after publishing, or now.
 */
export async function enrollPublishedTargets(
  db: Queryable,
  opts: { now: Date; maxAgeDays: number; firstAfterMs: number; limit: number },
): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO target_metrics (target_id, workspace_id, post_id, brand_id, connection_id, platform, sandbox,
                                 published_at, next_sync_at)
     SELECT t.id, t.workspace_id, t.post_id, p.brand_id, t.connection_id, t.platform, t.sandbox, t.published_at,
            greatest(t.published_at + $3 * interval '1 millisecond', $1)
       FROM post_targets t
       JOIN posts p ON p.id = t.post_id
      WHERE t.status = 'published' AND t.platform_post_id IS NOT NULL
        AND t.published_at > $1::timestamptz - $2 * interval '1 day'
        AND NOT EXISTS (SELECT 1 FROM target_metrics m WHERE m.target_id = t.id)
      ORDER BY t.published_at
      LIMIT $4
     ON CONFLICT (target_id) DO NOTHING`,
    [opts.now, opts.maxAgeDays, opts.firstAfterMs, opts.limit],
  );
  return rowCount ?? 0;
}

/**
 * Ends the sync of due targets whose connection is disconnected (or gone): such a connection is never active
 * again — connecting the account anew makes a new connection — so they would stay due for ever, passed over by
 * every claim. Their latest values stay. An expired connection's targets are kept: renewing it resumes them.
 */
export async function retireDisconnectedTargets(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE target_metrics m
        SET next_sync_at = NULL,
            last_error = jsonb_build_object('code', 'PLATFORM_CONNECTION_UNAVAILABLE',
                                            'message', 'The connection was disconnected.', 'at', $1::timestamptz)
      WHERE m.next_sync_at <= $1
        AND NOT EXISTS (SELECT 1 FROM connections c WHERE c.id = m.connection_id AND c.status <> 'disconnected')`,
    [now],
  );
  return rowCount ?? 0;
}

/**
 * Claims up to `limit` due targets whose connection is active (an expired connection's targets wait for the
 * reconnect), pushing their next_sync_at to `leaseUntil` so a concurrent pass skips them and a pass that dies
 * leaves them due again later.
 */
export async function claimDueTargets(
  db: Queryable,
  opts: { now: Date; leaseUntil: Date; limit: number },
): Promise<DueTarget[]> {
  const { rows } = await db.query<DueTarget>(
    `WITH due AS (
       SELECT m.target_id
         FROM target_metrics m
         JOIN connections c ON c.id = m.connection_id AND c.status = 'active'
        WHERE m.next_sync_at <= $1
        ORDER BY m.next_sync_at
        LIMIT $3
          FOR UPDATE OF m SKIP LOCKED
     )
     UPDATE target_metrics m SET next_sync_at = $2
       FROM due, post_targets t
      WHERE m.target_id = due.target_id AND t.id = m.target_id
     RETURNING m.target_id, m.next_sync_at AS lease_until, m.workspace_id, m.connection_id, m.platform, m.sandbox, m.published_at, m.unavailable,
               t.platform_post_id, t.url,
               (SELECT ref FROM target_parts p WHERE p.target_id = m.target_id AND p.position = 0) AS ref`,
    [opts.now, opts.leaseUntil, opts.limit],
  );
  return rows;
}

/**
 * Stores one reading: a snapshot per metric the platform gave, one `unavailable` snapshot for each metric it
 * does not give that was not already recorded so (a metric that stays unavailable is not re-recorded every
 * pass), and the rollup row rewritten from it. Call inside a transaction. Only while the claim holds: a pass
 * slower than its lease, whose targets another pass claimed since, stores nothing (returns false), so two passes
 * never record the same schedule point twice nor put an older reading over a newer one.
 */
export async function recordReading(
  db: Queryable,
  reading: {
    target: Pick<DueTarget, 'target_id' | 'workspace_id' | 'sandbox' | 'unavailable' | 'lease_until'>;
    metrics: PostMetrics;
    capturedAt: Date;
    nextSyncAt: Date | null;
  },
): Promise<boolean> {
  const { target, capturedAt } = reading;
  const latest: Partial<Record<MetricName, number>> = {};
  const unavailable: MetricName[] = [];
  for (const name of METRIC_NAMES) {
    const value = reading.metrics[name];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) latest[name] = Math.round(value);
    else unavailable.push(name);
  }
  const names: string[] = [];
  const values: Array<number | null> = [];
  for (const name of METRIC_NAMES) {
    if (latest[name] !== undefined) {
      names.push(name);
      values.push(latest[name]);
    } else if (!target.unavailable.includes(name)) {
      names.push(name);
      values.push(null);
    }
  }
  // The rollup row first: its row lock serialises this with any other pass, and its lease says whose claim it is.
  const { rowCount } = await db.query(
    `UPDATE target_metrics
        SET latest = $2, unavailable = $3, first_captured_at = coalesce(first_captured_at, $4),
            last_captured_at = $4, sync_count = sync_count + 1, next_sync_at = $5, last_error = NULL
      WHERE target_id = $1 AND next_sync_at = $6`,
    [target.target_id, JSON.stringify(latest), unavailable, capturedAt, reading.nextSyncAt, target.lease_until],
  );
  if (rowCount !== 1) return false;
  if (names.length > 0)
    await db.query(
      `INSERT INTO metric_snapshots (workspace_id, target_id, metric, value, unit, status, captured_at, source)
       SELECT $1, $2, n.metric, n.value, 'count', CASE WHEN n.value IS NULL THEN 'unavailable' ELSE 'ok' END, $3, $4
         FROM unnest($5::text[], $6::bigint[]) AS n (metric, value)`,
      [target.workspace_id, target.target_id, capturedAt, target.sandbox ? 'sandbox' : 'platform', names, values],
    );
  return true;
}

/** Records a failed reading of these targets and when to try them again (null: not again). */
export async function rescheduleTargets(
  db: Queryable,
  targetIds: string[],
  nextSyncAt: Date | null,
  error: SyncError,
): Promise<void> {
  if (targetIds.length === 0) return;
  await db.query(`UPDATE target_metrics SET next_sync_at = $2, last_error = $3 WHERE target_id = ANY($1::text[])`, [
    targetIds,
    nextSyncAt,
    JSON.stringify(error),
  ]);
}

/** A rate-limited connection: none of its targets is read before `until` (the platform's reset). */
export async function deferConnection(
  db: Queryable,
  connectionId: string,
  until: Date,
  error: SyncError,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE target_metrics SET next_sync_at = $2, last_error = $3
      WHERE connection_id = $1 AND next_sync_at IS NOT NULL AND next_sync_at < $2`,
    [connectionId, until, JSON.stringify(error)],
  );
  return rowCount ?? 0;
}
