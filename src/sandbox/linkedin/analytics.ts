// Post statistics as LinkedIn serves them (docs/platforms/linkedin.md "Metrics and inbox"): a member's own posts
// through `memberCreatorPostAnalytics` (one metric per call, scope r_member_postAnalytics), an organization's posts
// through `organizationalEntityShareStatistics` (all counts at once, scope rw_organization_admin). Counts grow with
// the simulator's clock (src/sandbox/framework/metrics-growth.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { growMetrics, type GrownMetrics } from '../framework/metrics-growth.ts';
import { applyFault } from '../framework/simulator.ts';
import type { LiContext } from './gate.ts';
import { mayActAs } from './media.ts';
import { KIND, liError, type LiMember, type LiPost } from './state.ts';

// ⚠ unverified: LinkedIn publishes no figure for these reads; a member's daily window is assumed.
const READS_PER_DAY = 5000;

/** queryType → the grown count it reports. */
const MEMBER_METRICS: Record<string, keyof GrownMetrics> = {
  IMPRESSION: 'impressions',
  MEMBERS_REACHED: 'reach',
  RESHARE: 'shares',
  REACTION: 'likes',
  COMMENT: 'comments',
};

// ⚠ unverified: the name of the metric-type union member in the answer, as seen in third-party clients.
const METRIC_TYPE_KEY = 'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1';

interface MemberQuery {
  q?: string;
  entity?: string;
  queryType?: string;
  aggregation?: string;
}

interface OrgQuery {
  q?: string;
  organizationalEntity?: string;
  shares?: string;
  ugcPosts?: string;
}

export function registerLiAnalytics(app: FastifyInstance, ctx: LiContext): void {
  app.get<{ Querystring: MemberQuery }>('/rest/memberCreatorPostAnalytics', (request, reply) =>
    memberAnalytics(ctx, request, reply),
  );
  app.get<{ Querystring: OrgQuery }>('/rest/organizationalEntityShareStatistics', (request, reply) =>
    shareStatistics(ctx, request, reply),
  );
}

/** The daily window and the `read_metrics` faults; true when the answer already went out. */
function throttled(
  ctx: LiContext,
  member: LiMember,
  errors: Parameters<typeof applyFault>[1],
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { kit } = ctx;
  const day = new Date(kit.now()).toISOString().slice(0, 10);
  if (!kit.windows.hit(`analytics:${member.id}:${day}`, kit.limit(READS_PER_DAY), 24 * 3600_000).allowed) {
    reply
      .code(429)
      .send(liError(429, 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.'));
    return true;
  }
  const fault = kit.faults.take('read_metrics', member.id);
  if (fault?.fault === 'rate_limited') {
    // As create_post: the injected fault carries Retry-After so tests need not wait for midnight UTC.
    reply
      .code(429)
      .header('retry-after', String(fault.retryAfterSeconds ?? 2))
      .send(liError(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.'));
    return true;
  }
  return applyFault(kit, errors, fault, request, reply, 'ietf') === 'sent';
}

function grown(ctx: LiContext, post: LiPost): GrownMetrics {
  return growMetrics(post.urn, post.createdAt, ctx.kit.now(), { audience: 900, clickRate: 0.02 });
}

async function memberAnalytics(
  ctx: LiContext,
  request: FastifyRequest<{ Querystring: MemberQuery }>,
  reply: FastifyReply,
) {
  const g = await ctx.gate(request, reply, ['r_member_postAnalytics']);
  if (!g) return reply;
  if (throttled(ctx, g.member, g.errors, request, reply)) return reply;
  const q = request.query;
  const entity = /^\((share|ugcPost):(urn:li:(?:share|ugcPost):\d+)\)$/.exec(q.entity ?? '');
  const metric = MEMBER_METRICS[q.queryType ?? ''];
  if (q.q !== 'entity' || !entity || !metric || (q.aggregation ?? 'TOTAL') !== 'TOTAL')
    return reply.code(400).send(
      liError(400, 'q=entity with entity=(share:<urn>), a queryType and aggregation=TOTAL are required', {
        code: 'ILLEGAL_ARGUMENT',
      }),
    );
  const post = await ctx.kit.store.get<LiPost>(KIND.post, entity[2]!);
  if (!post || post.deleted) return reply.code(404).send(liError(404, 'Not Found', { serviceErrorCode: 0 }));
  if (post.author !== `urn:li:person:${g.member.id}`)
    return reply.code(403).send(liError(403, 'Not enough permissions to access this post', { code: 'ACCESS_DENIED' }));
  return {
    paging: { start: 0, count: 10, links: [] },
    elements: [{ count: grown(ctx, post)[metric], metricType: { [METRIC_TYPE_KEY]: q.queryType } }],
  };
}

async function shareStatistics(
  ctx: LiContext,
  request: FastifyRequest<{ Querystring: OrgQuery }>,
  reply: FastifyReply,
) {
  const g = await ctx.gate(request, reply, ['rw_organization_admin']);
  if (!g) return reply;
  if (throttled(ctx, g.member, g.errors, request, reply)) return reply;
  const q = request.query;
  const org = q.organizationalEntity ?? '';
  const list = /^List\((.*)\)$/.exec(q.shares ?? q.ugcPosts ?? '');
  if (q.q !== 'organizationalEntity' || !/^urn:li:organization:\d+$/.test(org) || !list)
    return reply.code(400).send(
      liError(400, 'q=organizationalEntity with organizationalEntity and shares=List(...) are required', {
        code: 'ILLEGAL_ARGUMENT',
      }),
    );
  if (!mayActAs(g.member, org))
    return reply
      .code(403)
      .send(liError(403, 'Not enough permissions to access this organization', { code: 'ACCESS_DENIED' }));
  const urns = list[1]!.split(',').filter(Boolean);
  const posts = await Promise.all(urns.map((urn) => ctx.kit.store.get<LiPost>(KIND.post, urn)));
  // Lifetime statistics (no timeIntervals): one element per share of this organization; others are left out.
  const elements = posts
    .filter((p): p is LiPost => p !== undefined && !p.deleted && p.author === org)
    .map((post) => {
      const m = grown(ctx, post);
      return {
        organizationalEntity: org,
        [post.urn.startsWith('urn:li:ugcPost:') ? 'ugcPost' : 'share']: post.urn,
        totalShareStatistics: {
          impressionCount: m.impressions,
          uniqueImpressionsCount: m.reach,
          clickCount: m.clicks,
          likeCount: m.likes,
          commentCount: m.comments,
          shareCount: m.shares,
          engagement: m.impressions > 0 ? (m.clicks + m.likes + m.comments + m.shares) / m.impressions : 0,
        },
      };
    });
  return { paging: { start: 0, count: 10, links: [] }, elements };
}
