// The template of the simulator's posts routes, src/sandbox/<p>/posts.ts: media, posts, look-up, delete, the post
// page and media bytes, all kept in the sandbox store. Tokens: __p__, __P__, __PU__, __D__.

export const SIM_POSTS = `// __D__ posts and media as the simulator plays them: media uploaded as bytes (images ready at once, video
// processing for a while), posts with an Idempotency-Key remembered per account, replies, the look-up by key,
// delete, and the web page of a post (sandbox URLs point there) with its media's bytes. Every route takes the
// shared faults. Each request reads what it needs from the store at once and writes once, so publishing stays
// cheap when the store is PostgreSQL.
// FILL IN: __D__'s real calls (paths, bodies, answers), its validation (what it rejects), its media protocol,
// its rate limits and their headers; mark what the notes do not confirm with "⚠ unverified".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measure, MAX_LENGTH } from '../../platforms/__p__/limits.ts';
import { parseBody } from '../framework/body.ts';
import type { FaultRule } from '../framework/faults.ts';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { authenticate } from './auth.ts';
import { KIND, mediaBlob, type __P__Account, type __P__Context, type __P__Media, type __P__Post } from './state.ts';

const VIDEO_PROCESSING_MS = 1000;
/** FILL IN: __D__'s brand colour, for the post page. */
const ACCENT = '#2563EB';

const hostOf = (ctx: __P__Context, request: FastifyRequest) =>
  \`\${request.protocol}://\${request.headers.host}\${ctx.prefix}\`;

function postJson(ctx: __P__Context, p: __P__Post, request: FastifyRequest) {
  return {
    id: p.id,
    url: \`\${hostOf(ctx, request)}/p/\${p.id}\`,
    text: p.text,
    reply_to: p.replyTo,
    media_ids: p.mediaIds,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

function mediaJson(ctx: __P__Context, m: __P__Media) {
  const status = ctx.kit.now() < m.readyAt ? 'processing' : m.failed ? 'failed' : 'ready';
  return { id: m.id, status, ...(status === 'failed' && { error: 'The file could not be processed.' }) };
}

/**
 * Every authenticated call: the token, the rate window (FILL IN: __D__'s limits), and the operation's faults. The
 * fault comes back when it is the route's own business (media faults) or when the work must be done before the
 * connection is dropped (\`drop\`).
 */
async function gate(
  ctx: __P__Context,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
): Promise<{ account: __P__Account; drop: boolean; fault: FaultRule | undefined } | undefined> {
  const { kit, errorReply } = ctx;
  const account = await authenticate(ctx, request, reply);
  if (!account) return undefined;
  // Rate windows are the kit's, in memory by design: a restart forgives the window, as a new process would.
  const window = kit.windows.hit(\`all:\${account.id}\`, kit.limit(300), 15 * 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) {
    errorReply(reply, 429, 'Too many requests.');
    return undefined;
  }
  const fault = kit.faults.take(operation, account.id);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  return applied === 'sent' ? undefined : { account, drop: applied === 'drop', fault };
}

interface IdParams {
  id: string;
}

export function register__P__Posts(app: FastifyInstance, ctx: __P__Context): void {
  app.post('/v1/media', (request, reply) => uploadMedia(ctx, request, reply));
  app.get<{ Params: IdParams }>('/v1/media/:id', (request, reply) => readMedia(ctx, request, reply));
  app.post('/v1/posts', (request, reply) => createPost(ctx, request, reply));
  app.get<{ Querystring: { idempotency_key?: string } }>('/v1/posts', (request, reply) => lookup(ctx, request, reply));
  app.delete<{ Params: IdParams }>('/v1/posts/:id', (request, reply) => deletePost(ctx, request, reply));
  app.get<{ Params: IdParams }>('/p/:id', (request, reply) => postPage(ctx, request, reply));
  app.get<{ Params: IdParams }>('/media/:id', (request, reply) => mediaBytes(ctx, request, reply));
}

async function uploadMedia(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'upload_media');
  if (!g) return reply;
  const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const type = sniff(data);
  if (!type || !/^(image\\/(jpeg|png)|video\\/mp4)$/.test(type))
    return errorReply(reply, 400, 'media_type_unsupported: the file is not a JPEG, PNG or MP4.');
  const m: __P__Media = {
    // FILL IN: __D__'s id format. A counter of the store never repeats, restarts and resets included.
    id: String(await kit.store.next('media', 1000n)),
    accountId: g.account.id,
    contentType: type,
    size: data.length,
    readyAt:
      kit.now() +
      (type.startsWith('video/') ? VIDEO_PROCESSING_MS : 0) +
      (g.fault?.fault === 'slow_media' ? (g.fault.delayMs ?? 3000) : 0),
    failed: g.fault?.fault === 'media_failed',
  };
  // The bytes in a blob of their own: the document stays small.
  await Promise.all([kit.store.putBytes(mediaBlob(m.id), data), kit.store.put(KIND.media, m.id, m, m.accountId)]);
  return reply.code(201).send(mediaJson(ctx, m));
}

async function readMedia(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'media_status');
  if (!g) return reply;
  const m = await ctx.kit.store.get<__P__Media>(KIND.media, request.params.id);
  if (!m || m.accountId !== g.account.id) return ctx.errorReply(reply, 404, 'No such media.');
  return mediaJson(ctx, m);
}

async function createPost(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const { store } = kit;
  const g = await gate(ctx, request, reply, 'create_post');
  if (!g) return reply;
  const header = request.headers['idempotency-key'];
  const key = typeof header === 'string' ? \`\${g.account.id}:\${header}\` : undefined;
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json') return errorReply(reply, 400, 'The body must be JSON.');
  const f = body.fields;
  const text = typeof f.text === 'string' ? f.text : '';
  const media = Array.isArray(f.media) ? (f.media as Array<{ id?: unknown }>) : [];
  const replyTo = typeof f.reply_to === 'string' ? f.reply_to : null;
  // Everything the request needs, read at once: the key's post, the media, the post replied to, and a new id.
  const [claimed, items, parent, id] = await Promise.all([
    key ? store.get<{ postId: string }>(KIND.idempotency, key) : undefined,
    Promise.all(media.map((item) => store.get<__P__Media>(KIND.media, String(item.id)))),
    replyTo === null ? undefined : store.get<__P__Post>(KIND.post, replyTo),
    kit.snowflake(),
  ]);
  if (claimed) return sameKey(ctx, request, reply, claimed.postId);
  if (text.trim() === '' && media.length === 0) return errorReply(reply, 400, 'A post needs text or media.');
  if (measure(text) > MAX_LENGTH)
    return errorReply(reply, 400, \`The text is longer than \${MAX_LENGTH} characters.\`);
  const ready: __P__Media[] = [];
  for (const m of items) {
    if (!m || m.accountId !== g.account.id) return errorReply(reply, 400, 'media_not_found: a media id is unknown.');
    if (m.readyAt > kit.now() || m.failed)
      return errorReply(reply, 400, 'media_not_ready: a media item has not finished processing.');
    ready.push(m);
  }
  if (replyTo !== null && (!parent || parent.deleted))
    return errorReply(reply, 404, 'The post replied to does not exist.');
  const post: __P__Post = {
    id,
    accountId: g.account.id,
    text,
    replyTo,
    mediaIds: ready.map((m) => m.id),
    createdAt: kit.now(),
    deleted: false,
  };
  // The key is claimed before the post is written: of two requests with one key (two API nodes), one creates it.
  if (key && !(await store.insert(KIND.idempotency, key, { postId: post.id }))) {
    const winner = await store.get<{ postId: string }>(KIND.idempotency, key);
    return sameKey(ctx, request, reply, winner?.postId ?? '');
  }
  await store.put(KIND.post, post.id, post, post.accountId);
  if (g.drop) return kit.dropConnection(request, reply);
  return reply.code(201).send(postJson(ctx, post, request));
}

/** The answer to a key already used: the post it created, or 409 while its first request is still writing it. */
async function sameKey(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply, postId: string) {
  const post = await ctx.kit.store.get<__P__Post>(KIND.post, postId);
  if (!post) return ctx.errorReply(reply, 409, 'A request with this Idempotency-Key is still in progress.');
  return postJson(ctx, post, request);
}

async function lookup(
  ctx: __P__Context,
  request: FastifyRequest<{ Querystring: { idempotency_key?: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const g = await gate(ctx, request, reply, 'lookup');
  if (!g) return reply;
  const claimed = await store.get<{ postId: string }>(
    KIND.idempotency,
    \`\${g.account.id}:\${request.query.idempotency_key ?? ''}\`,
  );
  const post = claimed ? await store.get<__P__Post>(KIND.post, claimed.postId) : undefined;
  return { data: post && !post.deleted ? [postJson(ctx, post, request)] : [] };
}

async function deletePost(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'delete');
  if (!g) return reply;
  // Changed under the document's lock: of two deletes at once, one succeeds and the other meets 404.
  const outcome = { deleted: false };
  await ctx.kit.store.update<__P__Post>(KIND.post, request.params.id, (post) => {
    if (post.deleted || post.accountId !== g.account.id) return undefined;
    outcome.deleted = true;
    return { ...post, deleted: true };
  });
  if (!outcome.deleted) return ctx.errorReply(reply, 404, 'No such post.');
  return reply.code(204).send();
}

/** The post and the later parts of its thread: each the same account's reply to the part before. */
async function threadFrom(ctx: __P__Context, first: __P__Post): Promise<__P__Post[]> {
  const parts = [first];
  // FILL IN: how __D__ shows a thread (the whole chain from its first part, replies by others …).
  for (let last = first; parts.length < 100; ) {
    const [next] = await ctx.kit.store.list<__P__Post>(KIND.post, {
      owner: first.accountId,
      match: { replyTo: last.id, deleted: false },
      ascending: true,
      limit: 1,
    });
    if (!next) break;
    parts.push(next);
    last = next;
  }
  return parts;
}

/** Sandbox URLs of posts point here: the post as __D__ shows it (account, text, media, thread, time). */
async function postPage(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { store } = ctx.kit;
  const post = await store.get<__P__Post>(KIND.post, request.params.id);
  if (!post || post.deleted) return sendMissingPost(reply, '__D__');
  const [account, thread] = await Promise.all([
    store.get<__P__Account>(KIND.account, post.accountId),
    threadFrom(ctx, post),
  ]);
  const ids = thread.flatMap((part) => part.mediaIds);
  const found = await Promise.all(ids.map((id) => store.get<__P__Media>(KIND.media, id)));
  const isVideo = (id: string) => found[ids.indexOf(id)]?.contentType.startsWith('video/') === true;
  const host = hostOf(ctx, request);
  return sendPostPage(reply, {
    platform: '__D__',
    accent: ACCENT,
    account: { name: account?.name ?? post.accountId, handle: \`@\${account?.username ?? post.accountId}\` },
    parts: thread.map((part) => ({
      text: part.text,
      media: part.mediaIds.map((id) => ({
        url: \`\${host}/media/\${id}\`,
        kind: isVideo(id) ? ('video' as const) : ('image' as const),
      })),
      createdAt: part.createdAt,
      url: \`\${host}/p/\${part.id}\`,
    })),
  });
}

/** A media item's bytes, with the type sniffed at upload: public, as a platform's media URLs are. */
async function mediaBytes(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { store } = ctx.kit;
  const [m, bytes] = await Promise.all([
    store.get<__P__Media>(KIND.media, request.params.id),
    store.getBytes(mediaBlob(request.params.id)),
  ]);
  if (!m || !bytes) return ctx.errorReply(reply, 404, 'No such media.');
  return reply.type(m.contentType).header('cache-control', 'public, max-age=86400').send(bytes);
}
`;
