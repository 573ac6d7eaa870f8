// Reads of the rollup (target_metrics, written by snapshots.repo.ts) for summaries and the CSV export. Every
// query selects the targets published in a window through (workspace_id, published_at), so its cost follows the
// targets in the window, never the number of snapshots behind them. Every function takes the workspace id.
import type { Queryable } from '../../db/pool.ts';
import { METRIC_NAMES } from '../../platforms/types.ts';
import { ENGAGEMENT_METRICS, RATE_BASES } from './metrics.ts';

export interface SummaryFilters {
  from: Date;
  to: Date;
  /** null: every brand of the workspace. */
  brandIds: readonly string[] | null;
  connectionIds?: readonly string[];
  platforms?: readonly string[];
  /** Only a recycled family: the original post (this id) and its copies (`posts.recycled_from`). */
  family?: string;
}

/** Sums of one group of targets (a platform, or all): metric sums over the targets that report each metric. */
export interface GroupTotals {
  platform: string | null;
  targets: number;
  posts: number;
  /** Per metric: the sum (null when no target reports it) and how many targets report it. */
  metrics: Record<string, { sum: number | null; reporting: number }>;
  engagements: number | null;
  engagementReporting: number;
  rateNumerator: number | null;
  rateDenominator: number | null;
}

const num = (name: string) => `(latest->>'${name}')::numeric`;
/** A target's engagements: the sum of the engagement metrics it reports; NULL when it reports none. */
export const ENGAGEMENTS_SQL = `CASE WHEN num_nonnulls(${ENGAGEMENT_METRICS.map((m) => `latest->>'${m}'`).join(', ')}) > 0
  THEN ${ENGAGEMENT_METRICS.map((m) => `coalesce(${num(m)}, 0)`).join(' + ')} END`;
/** A target's rate base: its reach, else its impressions; NULL (left out of the rate) when neither is known or 0. */
export const RATE_BASE_SQL = `nullif(coalesce(${RATE_BASES.map(num).join(', ')}), 0)`;

function windowWhere(filters: SummaryFilters, values: unknown[]): string {
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = [`published_at >= ${param(filters.from)}`, `published_at < ${param(filters.to)}`];
  if (filters.brandIds) where.push(`brand_id = ANY(${param(filters.brandIds)}::text[])`);
  if (filters.connectionIds?.length) where.push(`connection_id = ANY(${param(filters.connectionIds)}::text[])`);
  if (filters.platforms?.length) where.push(`platform = ANY(${param(filters.platforms)}::text[])`);
  // $1 is the workspace in every query built on this clause.
  if (filters.family) {
    const family = param(filters.family);
    where.push(
      `post_id IN (SELECT id FROM posts WHERE workspace_id = $1 AND (id = ${family} OR recycled_from = ${family}))`,
    );
  }
  return where.join(' AND ');
}

const metricColumns = METRIC_NAMES.map((m) => `sum(${num(m)}) AS "${m}", count(latest->>'${m}')::int AS "${m}_n"`).join(
  ',\n         ',
);

interface TotalsRow {
  platform: string | null;
  targets: number;
  posts: number;
  engagements: string | null;
  engagement_n: number;
  rate_num: string | null;
  rate_den: string | null;
  [metric: string]: unknown;
}

const toNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The columns a group's totals are read from (`TOTALS_COLUMNS` over a CTE `t` of targets). */
const TOTALS_COLUMNS = `count(*)::int AS targets, count(DISTINCT post_id)::int AS posts,
            sum(engagements) AS engagements, count(engagements)::int AS engagement_n,
            sum(engagements) FILTER (WHERE rate_base IS NOT NULL) AS rate_num,
            sum(rate_base) FILTER (WHERE engagements IS NOT NULL) AS rate_den,
            ${metricColumns}`;

function groupTotals(r: TotalsRow): GroupTotals {
  return {
    platform: r.platform,
    targets: r.targets,
    posts: r.posts,
    metrics: Object.fromEntries(METRIC_NAMES.map((m) => [m, { sum: toNumber(r[m]), reporting: Number(r[`${m}_n`]) }])),
    engagements: toNumber(r.engagements),
    engagementReporting: r.engagement_n,
    rateNumerator: toNumber(r.rate_num),
    rateDenominator: toNumber(r.rate_den),
  };
}

/**
 * Totals per platform and over all of them (`platform: null`) for the window and the one before it (`previousFrom`
 * to `from`), in one pass over the two windows' rollup rows.
 */
export async function periodTotals(
  db: Queryable,
  workspaceId: string,
  filters: SummaryFilters,
  previousFrom: Date,
): Promise<{ current: GroupTotals[]; previous: GroupTotals[] }> {
  const values: unknown[] = [workspaceId, filters.from];
  const where = windowWhere({ ...filters, from: previousFrom }, values);
  const { rows } = await db.query<TotalsRow & { current: boolean }>(
    `WITH t AS (
       SELECT published_at >= $2 AS current, platform, post_id, latest,
              ${ENGAGEMENTS_SQL} AS engagements, ${RATE_BASE_SQL} AS rate_base
         FROM target_metrics
        WHERE workspace_id = $1 AND ${where}
     )
     SELECT current, platform, ${TOTALS_COLUMNS}
       FROM t
      GROUP BY GROUPING SETS ((current, platform), (current))
      ORDER BY current, platform NULLS FIRST`,
    values,
  );
  // A window without targets has no rows at all: its totals are the empty ones (summary.ts `totalsJson`).
  const groups = rows.map((r) => ({ current: r.current, totals: groupTotals(r) }));
  return {
    current: groups.filter((g) => g.current).map((g) => g.totals),
    previous: groups.filter((g) => !g.current).map((g) => g.totals),
  };
}

export interface SeriesBucket {
  /** The bucket's start, or the window's when the bucket began before it. */
  from: Date;
  /** The next bucket's start, or the window's end when that comes first. */
  to: Date;
  /** Over all platforms; undefined for a bucket without targets. */
  totals: GroupTotals | undefined;
}

/**
 * The window's totals per calendar `unit` in `zone`, every bucket present (empty ones without totals), oldest first.
 * A target's bucket is `date_trunc(unit, published_at, zone)`: truncated on the zone's wall clock and turned back
 * into an instant, so the two hours of a clock set back stay two buckets. The empty buckets come from a series of
 * wall-clock starts (hours as elapsed hours), united with the targets' own buckets so that no target is ever left
 * out, whatever a zone's rules; each bucket ends where the next begins.
 */
export async function periodSeries(
  db: Queryable,
  workspaceId: string,
  filters: SummaryFilters,
  unit: 'hour' | 'day' | 'week' | 'month',
  zone: string,
): Promise<SeriesBucket[]> {
  const values: unknown[] = [workspaceId];
  const where = windowWhere(filters, values);
  values.push(filters.from, filters.to, unit, zone);
  const [from, to, u, tz] = [values.length - 3, values.length - 2, values.length - 1, values.length].map(
    (i) => `$${i}`,
  );
  const starts =
    unit === 'hour'
      ? `SELECT generate_series(date_trunc('hour', ${from}::timestamptz, ${tz}::text), ${to}::timestamptz, interval '1 hour')`
      : `SELECT l AT TIME ZONE ${tz}::text
           FROM generate_series(date_trunc(${u}::text, ${from}::timestamptz AT TIME ZONE ${tz}::text),
                                ${to}::timestamptz AT TIME ZONE ${tz}::text, ('1 ' || ${u}::text)::interval) AS l`;
  const { rows } = await db.query<TotalsRow & { bucket_from: Date; bucket_to: Date; empty: boolean }>(
    `WITH t AS (
       SELECT date_trunc(${u}::text, published_at, ${tz}::text) AS bucket, post_id, latest,
              ${ENGAGEMENTS_SQL} AS engagements, ${RATE_BASE_SQL} AS rate_base
         FROM target_metrics
        WHERE workspace_id = $1 AND ${where}
     ), g AS (
       SELECT bucket, NULL::text AS platform, ${TOTALS_COLUMNS}
         FROM t
        GROUP BY bucket
     ), b AS (
       SELECT bucket FROM (${starts}) AS s(bucket) WHERE bucket < ${to}::timestamptz
        UNION
       SELECT bucket FROM g
     )
     SELECT greatest(b.bucket, ${from}::timestamptz) AS bucket_from,
            lead(b.bucket, 1, ${to}::timestamptz) OVER (ORDER BY b.bucket) AS bucket_to,
            g.bucket IS NULL AS empty, g.*
       FROM b LEFT JOIN g ON g.bucket = b.bucket
      ORDER BY b.bucket`,
    values,
  );
  return rows.map((r) => ({ from: r.bucket_from, to: r.bucket_to, totals: r.empty ? undefined : groupTotals(r) }));
}

export interface TopPostRow {
  post_id: string;
  content: string;
  platforms: string[];
  published_at: Date;
  engagements: number;
  rate_num: number | null;
  rate_den: number | null;
}

/** The window's posts with the most engagements (summed over their targets in the window), best first. */
export async function topPosts(
  db: Queryable,
  workspaceId: string,
  filters: SummaryFilters,
  limit: number,
): Promise<TopPostRow[]> {
  const values: unknown[] = [workspaceId];
  const where = windowWhere(filters, values);
  values.push(limit);
  const { rows } = await db.query<TopPostRow>(
    `WITH t AS (
       SELECT post_id, platform, published_at, ${ENGAGEMENTS_SQL} AS engagements, ${RATE_BASE_SQL} AS rate_base
         FROM target_metrics
        WHERE workspace_id = $1 AND ${where}
     ), top AS (
       SELECT post_id, array_agg(DISTINCT platform ORDER BY platform) AS platforms, min(published_at) AS published_at,
              sum(engagements)::float8 AS engagements,
              (sum(engagements) FILTER (WHERE rate_base IS NOT NULL))::float8 AS rate_num,
              (sum(rate_base) FILTER (WHERE engagements IS NOT NULL))::float8 AS rate_den
         FROM t
        WHERE engagements IS NOT NULL
        GROUP BY post_id
        ORDER BY sum(engagements) DESC, post_id
        LIMIT $${values.length}
     )
     SELECT top.*, p.content FROM top JOIN posts p ON p.id = top.post_id AND p.workspace_id = $1
      ORDER BY top.engagements DESC, top.post_id`,
    values,
  );
  return rows;
}

export interface ExportRow {
  post_id: string;
  /** The post's text, cut to EXPORT_CONTENT_CHARS. */
  content: string;
  target_id: string;
  platform: string;
  connection_id: string | null;
  published_at: Date;
  latest: Record<string, number>;
  unavailable: string[];
  last_captured_at: Date | null;
}

/** Characters of a post's text an export row carries. */
export const EXPORT_CONTENT_CHARS = 280;

/** Every target of the window, oldest first, up to `limit` rows (the caller asks one more to see an overflow). */
export async function exportRows(
  db: Queryable,
  workspaceId: string,
  filters: SummaryFilters,
  limit: number,
): Promise<ExportRow[]> {
  const values: unknown[] = [workspaceId];
  const where = windowWhere(filters, values);
  values.push(limit);
  const { rows } = await db.query<ExportRow>(
    `SELECT m.post_id, left(p.content, ${EXPORT_CONTENT_CHARS}) AS content, m.target_id, m.platform, m.connection_id,
            m.published_at, m.latest, m.unavailable, m.last_captured_at
       FROM (SELECT * FROM target_metrics
              WHERE workspace_id = $1 AND ${where}
              ORDER BY published_at, target_id
              LIMIT $${values.length}) AS m
       JOIN posts p ON p.id = m.post_id AND p.workspace_id = $1
      ORDER BY m.published_at, m.target_id`,
    values,
  );
  return rows;
}
