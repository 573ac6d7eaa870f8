// Threads reads and removal (docs/platforms/threads.md "Calls"): the account (`/me`), its threads and replies edges
// with cursor paging, a post's replies, post insights, one node (a container's status or a published post), delete
// (100 per 24 h), and the web page of each post (its sandbox URL: the thread's parts with their media).
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
import { takeQuota } from '../meta/quotas.ts';
import { thUserFor } from './auth.ts';
import { beginThCall, hasScope, ownThAccount, type ThSim } from './graph-call.ts';
import { ensurePost, QUOTAS } from './publish.ts';
import {
  DELETES_PER_DAY,
  POST,
  REPLY_OF,
  THREAD_PART,
  threadKey,
  type ThContainerData,
  type ThPost,
  type ThReplyRef,
} from './state.ts';

const TH_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];

interface WebPath {
  handle: string;
  shortcode: string;
}

export function postJson(p: ThPost): Record<string, unknown> {
  return {
    id: p.id,
    media_product_type: 'THREADS',
    media_type: p.mediaType,
    text: p.text || undefined,
    permalink: `https://www.threads.net/@${p.username}/post/${p.shortcode}`,
    shortcode: p.shortcode,
    timestamp: isoTime(p.timestamp),
    username: p.username,
    is_reply: p.replyTo !== null,
    replied_to: p.replyTo ? { id: p.replyTo } : undefined,
    root_post: p.root ? { id: p.root } : undefined,
    reply_audience: p.replyControl.toUpperCase(),
  };
}

export function registerThreadsPosts(app: FastifyInstance, sim: ThSim): void {
  app.get<{ Params: GraphPath }>('/:version/me', (request, reply) => readMe(sim, request, reply));
  app.get<{ Params: GraphAccountPath }>('/:version/:userId/threads', (request, reply) =>
    listEdge(sim, 'threads', request, reply),
  );
  app.get<{ Params: GraphAccountPath }>('/:version/:userId/replies', (request, reply) =>
    listEdge(sim, 'replies', request, reply),
  );
  app.get<{ Params: GraphMediaPath }>('/:version/:mediaId/insights', (request, reply) =>
    readInsights(sim, request, reply),
  );
  app.get<{ Params: GraphNodePath }>('/:version/:id', (request, reply) => readNode(sim, request, reply));
  app.delete<{ Params: GraphNodePath }>('/:version/:id', (request, reply) => deletePost(sim, request, reply));
  app.get<{ Params: WebPath }>('/web/:handle/post/:shortcode', (request, reply) => webPage(sim, request, reply));
  registerMediaFiles(app, sim.kit.store, (reply) => reply.code(404).send());
}

/** The live posts a list of references names, in its order. */
async function postsOf(sim: ThSim, refs: ThReplyRef[]): Promise<ThPost[]> {
  const posts = await Promise.all(refs.map((r) => sim.kit.store.get<ThPost>(POST, r.id)));
  return posts.filter((p): p is ThPost => p !== undefined && !p.deleted);
}

/** The live direct replies to a post (any account's), oldest first: that post's own list, not every post's. */
const repliesTo = async (sim: ThSim, id: string) =>
  postsOf(sim, await sim.kit.store.list<ThReplyRef>(REPLY_OF, { owner: id, ascending: true }));

async function readMe(sim: ThSim, request: FastifyRequest<{ Params: GraphPath }>, reply: FastifyReply) {
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  return pick(
    { id: ctx.user.id, username: ctx.user.username, name: ctx.user.name, threads_biography: '' },
    fieldsOf(ctx.params, ['id', 'username']),
  );
}

/** A cursor names the last post a page handed out. */
const encodeCursor = (p: ThPost) => Buffer.from(p.id).toString('base64url');
const decodeCursor = (text: string): string | undefined => {
  const id = Buffer.from(text, 'base64url').toString('utf8');
  return /^\d{1,30}$/.test(id) ? id : undefined;
};

/** The account's threads or replies edge; `replies` under a post id is that post's direct replies instead. */
async function listEdge(
  sim: ThSim,
  edge: 'threads' | 'replies',
  request: FastifyRequest<{ Params: GraphAccountPath }>,
  reply: FastifyReply,
) {
  const { kit } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  const id = request.params.userId;
  const post = edge === 'replies' && /^\d+$/.test(id) ? await kit.store.get<ThPost>(POST, id) : undefined;
  if (post && !post.deleted) {
    // A post's replies edge (GET /{threads-media-id}/replies): the direct replies to it, oldest first.
    if (!hasScope(reply, ctx.scopes, 'threads_read_replies')) return reply;
    const direct = await repliesTo(sim, post.id);
    return { data: direct.map((p) => pick(postJson(p), fieldsOf(ctx.params, ['id']))) };
  }
  if (!ownThAccount(reply, ctx.user, id)) return reply;
  if (edge === 'replies' && !hasScope(reply, ctx.scopes, 'threads_read_replies')) return reply;
  const fields = fieldsOf(ctx.params, ['id']);
  const since = /^\d+$/.test(ctx.params.since ?? '') ? Number(ctx.params.since) * 1000 : 0;
  const limit = Math.min(100, Math.max(1, Number(ctx.params.limit) || 25));
  // Cursor paging as Graph does it (paging.cursors.after, paging.next while more remain). The cursor names the
  // last item handed out, so items published meanwhile never shift a later page, and a page reads one page (and one
  // more, to know whether there are more) of the store, newest first.
  const cursor = ctx.params.after ? decodeCursor(ctx.params.after) : undefined;
  if (ctx.params.after && !cursor)
    return graphError(reply, 400, {
      message: 'Invalid parameter',
      code: 100,
      userMessage: 'The after cursor is not valid.',
    });
  const listed = await kit.store.list<ThPost>(POST, {
    owner: edgeOwner(ctx.user.id, edge),
    match: { deleted: false },
    limit: limit + 1,
    beforeId: cursor,
  });
  const read = listed.slice(0, limit);
  const list = read.filter((p) => p.timestamp >= since);
  // Newest first: the first post older than `since` ends the listing.
  const more = listed.length > limit && listed[limit]!.timestamp >= since;
  const last = read.at(-1);
  const after = last ? encodeCursor(last) : undefined;
  return {
    data: list.map((p) => pick(postJson(p), fields)),
    ...(after
      ? {
          paging: {
            cursors: { after },
            ...(more
              ? {
                  next: `${request.protocol}://${request.host}${request.url.split('?')[0]}?after=${after}&limit=${limit}`,
                }
              : {}),
          },
        }
      : {}),
  };
}

async function readInsights(sim: ThSim, request: FastifyRequest<{ Params: GraphMediaPath }>, reply: FastifyReply) {
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_manage_insights')) return reply;
  const fault = sim.kit.faults.take('read_metrics', ctx.user.id);
  if (applyGraphFault(sim.kit, fault, request, reply, { businessId: ctx.user.id, type: 'threads' }) === 'sent')
    return reply;
  const post = await sim.kit.store.get<ThPost>(POST, request.params.mediaId);
  if (!post || post.deleted || post.owner !== ctx.user.id)
    return graphError(reply, 400, {
      message:
        'Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.',
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  const wanted = (ctx.params.metric ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const unknown = wanted.find((m) => !TH_METRICS.includes(m));
  if (wanted.length === 0 || unknown)
    return graphError(reply, 400, {
      message: `The parameter metric must list some of ${TH_METRICS.join(', ')}.`,
      code: 100,
    });
  const replies = wanted.includes('replies') ? (await repliesTo(sim, post.id)).length : 0;
  // Audience numbers grow with the clock (src/sandbox/framework/metrics-growth.ts); replies made through the API
  // are counted on top of the grown ones.
  const g = growMetrics(post.id, post.timestamp, sim.kit.now(), { audience: 700 });
  const values: Record<string, number> = {
    views: g.impressions,
    likes: g.likes,
    replies: g.comments + replies,
    reposts: g.shares,
    quotes: g.quotes,
    // Threads' `shares` are sends to others, apart from reposts.
    shares: Math.floor(g.shares / 2),
  };
  return {
    data: wanted.map((m) => ({
      name: m,
      period: 'lifetime',
      values: [{ value: values[m] ?? 0 }],
      title: m,
      id: `${post.id}/insights/${m}/lifetime`,
    })),
  };
}

/** One node by id: a container (its status, polled before publishing) or a published post. */
async function readNode(sim: ThSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  const id = request.params.id;
  const [container, post] = await Promise.all([
    readContainer<ThContainerData>(sim.kit, id),
    sim.kit.store.get<ThPost>(POST, id),
  ]);
  if (container && container.owner === ctx.user.id) {
    const status = containerStatus(sim.kit, container);
    if (status === 'PUBLISHED') await ensurePost(sim.kit, container, ctx.user.username);
    return pick(
      { id, status, error_message: status === 'ERROR' ? container.failure : undefined },
      fieldsOf(ctx.params, ['id']),
    );
  }
  if (post && !post.deleted) return pick(postJson(post), fieldsOf(ctx.params, ['id']));
  return graphError(reply, 400, {
    message: `Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'GraphMethodException',
    code: 100,
    subcode: 33,
  });
}

async function deletePost(sim: ThSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const { kit } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_delete')) return reply;
  const applied = applyGraphFault(kit, kit.faults.take('delete_post', ctx.user.id), request, reply, {
    businessId: ctx.user.id,
    type: 'threads',
  });
  if (applied === 'sent') return reply;
  const post = await kit.store.get<ThPost>(POST, request.params.id);
  if (!post || post.deleted || post.owner !== ctx.user.id)
    return graphError(reply, 400, {
      message:
        'Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.',
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  if (!(await takeQuota(kit.store, QUOTAS.deletions, ctx.user.id, kit.now(), DELETES_PER_DAY)))
    return graphError(reply, 400, {
      message: 'Application request limit reached',
      code: 9,
      subcode: 2207042,
      userMessage: `At most ${DELETES_PER_DAY} posts can be deleted in 24 hours.`,
    });
  await kit.store.update<ThPost>(POST, post.id, (p) => (p.deleted ? undefined : { ...p, deleted: true }));
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return { success: true, deleted_id: post.id };
}

/**
 * The post's page: the thread it is part of, as far as the same account wrote it (the parts above it it replied to,
 * then the replies that continue it), each part with its text, media and own link.
 */
async function webPage(sim: ThSim, request: FastifyRequest<{ Params: WebPath }>, reply: FastifyReply) {
  const { kit } = sim;
  const id = idOfShortcode(request.params.shortcode);
  const post = id ? await kit.store.get<ThPost>(POST, id) : undefined;
  if (!post || post.deleted) return sendMissingPost(reply, 'Threads');
  // The account's replies under this root: the thread's own list, however long the account's history.
  const rootId = post.root ?? post.id;
  const [root, parts] = await Promise.all([
    post.root ? kit.store.get<ThPost>(POST, post.root) : post,
    kit.store.list<ThReplyRef>(THREAD_PART, { owner: threadKey(post.owner, rootId), ascending: true }),
  ]);
  const replies = await postsOf(sim, parts);
  const byId = new Map([...(root && !root.deleted ? [root] : []), ...replies].map((p) => [p.id, p]));
  const own = (p: ThPost | undefined) => (p && p.owner === post.owner ? p : undefined);
  const above: ThPost[] = [];
  for (let p = own(byId.get(post.replyTo ?? '')); p; p = own(byId.get(p.replyTo ?? ''))) above.unshift(p);
  const below: ThPost[] = [];
  for (let p = post; ;) {
    const next = replies.find((r) => r.replyTo === p.id && r.owner === post.owner);
    if (!next) break;
    below.push((p = next));
  }
  const base = mountPath(request);
  return sendPostPage(reply, {
    platform: 'Threads',
    accent: '#000000',
    noun: 'Thread',
    account: { name: thUserFor(post.username).name, handle: `@${post.username}` },
    parts: [...above, post, ...below].map((p) => ({
      text: p.text,
      media: pageMedia(base, p.media),
      createdAt: p.timestamp,
      url: `${base}/web/@${p.username}/post/${p.shortcode}`,
    })),
  });
}
