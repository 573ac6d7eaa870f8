// A post's metrics fields as X answers them (docs/platforms/x.md "Metrics and inbox"): `public_metrics` for
// anyone, `non_public_metrics` for the author only and only for a post at most 30 days old. The counts grow with
// the simulator's clock (src/sandbox/framework/metrics-growth.ts).
import { growMetrics } from '../framework/metrics-growth.ts';
import type { XTweet } from './state.ts';

const PRIVATE_METRICS_MS = 30 * 86_400_000;

export function metricsFields(t: XTweet, fields: string[], now: number, viewer?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!fields.includes('public_metrics') && !fields.includes('non_public_metrics')) return out;
  const m = growMetrics(t.id, t.createdAt, now, { audience: 1500 });
  if (fields.includes('public_metrics'))
    out.public_metrics = {
      retweet_count: m.shares,
      reply_count: m.comments,
      like_count: m.likes,
      quote_count: m.quotes,
      bookmark_count: m.saves,
      impression_count: m.impressions,
    };
  if (fields.includes('non_public_metrics') && viewer === t.authorId && now - t.createdAt <= PRIVATE_METRICS_MS)
    out.non_public_metrics = {
      impression_count: m.impressions,
      url_link_clicks: m.clicks,
      user_profile_clicks: Math.floor(m.clicks / 3),
    };
  return out;
}
