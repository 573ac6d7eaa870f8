// Threads reads and removal (docs/platforms/threads.md "Calls"): the account (`/me`), its threads and replies edges
// with cursor paging, a post's replies, post insights, one node (a container's status or a published post), delete
// (100 per 24 h), and a web page per post for sandbox URLs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { applyGraphFault, graphError, recentTimes } from '../meta/graph.ts';
import {
  fieldsOf,
  type GraphAccountPath,
  type GraphMediaPath,
  type GraphNodePath,
  type GraphPath,
  isoTime,
  pick,
} from '../meta/publishing.ts';
import { beginThCall, hasScope, ownThAccount, type ThSim } from './graph-call.ts';
import { DAY_MS, DELETES_PER_DAY, type ThPost, type ThUser } from './state.ts';

const TH_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];

interface WebPath {
  handle: string;
  shortcode: string;
}

/** Where a listing stopped: the last item handed out. */
interface Cursor {
  timestamp: number;
  id: string;
}

export function postJson(p: ThPost, user: ThUser | undefined): Record<string, unknown> {
  return {
    id: p.id,
    media_product_type: 'THREADS',
    media_type: p.mediaType,
    text: p.text || undefined,
    permalink: `https://www.threads.net/@${user?.username ?? 'unknown'}/post/${p.shortcode}`,
    shortcode: p.shortcode,
    timestamp: isoTime(p.timestamp),
    username: user?.username,
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
}

async function readMe(sim: ThSim, request: FastifyRequest<{ Params: GraphPath }>, reply: FastifyReply) {
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  return pick(
    { id: ctx.user.id, username: ctx.user.username, name: ctx.user.name, threads_biography: '' },
    fieldsOf(ctx.params, ['id', 'username']),
  );
}

const encodeCursor = (p: Cursor) => Buffer.from(`${p.timestamp}:${p.id}`).toString('base64url');
const decodeCursor = (text: string): Cursor | undefined => {
  const match = /^(\d{1,16}):(\d{1,30})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  return match ? { timestamp: Number(match[1]), id: match[2]! } : undefined;
};
const newerFirst = (a: Cursor, b: Cursor) =>
  b.timestamp - a.timestamp || (BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0);

/** The account's threads or replies edge; `replies` under a post id is that post's direct replies instead. */
async function listEdge(
  sim: ThSim,
  edge: 'threads' | 'replies',
  request: FastifyRequest<{ Params: GraphAccountPath }>,
  reply: FastifyReply,
) {
  const { state } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  const id = request.params.userId;
  const post = state.posts.get(id);
  if (edge === 'replies' && post && !post.deleted) {
    // A post's replies edge (GET /{threads-media-id}/replies): the direct replies to it, oldest first.
    if (!hasScope(reply, ctx.scopes, 'threads_read_replies')) return reply;
    const direct = [...state.posts.values()]
      .filter((p) => p.replyTo === post.id && !p.deleted)
      .sort((a, b) => a.timestamp - b.timestamp);
    return { data: direct.map((p) => pick(postJson(p, state.users.get(p.owner)), fieldsOf(ctx.params, ['id']))) };
  }
  if (!ownThAccount(reply, ctx.user, id)) return reply;
  if (edge === 'replies' && !hasScope(reply, ctx.scopes, 'threads_read_replies')) return reply;
  const fields = fieldsOf(ctx.params, ['id']);
  const since = /^\d+$/.test(ctx.params.since ?? '') ? Number(ctx.params.since) * 1000 : 0;
  const limit = Math.min(100, Math.max(1, Number(ctx.params.limit) || 25));
  // Cursor paging as Graph does it (paging.cursors.after, paging.next while more remain). The cursor names the
  // last item handed out, so items published meanwhile never shift a later page.
  const cursor = ctx.params.after ? decodeCursor(ctx.params.after) : undefined;
  if (ctx.params.after && !cursor)
    return graphError(reply, 400, {
      message: 'Invalid parameter',
      code: 100,
      userMessage: 'The after cursor is not valid.',
    });
  const all = [...state.posts.values()]
    .filter(
      (p) =>
        p.owner === ctx.user.id && !p.deleted && (edge === 'replies') === (p.replyTo !== null) && p.timestamp >= since,
    )
    .sort(newerFirst)
    .filter((p) => !cursor || newerFirst(cursor, p) < 0); // after the cursor in this order
  const list = all.slice(0, limit);
  const last = list.at(-1);
  const more = all.length > limit && last !== undefined;
  const after = last ? encodeCursor(last) : undefined;
  return {
    data: list.map((p) => pick(postJson(p, ctx.user), fields)),
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
  const { state } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_manage_insights')) return reply;
  const post = state.posts.get(request.params.mediaId);
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
  const replies = [...state.posts.values()].filter((p) => p.replyTo === post.id && !p.deleted).length;
  return {
    data: wanted.map((m) => ({
      name: m,
      period: 'lifetime',
      values: [{ value: m === 'replies' ? replies : 0 }],
      title: m,
      id: `${post.id}/insights/${m}/lifetime`,
    })),
  };
}

/** One node by id: a container (its status, polled before publishing) or a published post. */
async function readNode(sim: ThSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const { state } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  const id = request.params.id;
  const container = state.containers.get(id);
  if (container && container.owner === ctx.user.id) {
    const status = state.containers.status(container);
    return pick(
      { id, status, error_message: status === 'ERROR' ? container.failure : undefined },
      fieldsOf(ctx.params, ['id']),
    );
  }
  const post = state.posts.get(id);
  if (post && !post.deleted) return pick(postJson(post, state.users.get(post.owner)), fieldsOf(ctx.params, ['id']));
  return graphError(reply, 400, {
    message: `Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'GraphMethodException',
    code: 100,
    subcode: 33,
  });
}

async function deletePost(sim: ThSim, request: FastifyRequest<{ Params: GraphNodePath }>, reply: FastifyReply) {
  const { kit, state } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_delete')) return reply;
  const applied = applyGraphFault(kit, kit.faults.take('delete_post', ctx.user.id), request, reply, {
    businessId: ctx.user.id,
    type: 'threads',
  });
  if (applied === 'sent') return reply;
  const post = state.posts.get(request.params.id);
  if (!post || post.deleted || post.owner !== ctx.user.id)
    return graphError(reply, 400, {
      message:
        'Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.',
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  const deletions = recentTimes(state.deletions, ctx.user.id, kit.now(), DAY_MS);
  if (deletions.length >= DELETES_PER_DAY)
    return graphError(reply, 400, {
      message: 'Application request limit reached',
      code: 9,
      subcode: 2207042,
      userMessage: `At most ${DELETES_PER_DAY} posts can be deleted in 24 hours.`,
    });
  post.deleted = true;
  deletions.push(kit.now());
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return { success: true, deleted_id: post.id };
}

async function webPage({ state }: ThSim, request: FastifyRequest<{ Params: WebPath }>, reply: FastifyReply) {
  const { shortcode } = request.params;
  const post = [...state.posts.values()].find((p) => p.shortcode === shortcode && !p.deleted);
  if (!post)
    return reply
      .code(404)
      .type('text/html; charset=utf-8')
      .send("<!doctype html><title>Not found</title><p>Sorry, this post isn't available.</p>");
  const user = state.users.get(post.owner);
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><title>@${esc(user?.username ?? '')} on Threads (sandbox)</title><article><h1>@${esc(user?.username ?? '')}</h1>${post.replyTo ? `<p>Replying to ${esc(post.replyTo)}</p>` : ''}<p>${esc(post.text)}</p><p>${post.items} media item(s)</p></article>`,
    );
}
