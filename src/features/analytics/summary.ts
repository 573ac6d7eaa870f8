// GET /v1/analytics/summary (docs/analytics.md "API"): totals, engagement rate, top posts and the platform
// breakdown of the posts published in a window, with deltas against the previous window of the same length. It
// reads only the rollup (summary.repo.ts): the two windows' totals in one query, the top posts in another and, when
// `interval` asks for it, the series in a third, side by side on the pool.
import type { ServiceContext } from '../../app/context.ts';
import type { Clock } from '../../lib/clock.ts';
import { METRIC_NAMES, type MetricName } from '../../platforms/types.ts';
import { TOP_POSTS_DEFAULT, type SummaryQuery } from './analytics.schemas.ts';
import { rate } from './metrics.ts';
import { zoneRefusedByDatabase } from '../../app/timezone.ts';
import { brandScope, checkSeriesLength, previousWindow, seriesZone, summaryWindow } from './scope.ts';
import { periodSeries, periodTotals, topPosts, type GroupTotals, type SummaryFilters } from './summary.repo.ts';

export interface TotalsJson {
  posts: number;
  targets: number;
  engagements: number | null;
  engagement_rate: number | null;
  metrics: Record<MetricName, number | null>;
  reporting: Record<MetricName, number>;
  unavailable: MetricName[];
}

export function totalsJson(group: GroupTotals | undefined): TotalsJson {
  const metric = (m: MetricName) => group?.metrics[m] ?? { sum: null, reporting: 0 };
  return {
    posts: group?.posts ?? 0,
    targets: group?.targets ?? 0,
    engagements: group?.engagements ?? null,
    engagement_rate: rate(group?.rateNumerator ?? null, group?.rateDenominator ?? null),
    metrics: Object.fromEntries(METRIC_NAMES.map((m) => [m, metric(m).sum])) as Record<MetricName, number | null>,
    reporting: Object.fromEntries(METRIC_NAMES.map((m) => [m, metric(m).reporting])) as Record<MetricName, number>,
    unavailable: METRIC_NAMES.filter((m) => metric(m).reporting === 0),
  };
}

/** The change from `previous` to `current`; unknown when either is, and no percentage from a base of 0. */
export function delta(
  current: number | null,
  previous: number | null,
): { change: number | null; percent: number | null } {
  if (current === null || previous === null) return { change: null, percent: null };
  const change = Math.round((current - previous) * 10_000) / 10_000;
  return { change, percent: previous === 0 ? null : Math.round((change / previous) * 10_000) / 100 };
}

function excerpt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function summaryFilters(
  ctx: ServiceContext,
  query: Pick<SummaryQuery, 'brand_id' | 'connection_id' | 'platform' | 'from' | 'to' | 'family'>,
  clock: Clock,
): SummaryFilters {
  const window = summaryWindow(query, clock.now());
  return {
    ...window,
    brandIds: brandScope(ctx, query.brand_id),
    connectionIds: query.connection_id ? [...new Set(query.connection_id)].sort() : undefined,
    platforms: query.platform ? [...new Set(query.platform)].sort() : undefined,
    ...(query.family !== undefined ? { family: query.family } : {}),
  };
}

export async function analyticsSummary(ctx: ServiceContext, query: SummaryQuery, clock: Clock) {
  const filters = summaryFilters(ctx, query, clock);
  const previous = { ...filters, ...previousWindow(filters) };
  const zone = seriesZone(query.tz);
  const unit = query.interval;
  if (unit) checkSeriesLength(filters, unit, zone);
  const [{ current: groups, previous: before }, top, series] = await Promise.all([
    periodTotals(ctx.db, ctx.workspaceId, filters, previous.from),
    topPosts(ctx.db, ctx.workspaceId, filters, query.top ?? TOP_POSTS_DEFAULT),
    unit
      ? periodSeries(ctx.db, ctx.workspaceId, filters, unit, zone).catch((error: unknown) => {
          throw zoneRefusedByDatabase(error, zone, '/tz');
        })
      : undefined,
  ]);
  const totals = totalsJson(groups.find((g) => g.platform === null));
  const previousTotals = totalsJson(before.find((g) => g.platform === null));
  return {
    object: 'analytics_summary' as const,
    period: { from: filters.from.toISOString(), to: filters.to.toISOString() },
    previous_period: { from: previous.from.toISOString(), to: previous.to.toISOString() },
    totals,
    previous_totals: previousTotals,
    deltas: {
      posts: delta(totals.posts, previousTotals.posts),
      targets: delta(totals.targets, previousTotals.targets),
      engagements: delta(totals.engagements, previousTotals.engagements),
      engagement_rate: delta(totals.engagement_rate, previousTotals.engagement_rate),
      metrics: Object.fromEntries(METRIC_NAMES.map((m) => [m, delta(totals.metrics[m], previousTotals.metrics[m])])),
    },
    top_posts: top.map((p) => ({
      post_id: p.post_id,
      excerpt: excerpt(p.content),
      platforms: p.platforms,
      published_at: p.published_at.toISOString(),
      engagements: p.engagements,
      engagement_rate: rate(p.rate_num, p.rate_den),
    })),
    platform_breakdown: groups
      .filter((g): g is GroupTotals & { platform: string } => g.platform !== null)
      .map((g) => ({ platform: g.platform, totals: totalsJson(g) })),
    // Only asked for: without `interval` the answer has no `series` at all.
    ...(series
      ? {
          series: series.map((b) => ({
            from: b.from.toISOString(),
            to: b.to.toISOString(),
            totals: totalsJson(b.totals),
          })),
        }
      : {}),
  };
}
