// Numbers as the analytics pages show them: a missing figure is a dash with its reason, never a 0 (docs/analytics.md
// "Unavailable, never estimated").
import type { components } from '@herald/client';

export type Totals = components['schemas']['AnalyticsTotals'];
export type Summary = components['schemas']['AnalyticsSummary'];
export type MetricName = keyof Totals['metrics'];
export type Delta = Summary['deltas']['posts'];

export const METRICS: MetricName[] = [
  'impressions',
  'reach',
  'likes',
  'comments',
  'shares',
  'quotes',
  'saves',
  'clicks',
  'video_views',
];

export const METRIC_LABELS: Record<MetricName, string> = {
  impressions: 'Impressions',
  reach: 'Reach',
  likes: 'Likes',
  comments: 'Comments',
  shares: 'Shares',
  quotes: 'Quotes',
  saves: 'Saves',
  clicks: 'Link clicks',
  video_views: 'Video views',
};

const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 2 });

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : whole.format(value);
}

/** An engagement rate as the API gives it (0.0412 is 4.12 %). */
export function rate(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : percent.format(value);
}

/** A delta in words: the change and its percent, or why there is none. */
export function delta(d: Delta, asRate = false): string {
  if (d.change === null) return 'no comparison';
  const sign = d.change > 0 ? '+' : d.change < 0 ? '−' : '±';
  const change = asRate
    ? `${sign}${(Math.abs(d.change) * 100).toFixed(2)} points`
    : `${sign}${whole.format(Math.abs(d.change))}`;
  return d.percent === null ? change : `${change} (${sign}${Math.abs(d.percent).toFixed(1)} %)`;
}

export function deltaClass(d: Delta): string {
  if (d.change === null || d.change === 0) return 'delta';
  return d.change > 0 ? 'delta up' : 'delta down';
}

export function shortDate(value: string): string {
  return new Date(value).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}
