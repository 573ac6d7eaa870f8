// What Herald counts as engagement and what the engagement rate divides by (docs/analytics.md "API"), in one
// place for the summary, the per-post view, the export and the insights.
import type { MetricName } from '../../platforms/types.ts';

/**
 * The interactions a person chose to make with a post: likes (reactions), comments, shares (reposts), quotes and
 * saves. Impressions, reach, views and clicks are exposure or traffic, not engagement.
 */
export const ENGAGEMENT_METRICS: readonly MetricName[] = ['likes', 'comments', 'shares', 'quotes', 'saves'];

/**
 * The engagement rate's base, in order of preference: reach (people who saw it), else impressions (times it was
 * shown). A target reporting neither is left out of the rate — numerator and denominator — rather than counted as 0.
 */
export const RATE_BASES: readonly MetricName[] = ['reach', 'impressions'];

/** A target's engagements from its latest values; null when it reports none of the engagement metrics. */
export function engagementsOf(latest: Partial<Record<string, number>>): number | null {
  const known = ENGAGEMENT_METRICS.filter((m) => typeof latest[m] === 'number');
  return known.length === 0 ? null : known.reduce((sum, m) => sum + latest[m]!, 0);
}

/** A target's rate base; null when neither reach nor impressions is known or it is 0. */
export function rateBaseOf(latest: Partial<Record<string, number>>): number | null {
  for (const m of RATE_BASES) if (typeof latest[m] === 'number') return latest[m]! > 0 ? latest[m]! : null;
  return null;
}

/** Engagements ÷ base, rounded to 4 decimals (0.0375 is 3.75 %); null without a base. */
export function rate(numerator: number | null, denominator: number | null): number | null {
  if (numerator === null || denominator === null || denominator <= 0) return null;
  return Math.round((numerator / denominator) * 10_000) / 10_000;
}
