// GET /v1/analytics/posts/{id} (docs/analytics.md "API"): each target's latest value of every metric — `ok`,
// `unavailable` (the platform does not give it) or `pending` (not read yet), never a made-up 0 — with every
// reading as a series, and the post's totals over its targets.
import type { ServiceContext } from '../../app/context.ts';
import { notFound } from '../../app/errors.ts';
import { METRIC_NAMES, type MetricName } from '../../platforms/types.ts';
import { findPost } from '../posts/posts.repo.ts';
import { engagementsOf, rate, rateBaseOf } from './metrics.ts';
import { postTargetMetrics, readings, type PostTargetMetrics } from './post-analytics.repo.ts';
import type { GroupTotals } from './summary.repo.ts';
import { totalsJson } from './summary.ts';

type MetricStatus = 'ok' | 'unavailable' | 'pending';

function metricOf(t: PostTargetMetrics, m: MetricName): { value: number | null; status: MetricStatus } {
  if (t.latest && typeof t.latest[m] === 'number') return { value: t.latest[m], status: 'ok' };
  if (t.unavailable?.includes(m)) return { value: null, status: 'unavailable' };
  return { value: null, status: 'pending' };
}

/** The post's totals, summed over its targets exactly as the summary sums a window (summary.repo.ts). */
export function postTotals(targets: readonly PostTargetMetrics[]): GroupTotals {
  const read = targets.filter((t) => t.latest !== null);
  const metrics: GroupTotals['metrics'] = {};
  for (const m of METRIC_NAMES) {
    const values = read.map((t) => t.latest![m]).filter((v): v is number => typeof v === 'number');
    metrics[m] = { sum: values.length ? values.reduce((a, b) => a + b, 0) : null, reporting: values.length };
  }
  let engagements: number | null = null;
  let reporting = 0;
  let numerator: number | null = null;
  let denominator: number | null = null;
  for (const t of read) {
    const e = engagementsOf(t.latest!);
    if (e === null) continue;
    engagements = (engagements ?? 0) + e;
    reporting++;
    const base = rateBaseOf(t.latest!);
    if (base !== null) {
      numerator = (numerator ?? 0) + e;
      denominator = (denominator ?? 0) + base;
    }
  }
  return {
    platform: null,
    targets: read.length,
    posts: read.length > 0 ? 1 : 0,
    metrics,
    engagements,
    engagementReporting: reporting,
    rateNumerator: numerator,
    rateDenominator: denominator,
  };
}

export async function postAnalytics(ctx: ServiceContext, postId: string) {
  const post = await findPost(ctx.db, ctx.workspaceId, postId);
  if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
  const targets = await postTargetMetrics(ctx.db, ctx.workspaceId, postId);
  const series = new Map<string, Record<string, Array<{ captured_at: string; value: number }>>>();
  for (const r of await readings(
    ctx.db,
    ctx.workspaceId,
    targets.filter((t) => t.latest !== null).map((t) => t.target_id),
  )) {
    const perMetric = series.get(r.target_id) ?? Object.fromEntries(METRIC_NAMES.map((m) => [m, []]));
    series.set(r.target_id, perMetric);
    perMetric[r.metric]?.push({ captured_at: r.captured_at.toISOString(), value: Number(r.value) });
  }
  return {
    object: 'post_analytics' as const,
    post_id: postId,
    totals: totalsJson(postTotals(targets)),
    targets: targets.map((t) => {
      const engagements = t.latest ? engagementsOf(t.latest) : null;
      return {
        target_id: t.target_id,
        platform: t.platform,
        connection_id: t.connection_id,
        status: t.status,
        published_at: t.published_at ? t.published_at.toISOString() : null,
        last_synced_at: t.last_captured_at ? t.last_captured_at.toISOString() : null,
        engagements,
        engagement_rate: t.latest ? rate(engagements, rateBaseOf(t.latest)) : null,
        metrics: Object.fromEntries(METRIC_NAMES.map((m) => [m, metricOf(t, m)])),
        unavailable: METRIC_NAMES.filter((m) => t.unavailable?.includes(m)),
        series: series.get(t.target_id) ?? Object.fromEntries(METRIC_NAMES.map((m) => [m, []])),
      };
    }),
  };
}
