// Instagram reads (docs/platforms/instagram.md "Calls"): the account (`/me`), its media and stories edges, one node (a
// container's status or a published media), media insights, the refused delete of Instagram Login, and a web
// page per post for sandbox URLs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { graphError } from '../meta/graph.ts';
import {
  fieldsOf,
  type GraphAccountPath,
  type GraphMediaPath,
  type GraphNodePath,
  type GraphPath,
  isoTime,
  pick,
} from '../meta/publishing.ts';
import { igScopes } from './auth.ts';
import { beginIgCall, callToken, ownIgAccount, type IgSim } from './graph-call.ts';
import { DAY_MS, type IgMedia, type IgUser } from './state.ts';

const STATUS_TEXT: Record<string, string> = {
  IN_PROGRESS: 'In Progress: Media is still being processed.',
  FINISHED: 'Finished: Media has been uploaded and it is ready to be published.',
  PUBLISHED: 'Published: Media has been successfully published.',
  EXPIRED: 'Expired: Media was not published within 24 hours.',
};

// Media insights (docs/platforms/instagram.md "Metrics and inbox"): `impressions` is gone since v22 and is refused as
// Graph refuses it.
const IG_METRICS = ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions'];

interface WebPath {
  kind: string;
  shortcode: string;
}

export function mediaJson(m: IgMedia, user: IgUser | undefined): Record<string, unknown> {
  return {
    id: m.id,
    caption: m.caption || undefined,
    media_type: m.mediaType,
    media_product_type: m.productType,
    permalink: `https://www.instagram.com/${m.productType === 'REELS' ? 'reel' : 'p'}/${m.shortcode}/`,
    shortcode: m.shortcode,
    timestamp: isoTime(m.timestamp),
    username: user?.username,
    like_count: 0,
    comments_count: m.comments.length,
  };
}

export function registerIgMedia(app: FastifyInstance, sim: IgSim): void {
  app.get<{ Params: GraphPath }>('/:version/me', (request, reply) => readMe(sim, request, reply));
  app.get<{ Params: GraphAccountPath }>('/:version/:userId/media', (request, reply) => listMedia(sim, request, reply));
  app.get<{ Params: GraphAccountPath }>('/:version/:userId/stories', (request, reply) =>
    listStories(sim, request, reply),
  );
  app.get<{ Params: GraphNodePath }>('/:version/:id', (request, reply) => readNode(sim, request, reply));
  app.get<{ Params: GraphMediaPath }>('/:version/:mediaId/insights', (request, reply) =>
    readInsights(sim, request, reply),
  );
  app.delete<{ Params: GraphNodePath }>('/:version/:id', (request, reply) => refuseDelete(sim, request, reply));
  // Instagram permalinks end with a slash; both spellings are served.
  app.get<{ Params: WebPath }>('/web/:kind/:shortcode', (request, reply) => webPage(sim, request, reply));
  app.get<{ Params: WebPath }>('/web/:kind/:shortcode/', (request, reply) => webPage(sim, request, reply));
}

async function readMe(sim: IgSim, request: FastifyRequest<{ Params: GraphPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const all = {
    id: ctx.user.appScopedId,
    user_id: ctx.user.id,
    username: ctx.user.username,
    name: ctx.user.name,
    account_type: 'BUSINESS',
    media_count: [...sim.state.media.values()].filter((m) => m.owner === ctx.user.id && !m.deleted).length,
  };
  return pick(all, fieldsOf(ctx.params, ['user_id', 'username']));
}

async function listMedia(sim: IgSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownIgAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['id']);
  const limit = Math.min(100, Math.max(1, Number(ctx.params.limit) || 25));
  const since = ctx.params.since && /^\d+$/.test(ctx.params.since) ? Number(ctx.params.since) * 1000 : 0;
  const all = [...sim.state.media.values()]
    .filter((m) => m.owner === ctx.user.id && !m.deleted && m.productType !== 'STORY' && m.timestamp >= since)
    .sort((a, b) => b.timestamp - a.timestamp || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const start = ctx.params.after
    ? Math.max(0, all.findIndex((m) => m.id === Buffer.from(ctx.params.after!, 'base64url').toString()) + 1)
    : 0;
  const page = all.slice(start, start + limit);
  const body: Record<string, unknown> = { data: page.map((m) => pick(mediaJson(m, ctx.user), fields)) };
  if (page.length > 0) {
    const cursors = {
      before: Buffer.from(page[0]!.id).toString('base64url'),
      after: Buffer.from(page.at(-1)!.id).toString('base64url'),
    };
    body.paging = { cursors, ...(start + limit < all.length ? { next: `?after=${cursors.after}` } : {}) };
  }
  return body;
}

async function listStories(sim: IgSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownIgAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['id']);
  // Stories stay listed for 24 hours.
  const live = [...sim.state.media.values()]
    .filter(
      (m) => m.owner === ctx.user.id && !m.deleted && m.productType === 'STORY' && m.timestamp > sim.kit.now() - DAY_MS,
    )
    .sort((a, b) => b.timestamp - a.timestamp);
  return { data: live.map((m) => pick(mediaJson(m, ctx.user), fields)) };
}

/** One node by id: a container (its status, polled before publishing), a published media, or the account. */
async function readNode(sim: IgSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const { state } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const id = request.params.id;
  const container = state.containers.get(id);
  if (container && container.owner === ctx.user.id) {
    const status = state.containers.status(container);
    return pick(
      { id, status_code: status, status: status === 'ERROR' ? container.failure : STATUS_TEXT[status] },
      fieldsOf(ctx.params, ['id']),
    );
  }
  const media = state.media.get(id);
  if (media && media.owner === ctx.user.id && !media.deleted)
    return pick(mediaJson(media, ctx.user), fieldsOf(ctx.params, ['id']));
  if (id === ctx.user.id)
    return pick({ id, username: ctx.user.username, name: ctx.user.name }, fieldsOf(ctx.params, ['id']));
  return graphError(reply, 400, {
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'GraphMethodException',
    code: 100,
    subcode: 33,
  });
}

async function readInsights(sim: IgSim, request: FastifyRequest<{ Params: GraphMediaPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!igScopes(sim.kit, callToken(request, ctx.params)).includes('instagram_business_manage_insights'))
    return graphError(reply, 403, {
      message: 'Application does not have permission for this action (instagram_business_manage_insights).',
      code: 10,
    });
  const media = sim.state.media.get(request.params.mediaId);
  if (!media || media.deleted || media.owner !== ctx.user.id)
    return graphError(reply, 400, {
      message: 'Unsupported get request. The media does not exist.',
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  const wanted = (ctx.params.metric ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (wanted.length === 0) return graphError(reply, 400, { message: 'The parameter metric is required.', code: 100 });
  const unknown = wanted.find((m) => !IG_METRICS.includes(m));
  if (unknown)
    return graphError(reply, 400, {
      message: `(#100) metric[0] must be one of the following values: ${IG_METRICS.join(', ')}`,
      code: 100,
      userMessage: `${unknown} is not supported.`,
    });
  const value = (m: string) =>
    m === 'comments' ? media.comments.length : m === 'total_interactions' ? media.comments.length : 0;
  return {
    data: wanted.map((m) => ({
      name: m,
      period: 'lifetime',
      values: [{ value: value(m) }],
      title: m,
      id: `${media.id}/insights/${m}/lifetime`,
    })),
  };
}

// Instagram Login tokens cannot delete media (Meta allows it only under Facebook Login). ⚠ unverified answer shape.
async function refuseDelete(sim: IgSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  return graphError(reply, 400, {
    message: 'Unsupported delete request. Media can be deleted only by apps using Facebook Login for Business.',
    type: 'GraphMethodException',
    code: 100,
  });
}

async function webPage({ state }: IgSim, request: FastifyRequest<{ Params: WebPath }>, reply: FastifyReply) {
  const { shortcode } = request.params;
  const media = [...state.media.values()].find((m) => m.shortcode === shortcode.replace(/\/$/, '') && !m.deleted);
  if (!media)
    return reply
      .code(404)
      .type('text/html; charset=utf-8')
      .send("<!doctype html><title>Not found</title><p>Sorry, this page isn't available.</p>");
  const user = state.users.get(media.owner);
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><title>@${esc(user?.username ?? '')} on Instagram (sandbox)</title><article><h1>@${esc(user?.username ?? '')}</h1><p>${esc(media.caption)}</p><p>${media.items} media item(s) · ${media.productType}</p><ul>${media.comments.map((c) => `<li>@${esc(c.username)}: ${esc(c.text)}</li>`).join('')}</ul></article>`,
    );
}
