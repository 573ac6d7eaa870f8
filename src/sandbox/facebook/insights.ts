// What a Page post's numbers look like (docs/platforms/facebook.md "Metrics and inbox"): the counts a post node
// expands (`reactions.summary(total_count)`, `comments.summary(total_count)`, `shares`) and the post's lifetime
// insights (`/{post-id}/insights`, permission read_insights). Both grow with the simulator's clock
// (src/sandbox/framework/metrics-growth.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { growMetrics, type GrownMetrics } from '../framework/metrics-growth.ts';
import { invalidParameter } from './graph-reply.ts';
import { pageGate, type NodePath } from './page-gate.ts';
import { KIND, type FbPost, type FbSim } from './state.ts';

function grown(p: FbPost, now: number): GrownMetrics {
  return growMetrics(p.id, p.createdAt, now, { audience: 1200, reachRate: 0.6, clickRate: 0.02 });
}

/**
 * The post fields that expand to counts. ⚠ unverified details: `shares` is left out while nobody has shared the
 * post (as Graph does), and the summary's extra members are the ones Graph shows to a Page token.
 */
export function countFields(p: FbPost, fields: string[], now: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const asks = (name: string) => fields.some((f) => f === name || f.startsWith(`${name}.`));
  const m = grown(p, now);
  if (asks('reactions')) out.reactions = { data: [], summary: { total_count: m.likes, viewer_reaction: 'NONE' } };
  if (asks('comments'))
    out.comments = { data: [], summary: { order: 'ranked', total_count: m.comments, can_comment: true } };
  if (asks('shares') && m.shares > 0) out.shares = { count: m.shares };
  return out;
}

/** Post insights the simulator answers; the legacy impressions metrics were replaced by media views (v23). */
const METRICS: Record<string, (m: GrownMetrics) => unknown> = {
  post_media_view: (m) => m.impressions,
  post_total_media_view_unique: (m) => m.reach,
  post_clicks: (m) => m.clicks,
  post_reactions_by_type_total: (m) => ({ like: m.likes - Math.floor(m.likes / 5), love: Math.floor(m.likes / 5) }),
};

export function registerFbInsights(app: FastifyInstance, sim: FbSim): void {
  app.get<{ Params: NodePath }>('/:version/:id/insights', (request, reply) => postInsights(sim, request, reply));
}

async function postInsights(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const { version, id } = request.params;
  const call = await pageGate(sim, request, reply, {
    version,
    pageId: id.split('_')[0]!,
    operation: 'read_metrics',
    scope: 'read_insights',
  });
  if (!call) return reply;
  const post = id.includes('_') ? await sim.kit.store.get<FbPost>(KIND.post, id) : undefined;
  if (!post || post.deleted || post.pageId !== call.page.id)
    return invalidParameter(reply, `Object with ID '${id}' does not exist or does not support insights.`);
  const wanted = String(call.fields.metric ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = wanted.find((name) => !(name in METRICS));
  if (wanted.length === 0 || unknown)
    return invalidParameter(reply, `The value must be a valid insights metric: ${unknown ?? 'metric is required'}`);
  const m = grown(post, sim.kit.now());
  return {
    data: wanted.map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: METRICS[name]!(m) }],
      title: name,
      id: `${post.id}/insights/${name}/lifetime`,
    })),
  };
}
