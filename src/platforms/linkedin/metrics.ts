// A LinkedIn post's metrics (docs/platforms/linkedin.md "Metrics and inbox"). The post's author decides the API:
// an organization's post has lifetime share statistics (impressions, unique impressions, clicks, likes, comments,
// shares in one call); a member's own post has member post analytics, one metric per call and no clicks, and only
// for apps approved for r_member_postAnalytics — without it every metric is unavailable, never guessed.
import type { PostMetrics } from '../types.ts';
import { isPlatformError } from '../types.ts';
import * as client from './client.ts';

const MEMBER_METRIC: Record<client.MemberQueryType, keyof PostMetrics> = {
  IMPRESSION: 'impressions',
  MEMBERS_REACHED: 'reach',
  RESHARE: 'shares',
  REACTION: 'likes',
  COMMENT: 'comments',
};

export async function linkedinMetrics(api: client.LiApi, urn: string): Promise<PostMetrics> {
  const { author } = await client.getPost(api, urn);
  if (author.startsWith('urn:li:organization:')) {
    const s = await client.shareStatistics(api, author, urn);
    if (!s) return {};
    const out: PostMetrics = {};
    if (s.impressionCount !== undefined) out.impressions = s.impressionCount;
    if (s.uniqueImpressionsCount !== undefined) out.reach = s.uniqueImpressionsCount;
    if (s.clickCount !== undefined) out.clicks = s.clickCount;
    if (s.likeCount !== undefined) out.likes = s.likeCount;
    if (s.commentCount !== undefined) out.comments = s.commentCount;
    if (s.shareCount !== undefined) out.shares = s.shareCount;
    return out;
  }
  const out: PostMetrics = {};
  for (const queryType of client.MEMBER_QUERY_TYPES) {
    try {
      const value = await client.memberPostMetric(api, urn, queryType);
      if (value !== undefined) out[MEMBER_METRIC[queryType]] = value;
    } catch (error) {
      // 403: the app is not approved for member post analytics (or the token lacks the scope).
      if (isPlatformError(error) && error.platformStatus === 403 && error.kind === 'permanent') return {};
      throw error;
    }
  }
  return out;
}
