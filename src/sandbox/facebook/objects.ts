// Reading what a Page holds (docs/platforms/facebook.md "Calls"): the Page's feed with cursor paging (the adapter's
// reconciliation look-up), one object by id (the Page or its user, a post, a photo, a video's processing status),
// deleting a post, and a small web page per post for sandbox URLs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { applyGraphFault, queryFields } from '../meta/graph.ts';
import { GRAPH_VERSION, pageOf } from './auth.ts';
import { checkToken, graphError, invalidParameter } from './graph-reply.ts';
import { pageGate, type NodePath, type PagePath } from './page-gate.ts';
import type { FbSim } from './state.ts';
import { baseOf, fieldList, graphTime, postJson, videoJson } from './views.ts';

interface PostWebPath {
  pageId: string;
  postId: string;
}

export function registerFbObjects(app: FastifyInstance, sim: FbSim): void {
  app.get<{ Params: PagePath }>('/:version/:pageId/feed', (request, reply) => readFeed(sim, request, reply));
  app.get<{ Params: NodePath }>('/:version/:id', (request, reply) => readObject(sim, request, reply));
  app.delete<{ Params: NodePath }>('/:version/:id', (request, reply) => deletePost(sim, request, reply));
  // Sandbox URLs of posts point here (real ones are https://www.facebook.com/<page-id>/posts/<post-id>).
  app.get<{ Params: PostWebPath }>('/web/:pageId/posts/:postId', (request, reply) => webPage(sim, request, reply));
}

const graphTimeParam = (v: unknown) =>
  v === undefined ? undefined : /^\d+$/.test(String(v)) ? Number(v) * 1000 : Date.parse(String(v));

async function readFeed(sim: FbSim, request: FastifyRequest<{ Params: PagePath }>, reply: FastifyReply) {
  const call = pageGate(sim, request, reply, {
    ...request.params,
    operation: 'lookup',
    scope: 'pages_read_engagement',
  });
  if (!call) return reply;
  const q = call.fields;
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return invalidParameter(reply, 'limit must be an integer from 1 to 100.');
  const since = graphTimeParam(q.since);
  const until = graphTimeParam(q.until);
  if (Number.isNaN(since) || Number.isNaN(until))
    return invalidParameter(reply, 'since and until must be Unix times or ISO 8601 dates.');
  const all = [...sim.state.posts.values()]
    .filter(
      (p) =>
        p.pageId === call.page.id &&
        !p.deleted &&
        (since === undefined || p.createdAt >= since) &&
        (until === undefined || p.createdAt <= until),
    )
    .sort((a, b) => b.createdAt - a.createdAt || (b.id > a.id ? 1 : -1));
  const after = typeof q.after === 'string' ? Number(Buffer.from(q.after, 'base64url').toString()) || 0 : 0;
  const page = all.slice(after, after + limit);
  const fields = fieldList(q);
  const base = baseOf(request, sim.prefix());
  const paging: Record<string, unknown> = {
    cursors: {
      before: Buffer.from(String(after)).toString('base64url'),
      after: Buffer.from(String(after + page.length)).toString('base64url'),
    },
  };
  if (after + limit < all.length) {
    const next = new URL(`${base}${request.url.split('?')[0]}`);
    for (const [k, v] of Object.entries(queryFields(request)))
      if (k !== 'access_token' && k !== 'after') next.searchParams.set(k, String(v));
    next.searchParams.set('after', Buffer.from(String(after + limit)).toString('base64url'));
    paging.next = next.toString();
  }
  return { data: page.map((p) => postJson(p, fields, base)), paging };
}

/** One object by id: `me` (the Page or the user behind the token), a Page, or this Page's post, photo or video. */
async function readObject(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const { kit, state } = sim;
  const { version, id } = request.params;
  if (!GRAPH_VERSION.test(version)) return sim.errorReply(reply, 404, `Unknown path components: /${version}`);
  const fields = fieldList(queryFields(request));
  const claims = checkToken(kit, state, request, reply, ['fb_page', 'fb_user']);
  if (!claims) return reply;
  if (id === 'me') {
    if (claims.typ === 'fb_page') {
      const page = pageOf(state, claims);
      return page
        ? { id: page.id, name: page.name, username: page.username }
        : sim.errorReply(reply, 404, 'Page not found');
    }
    return { id: claims.sub, name: String(claims.username).replace(/_/g, ' ') };
  }
  const owner = claims.typ === 'fb_page' ? claims.sub : undefined;
  // Reads of posts, photos and videos (reconciliation, processing status) take the `lookup` faults.
  if (
    owner &&
    applyGraphFault(kit, kit.faults.take('lookup', owner), request, reply, { businessId: owner, type: 'pages' }) ===
      'sent'
  )
    return reply;
  const page = state.pages.get(id);
  if (page)
    return {
      id: page.id,
      name: page.name,
      username: page.username,
      link: `${baseOf(request, sim.prefix())}/web/${page.id}`,
    };
  const post = state.posts.get(id);
  if (post && !post.deleted && post.pageId === owner) return postJson(post, fields, baseOf(request, sim.prefix()));
  const photo = state.photos.get(id);
  if (photo && photo.pageId === owner)
    return {
      id: photo.id,
      created_time: graphTime(photo.createdAt),
      ...(photo.altText ? { alt_text_custom: photo.altText } : {}),
      ...(photo.postId ? { page_story_id: photo.postId } : {}),
    };
  const video = state.videos.get(id);
  if (video && video.pageId === owner) return videoJson(kit, video, fields, baseOf(request, sim.prefix()));
  return graphError(reply, 400, {
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });
}

async function deletePost({ kit, state }: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const claims = checkToken(kit, state, request, reply, ['fb_page']);
  if (!claims) return reply;
  const id = request.params.id;
  const post = state.posts.get(id);
  if (!post || post.deleted || post.pageId !== claims.sub)
    return graphError(reply, 400, {
      code: 100,
      subcode: 33,
      type: 'GraphMethodException',
      message: `Unsupported delete request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    });
  post.deleted = true;
  return { success: true };
}

async function webPage({ state }: FbSim, request: FastifyRequest<{ Params: PostWebPath }>, reply: FastifyReply) {
  const { pageId, postId } = request.params;
  const post = state.posts.get(`${pageId}_${postId}`);
  if (!post || post.deleted)
    return reply
      .code(404)
      .type('text/plain')
      .send('This post does not exist in the sandbox (it may have been deleted, or the sandbox restarted).');
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const name = state.pages.get(pageId)?.name ?? pageId;
  return reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><meta charset="utf-8"><title>Sandbox Facebook post</title><p><b>${esc(name)}</b> (Herald sandbox)</p><p>${esc(post.message)}</p>${post.link ? `<p><a href="${esc(post.link)}">${esc(post.link)}</a></p>` : ''}<p>${post.photoIds.length} photos${post.videoId ? ' · 1 video' : ''} · ${new Date(post.createdAt).toISOString()}</p>`,
    );
}
