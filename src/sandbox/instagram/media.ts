// Instagram reads (docs/platforms/instagram.md "Calls"): the account (`/me`), its media and stories edges, one node (a
// container's status or a published media), media insights, the refused delete of Instagram Login, and the web
// page of each post (its sandbox URL, with the media fetched for it and the owner's own comments).
import { growMetrics } from '../framework/metrics-growth.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { containerStatus, readContainer } from '../meta/containers.ts';
import { applyGraphFault, graphError } from '../meta/graph.ts';
import { mountPath, pageMedia, registerMediaFiles } from '../meta/media-files.ts';
import {
  edgeOwner,
  fieldsOf,
  type GraphAccountPath,
  type GraphMediaPath,
  type GraphNodePath,
  type GraphPath,
  idOfShortcode,
  isoTime,
  pick,
} from '../meta/publishing.ts';
import { igScopes, igUserFor } from './auth.ts';
import { beginIgCall, callToken, ownIgAccount, type IgSim } from './graph-call.ts';
import { ensureMedia } from './publish.ts';
import { COMMENT, DAY_MS, MEDIA, type IgComment, type IgContainerData, type IgMedia } from './state.ts';

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

export function mediaJson(m: IgMedia): Record<string, unknown> {
  return {
    id: m.id,
    caption: m.caption || undefined,
    media_type: m.mediaType,
    media_product_type: m.productType,
    permalink: `https://www.instagram.com/${m.productType === 'REELS' ? 'reel' : 'p'}/${m.shortcode}/`,
    shortcode: m.shortcode,
    timestamp: isoTime(m.timestamp),
    username: m.username,
    like_count: 0,
    comments_count: m.commentCount,
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
  registerMediaFiles(app, sim.kit.store, (reply) => reply.code(404).send());
}

/**
 * One page of the account's live media of one edge, newest first from the media the `after` cursor names, from
 * `since` (ms) on, as Graph answers it (cursors, and `next` while more remain). One page (and one more, to know
 * whether there are more) is read from the store, however many media the account has.
 */
async function edgePage(
  sim: IgSim,
  owner: string,
  edge: IgMedia['edge'],
  params: { limit?: string; after?: string },
  since: number,
): Promise<{ page: IgMedia[]; paging?: Record<string, unknown> }> {
  const limit = Math.min(100, Math.max(1, Number(params.limit) || 25));
  const listed = await sim.kit.store.list<IgMedia>(MEDIA, {
    owner: edgeOwner(owner, edge),
    match: { deleted: false },
    limit: limit + 1,
    beforeId: params.after ? Buffer.from(params.after, 'base64url').toString() : undefined,
  });
  const read = listed.slice(0, limit);
  const page = read.filter((m) => m.timestamp >= since);
  if (read.length === 0) return { page };
  const cursors = {
    before: Buffer.from(read[0]!.id).toString('base64url'),
    after: Buffer.from(read.at(-1)!.id).toString('base64url'),
  };
  // Newest first: the first media older than `since` ends the listing.
  const more = listed.length > limit && listed[limit]!.timestamp >= since;
  return { page, paging: { cursors, ...(more ? { next: `?after=${cursors.after}&limit=${limit}` } : {}) } };
}

async function readMe(sim: IgSim, request: FastifyRequest<{ Params: GraphPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const fields = fieldsOf(ctx.params, ['user_id', 'username']);
  const all = {
    id: ctx.user.appScopedId,
    user_id: ctx.user.id,
    username: ctx.user.username,
    name: ctx.user.name,
    account_type: 'BUSINESS',
    // Counted only when asked for: it reads every media of the account.
    media_count: fields.includes('media_count')
      ? (
          await sim.kit.store.list<IgMedia>(MEDIA, {
            owner: edgeOwner(ctx.user.id, 'media'),
            match: { deleted: false },
          })
        ).length
      : undefined,
  };
  return pick(all, fields);
}

async function listMedia(sim: IgSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownIgAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['id']);
  const since = ctx.params.since && /^\d+$/.test(ctx.params.since) ? Number(ctx.params.since) * 1000 : 0;
  const { page, paging } = await edgePage(sim, ctx.user.id, 'media', ctx.params, since);
  return { data: page.map((m) => pick(mediaJson(m), fields)), ...(paging ? { paging } : {}) };
}

async function listStories(sim: IgSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownIgAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['id']);
  // Stories stay listed for 24 hours; the edge pages like the media edge. ⚠ unverified: its page size.
  const { page, paging } = await edgePage(sim, ctx.user.id, 'stories', ctx.params, sim.kit.now() - DAY_MS + 1);
  return { data: page.map((m) => pick(mediaJson(m), fields)), ...(paging ? { paging } : {}) };
}

/** One node by id: a container (its status, polled before publishing), a published media, or the account. */
async function readNode(sim: IgSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const id = request.params.id;
  const [container, media] = await Promise.all([
    readContainer<IgContainerData>(sim.kit, id),
    sim.kit.store.get<IgMedia>(MEDIA, id),
  ]);
  if (container && container.owner === ctx.user.id) {
    const status = containerStatus(sim.kit, container);
    if (status === 'PUBLISHED') await ensureMedia(sim.kit, container, ctx.user.username);
    return pick(
      { id, status_code: status, status: status === 'ERROR' ? container.failure : STATUS_TEXT[status] },
      fieldsOf(ctx.params, ['id']),
    );
  }
  if (media && media.owner === ctx.user.id && !media.deleted)
    return pick(mediaJson(media), fieldsOf(ctx.params, ['id']));
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
  const fault = sim.kit.faults.take('read_metrics', ctx.user.id);
  if (applyGraphFault(sim.kit, fault, request, reply, { businessId: ctx.user.id, type: 'instagram' }) === 'sent')
    return reply;
  const media = await sim.kit.store.get<IgMedia>(MEDIA, request.params.mediaId);
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
  // Audience numbers grow with the clock (src/sandbox/framework/metrics-growth.ts); comments made through the API
  // are counted on top of the grown ones.
  const g = growMetrics(media.id, media.timestamp, sim.kit.now(), {
    audience: 1100,
    saveRate: 0.008,
    videoRate: media.productType === 'REELS' ? 0.9 : 0,
  });
  const comments = g.comments + media.commentCount;
  const values: Record<string, number> = {
    views: g.impressions,
    reach: g.reach,
    likes: g.likes,
    comments,
    shares: g.shares,
    saved: g.saves,
    total_interactions: g.likes + comments + g.shares + g.saves,
  };
  const value = (m: string) => values[m] ?? 0;
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

/** The post's page: the caption with its links, the media fetched for it, and the owner's own comments below. */
async function webPage({ kit }: IgSim, request: FastifyRequest<{ Params: WebPath }>, reply: FastifyReply) {
  const id = idOfShortcode(request.params.shortcode);
  const media = id ? await kit.store.get<IgMedia>(MEDIA, id) : undefined;
  if (!media || media.deleted) return sendMissingPost(reply, 'Instagram');
  // The owner's comments read on as the post's own words (a first comment); others' are the audience's.
  const comments = await kit.store.list<IgComment>(COMMENT, {
    owner: media.id,
    match: { username: media.username },
    ascending: true,
  });
  return sendPostPage(reply, {
    platform: 'Instagram',
    accent: '#E1306C',
    noun: 'Post',
    account: { name: igUserFor(media.username).name, handle: `@${media.username}` },
    parts: [
      { text: media.caption, media: pageMedia(mountPath(request), media.media), createdAt: media.timestamp },
      ...comments.map((c) => ({ text: c.text, media: [], createdAt: c.timestamp })),
    ],
  });
}
