// The metrics vocabulary of the adapter contract (types.ts re-exports it): Herald's own metric names, what an
// adapter's `fetchMetrics` answers, and how an answer's missing counts are left out rather than made 0.

/**
 * The metrics Herald records, in its own names (docs/analytics.md): impressions (times shown; views on platforms
 * that call them so), reach (distinct accounts), likes (reactions), comments (replies), shares (reposts, quotes
 * counted apart), quotes, saves, clicks (link clicks), video_views.
 */
export const METRIC_NAMES = [
  'impressions',
  'reach',
  'likes',
  'comments',
  'shares',
  'quotes',
  'saves',
  'clicks',
  'video_views',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/**
 * Metrics of one published post (optional capability): a count per metric the platform gives for it. A metric
 * the platform does not give (or not to this app's permissions) is left out and recorded as `unavailable`,
 * never estimated.
 */
export type PostMetrics = Partial<Record<MetricName, number>>;

/** The counts an answer carried, without the ones it left out (those are unavailable, never 0). */
export function definedCounts(counts: Partial<Record<MetricName, number | undefined>>): PostMetrics {
  const out: PostMetrics = {};
  for (const [name, value] of Object.entries(counts) as Array<[MetricName, number | undefined]>)
    if (typeof value === 'number') out[name] = value;
  return out;
}
