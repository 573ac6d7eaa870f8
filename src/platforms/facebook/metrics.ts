// A Page post's metrics (docs/platforms/facebook.md "Metrics and inbox"): reactions, comments and shares from the
// post node's summaries; views (media views, which replaced impressions in v23), unique viewers and clicks from
// its lifetime insights. A Page token without read_insights still gives the counts; the insights metrics are then
// unavailable, never estimated.
import type { GraphClient } from '../meta/graph.ts';
import { definedCounts, isPlatformError, type PostMetrics } from '../types.ts';

interface PostCounts {
  reactions?: { summary?: { total_count?: number } };
  comments?: { summary?: { total_count?: number } };
  /** Absent while nobody has shared the post. */
  shares?: { count?: number };
}

interface InsightsAnswer {
  data?: Array<{ name: string; values?: Array<{ value?: unknown }> }>;
}

const INSIGHTS: Record<string, keyof PostMetrics> = {
  post_media_view: 'impressions',
  post_total_media_view_unique: 'reach',
  post_clicks: 'clicks',
};

export async function facebookMetrics(g: GraphClient, token: string, postId: string): Promise<PostMetrics> {
  const path = `/${encodeURIComponent(postId)}`;
  const counts = await g.call<PostCounts>({
    method: 'GET',
    path,
    token,
    params: { fields: 'reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares' },
  });
  // Graph leaves `shares` out of a post never shared: 0, documented. A missing reactions or comments summary is a
  // field this token cannot read: unavailable, never 0.
  const out: PostMetrics = definedCounts({
    likes: counts.reactions?.summary?.total_count,
    comments: counts.comments?.summary?.total_count,
    shares: counts.shares?.count ?? 0,
  });
  try {
    const insights = await g.call<InsightsAnswer>({
      method: 'GET',
      path: `${path}/insights`,
      token,
      params: { metric: Object.keys(INSIGHTS).join(',') },
    });
    for (const row of insights.data ?? []) {
      const value = row.values?.[0]?.value;
      const name = INSIGHTS[row.name];
      if (name && typeof value === 'number') out[name] = value;
    }
  } catch (error) {
    if (!(isPlatformError(error) && error.code === 'PLATFORM_PERMISSION_DENIED')) throw error;
  }
  return out;
}
