// Reading what a Page holds (docs/platforms/facebook.md "Calls"): the Page's feed with cursor paging (the adapter's
// reconciliation look-up), one object by id (the Page or its user, a post, a photo, a video's processing status),
// deleting a post; and for sandbox URLs, the web page of a post (shown as Facebook shows it) and its media's bytes.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendMissingPost, sendPostPage, type PagePart } from '../framework/post-page.ts';
import { sniff } from '../framework/sniff.ts';
import { applyGraphFault, queryFields } from '../meta/graph.ts';
import { GRAPH_VERSION, pageOf } from './auth.ts';
import { checkToken, graphError, invalidParameter } from './graph-reply.ts';
import { pageGate, type NodePath, type PagePath } from './page-gate.ts';
import { KIND, photoBlob, type FbPage, type FbPhoto, type FbPost, type FbSim, type FbVideo } from './state.ts';
import { ensureVideoPost } from './videos.ts';
import { baseOf, fieldList, graphTime, mediaUrl, postJson, videoJson } from './views.ts';
import { uploadedBytesHeaders } from '../framework/served-bytes.ts';

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
  // Media bytes, as Facebook's CDN serves them (real ones are https://scontent…fbcdn.net/…).
  app.get<{ Params: { id: string } }>('/web/media/:id', (request, reply) => mediaBytes(sim, request, reply));
}

const graphTimeParam = (v: unknown) =>
  v === undefined ? undefined : /^\d+$/.test(String(v)) ? Number(v) * 1000 : Date.parse(String(v));

async function readFeed(sim: FbSim, request: FastifyRequest<{ Params: PagePath }>, reply: FastifyReply) {
  const call = await pageGate(sim, request, reply, {
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
  // The `after` cursor names the last post of the previous page.
  const after = typeof q.after === 'string' ? Buffer.from(q.after, 'base64url').toString() : undefined;
  const window = { since: since ?? -Infinity, until: until ?? Infinity };
  const { page, more } = await feedPage(sim, call.page.id, window, limit, after);
  const fields = fieldList(q);
  const base = baseOf(request, sim.prefix());
  const cursor = (p: FbPost | undefined) => Buffer.from(p?.id ?? after ?? '').toString('base64url');
  const paging: Record<string, unknown> = { cursors: { before: cursor(page[0]), after: cursor(page.at(-1)) } };
  if (more) {
    const next = new URL(`${base}${request.url.split('?')[0]}`);
    for (const [k, v] of Object.entries(queryFields(request)))
      if (k !== 'access_token' && k !== 'after') next.searchParams.set(k, String(v));
    next.searchParams.set('after', cursor(page.at(-1)));
    paging.next = next.toString();
  }
  return { data: page.map((p) => postJson(p, fields, base, sim.kit.now())), paging };
}

/**
 * One page of a Page's live posts of [since, until], newest first from the post `after` names (exclusive), and
 * whether more follow. The store is read a page (and one more) at a time: the first read is the whole answer unless
 * `until` skips newer posts, and the reads stop at the first post older than `since`.
 */
async function feedPage(
  { kit }: FbSim,
  pageId: string,
  window: { since: number; until: number },
  limit: number,
  after: string | undefined,
): Promise<{ page: FbPost[]; more: boolean }> {
  const page: FbPost[] = [];
  for (let cursor = after; ;) {
    const read = await kit.store.list<FbPost>(KIND.post, {
      owner: pageId,
      match: { deleted: false },
      limit: limit + 1,
      beforeId: cursor,
    });
    for (const p of read) {
      if (p.createdAt < window.since) return { page, more: false };
      if (p.createdAt > window.until) continue;
      if (page.length === limit) return { page, more: true };
      page.push(p);
    }
    if (read.length <= limit) return { page, more: false };
    cursor = read.at(-1)!.id;
  }
}

/** One object by id: `me` (the Page or the user behind the token), a Page, or this Page's post, photo or video. */
async function readObject(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const { kit } = sim;
  const { store } = kit;
  const { version, id } = request.params;
  if (!GRAPH_VERSION.test(version)) return sim.errorReply(reply, 404, `Unknown path components: /${version}`);
  const fields = fieldList(queryFields(request));
  const claims = await checkToken(kit, request, reply, ['fb_page', 'fb_user']);
  if (!claims) return reply;
  if (id === 'me') {
    if (claims.typ === 'fb_page') {
      const page = pageOf(claims);
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
  const base = baseOf(request, sim.prefix());
  // A post's id names its Page (`{page-id}_{post-id}`); anything else is a Page, a photo or a video, read at once.
  if (id.includes('_')) {
    const post = await store.get<FbPost>(KIND.post, id);
    return post && !post.deleted && post.pageId === owner
      ? postJson(post, fields, base, kit.now())
      : unknownObject(reply, id);
  }
  const [page, photo, video] = await Promise.all([
    store.get<FbPage>(KIND.page, id),
    store.get<FbPhoto>(KIND.photo, id),
    store.get<FbVideo>(KIND.video, id),
  ]);
  if (page) return { id: page.id, name: page.name, username: page.username, link: `${base}/web/${page.id}` };
  if (photo && photo.pageId === owner)
    return {
      id: photo.id,
      created_time: graphTime(photo.createdAt),
      ...(photo.altText ? { alt_text_custom: photo.altText } : {}),
      ...(photo.postId ? { page_story_id: photo.postId } : {}),
    };
  if (video && video.pageId === owner) {
    await ensureVideoPost(kit, video);
    return videoJson(kit, video, fields, base);
  }
  return unknownObject(reply, id);
}

const unknownObject = (reply: FastifyReply, id: string) =>
  graphError(reply, 400, {
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });

async function deletePost({ kit }: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const claims = await checkToken(kit, request, reply, ['fb_page']);
  if (!claims) return reply;
  const id = request.params.id;
  const outcome = { deleted: false };
  await kit.store.update<FbPost>(KIND.post, id, (post) => {
    if (post.deleted || post.pageId !== claims.sub) return undefined;
    outcome.deleted = true;
    return { ...post, deleted: true };
  });
  if (!outcome.deleted)
    return graphError(reply, 400, {
      code: 100,
      subcode: 33,
      type: 'GraphMethodException',
      message: `Unsupported delete request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    });
  return { success: true };
}

/** The web page of a post, as Facebook shows it: the Page, the text with its link, the photos or the video, the time. */
async function webPage(sim: FbSim, request: FastifyRequest<{ Params: PostWebPath }>, reply: FastifyReply) {
  const { store } = sim.kit;
  const { pageId, postId } = request.params;
  const [post, page] = await Promise.all([
    store.get<FbPost>(KIND.post, `${pageId}_${postId}`),
    store.get<FbPage>(KIND.page, pageId),
  ]);
  if (!post || post.deleted) return sendMissingPost(reply, 'Facebook');
  const base = baseOf(request, sim.prefix());
  const photos = await Promise.all(post.photoIds.map((id) => store.get<FbPhoto>(KIND.photo, id)));
  const media: PagePart['media'] = photos.flatMap((photo) =>
    photo ? [{ url: mediaUrl(base, photo.id), kind: 'image' as const, alt: photo.altText }] : [],
  );
  if (post.videoId) media.push({ url: mediaUrl(base, post.videoId), kind: 'video' });
  // A link post shows its link under the message (Facebook adds a preview card there).
  const text = post.link && !post.message.includes(post.link) ? `${post.message}\n${post.link}`.trim() : post.message;
  return sendPostPage(reply, {
    platform: 'Facebook',
    accent: '#1877F2',
    noun: 'Post',
    account: { name: page?.name ?? pageId, handle: `@${page?.username ?? pageId}` },
    parts: [{ text, media, createdAt: post.createdAt, url: `${base}/web/${pageId}/posts/${postId}` }],
  });
}

/** How media bytes are served: cacheable, never sniffed by the browser, sandboxed (the bytes came from a client). */
const SERVED = uploadedBytesHeaders(86400);

/**
 * The bytes of a photo or video that went out with a post (an unpublished upload stays private), with its sniffed
 * type. A video is sent chunk by chunk, as it was uploaded.
 */
async function mediaBytes({ kit }: FbSim, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const { store } = kit;
  const { id } = request.params;
  const [photo, video] = await Promise.all([store.get<FbPhoto>(KIND.photo, id), store.get<FbVideo>(KIND.video, id)]);
  const missing = () => reply.code(404).type('text/plain; charset=utf-8').send('This media does not exist.');
  if (photo?.postId) {
    const bytes = await store.getBytes(photoBlob(photo.id));
    return bytes ? reply.type(photo.contentType).headers(SERVED).send(bytes) : missing();
  }
  if (video?.postId) {
    async function* chunks(blobs: string[]) {
      for (const blob of blobs) yield (await store.getBytes(blob)) ?? Buffer.alloc(0);
    }
    return reply
      .type(sniff(video.head) ?? 'video/mp4')
      .header('content-length', String(video.received))
      .headers(SERVED)
      .send(Readable.from(chunks(video.chunks)));
  }
  return missing();
}
