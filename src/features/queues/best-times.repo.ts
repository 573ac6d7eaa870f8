// The SQL of best-time suggestions (docs/queues.md "Best times"): reads only — the analytics rollup
// (target_metrics, one row per published target with the latest value of each metric, written by
// analytics/snapshots.repo.ts) grouped by weekday and hour in a time zone, and the connections a request names.
// Every function takes the workspace id.
import type { Queryable } from '../../db/pool.ts';
import { ENGAGEMENTS_SQL, RATE_BASE_SQL } from '../analytics/summary.repo.ts';

/** One weekday × hour of the zone with the engagement index of the posts published in it. */
export interface HourGroup {
  /** 0 = Sunday … 6 = Saturday, in the zone. */
  dow: number;
  hour: number;
  /** Published targets in the group whose engagement index is known. */
  n: number;
  /** Mean engagement index (1 = the account's own average). */
  mean: number;
  /** Sample standard deviation of the index (0 for a single target). */
  sd: number;
  /** Of `n`, targets measured by engagement rate (the rest by engagements per post). */
  byRate: number;
}

export interface SampleFilter {
  brandId: string;
  /** Only these connections; null: every target of the brand. */
  connectionIds: readonly string[] | null;
  timezone: string;
  from: Date;
  to: Date;
}

/**
 * Each target's measure is its engagement rate (engagements ÷ reach, else impressions) when it reports a base,
 * else its engagements; the index divides it by the mean of the same measure over the same account's targets of
 * the window, so a large account does not drown a small one and a rate is never compared with a count. Targets
 * of an account whose mean is 0 carry no information and are left out. An account is the connection, or the
 * platform for targets whose connection is unknown.
 */
export async function hourGroups(db: Queryable, workspaceId: string, f: SampleFilter): Promise<HourGroup[]> {
  const { rows } = await db.query<HourGroup>(
    `WITH t AS (
       SELECT coalesce(connection_id, 'platform:' || platform) AS account,
              published_at AT TIME ZONE $4 AS local,
              (${ENGAGEMENTS_SQL})::float8 AS engagements,
              (${RATE_BASE_SQL})::float8 AS base
         FROM target_metrics
        WHERE workspace_id = $1 AND published_at >= $2 AND published_at < $3
          AND CASE WHEN $6::text[] IS NULL THEN brand_id = $5 ELSE connection_id = ANY($6::text[]) END
     ), v AS (
       SELECT account, local, base IS NOT NULL AS by_rate,
              CASE WHEN base IS NOT NULL THEN engagements / base ELSE engagements END AS value
         FROM t
        WHERE engagements IS NOT NULL
     ), i AS (
       SELECT local, by_rate, value / nullif(avg(value) OVER (PARTITION BY account, by_rate), 0) AS idx
         FROM v
     )
     SELECT extract(dow FROM local)::int AS dow, extract(hour FROM local)::int AS hour, count(*)::int AS n,
            avg(idx)::float8 AS mean, coalesce(stddev_samp(idx), 0)::float8 AS sd,
            (count(*) FILTER (WHERE by_rate))::int AS "byRate"
       FROM i
      WHERE idx IS NOT NULL
      GROUP BY 1, 2`,
    [workspaceId, f.from, f.to, f.timezone, f.brandId, f.connectionIds],
  );
  return rows;
}

/** Of `ids`, those that are connections of the brand in the workspace. */
export async function brandConnectionIds(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  ids: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM connections WHERE workspace_id = $1 AND brand_id = $2 AND id = ANY($3::text[])',
    [workspaceId, brandId, ids],
  );
  return rows.map((r) => r.id);
}
