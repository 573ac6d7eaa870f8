// X posts (docs/platforms/x.md "Calls"): POST /2/tweets with X's own checks (weighted length by twitter-text v3,
// 1–4 processed media, replies to existing posts, duplicate text per user → 403), read, delete, a user's
// recent posts (the adapter's reconciliation look-up), and the public page of a post (its sandbox URL) shown as X
// shows it. Posts are store documents owned by their author (the timeline reads one page of them); the duplicate
// check is one claim document per author and text, and a page reads its thread's parts; a post's id is a snowflake
// no node or restart hands out twice.
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { applyFault, windowHeaders, type SimulatorKit } from '../framework/simulator.ts';
import { authenticate, userOf } from './auth.ts';
import { mediaKey, mediaState, mediaUrl } from './media.ts';
import { metricsFields } from './metrics.ts';
import { claimText, writeTweet } from './claims.ts';
import { KIND, problem, threadKey, type XContext, type XMedia, type XThreadPart, type XTweet } from './state.ts';

interface TwitterText {
  parseTweet(text: string, config?: unknown): { weightedLength: number; valid: boolean };
  extractUrls(text: string): string[];
  configs: { version3: unknown };
}
const twitterText = createRequire(import.meta.url)('twitter-text') as TwitterText;

const ALLOWED_FIELDS = new Set([
  'text',
  'media',
  'reply',
  'reply_settings',
  'quote_tweet_id',
  'poll',
  'geo',
  'nullcast',
  'for_super_followers_only',
  'direct_message_deep_link',
  'community_id',
  'share_with_followers',
  'made_with_ai',
  'paid_partnership',
  'edit_options',
]);

function invalid(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).send({
    errors: [{ message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.x.com/2/problems/invalid-request',
  });
}

/** X wraps every URL in a t.co link; the stored and returned text carries those links. */
function wrapUrls(kit: SimulatorKit, text: string): string {
  let out = text;
  for (const url of new Set(twitterText.extractUrls(text)))
    out = out.split(url).join(`https://t.co/${Buffer.from(`${url}${kit.now()}`).toString('base64url').slice(-10)}`);
  return out;
}

/** A post as X answers it; its metrics fields come from metrics.ts. */
export function tweetJson(t: XTweet, fields: string[], now = 0, viewer?: string): Record<string, unknown> {
  const out: Record<string, unknown> = { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] };
  Object.assign(out, metricsFields(t, fields, now, viewer));
  if (fields.includes('created_at')) out.created_at = new Date(t.createdAt).toISOString();
  if (fields.includes('author_id')) out.author_id = t.authorId;
  if (fields.includes('conversation_id')) out.conversation_id = t.conversationId;
  if (fields.includes('referenced_tweets') && t.replyTo)
    out.referenced_tweets = [{ type: 'replied_to', id: t.replyTo }];
  // Media keys as X forms them (`<type>_<media id>`, as media.ts hands them out): the adapter's look-up compares them.
  if (fields.includes('attachments') && t.mediaIds.length > 0) out.attachments = { media_keys: t.mediaKeys };
  return out;
}

interface IdParams {
  id: string;
}

/** Optional tweet fields come only when asked for, as on X. */
interface TweetFieldsQuery {
  'tweet.fields'?: string;
}

interface TimelineQuery extends TweetFieldsQuery {
  max_results?: string;
  start_time?: string;
  end_time?: string;
  pagination_token?: string;
}

function fieldsOf(query: TweetFieldsQuery): string[] {
  return String(query['tweet.fields'] ?? '')
    .split(',')
    .filter(Boolean);
}

export function registerXTweets(app: FastifyInstance, ctx: XContext): void {
  app.post('/2/tweets', (request, reply) => createTweet(ctx, request, reply));
  app.get<{ Params: IdParams; Querystring: TweetFieldsQuery }>('/2/tweets/:id', (request, reply) =>
    readTweet(ctx, request, reply),
  );
  app.delete<{ Params: IdParams }>('/2/tweets/:id', (request, reply) => deleteTweet(ctx, request, reply));
  app.get<{ Params: IdParams; Querystring: TimelineQuery }>('/2/users/:id/tweets', (request, reply) =>
    userTweets(ctx, request, reply),
  );
  app.get<{ Querystring: { 'user.fields'?: string } }>('/2/users/me', (request, reply) => me(ctx, request, reply));
  // Sandbox URLs of posts point here (the real ones are https://x.com/<user>/status/<id>).
  app.get<{ Params: { username: string; id: string } }>('/web/:username/status/:id', (request, reply) =>
    tweetPage(ctx, request, reply),
  );
}

async function createTweet(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const user = await authenticate(ctx, request, reply, ['tweet.write', 'tweet.read', 'users.read']);
  if (!user) return reply;
  const window = kit.windows.hit(`tweets:${user.id}`, kit.limit(100), 15 * 60_000);
  reply.headers(windowHeaders(window, 'x'));
  if (!window.allowed) return errorReply(reply, 429, 'Too Many Requests');
  const fault = kit.faults.take('create_post', user.id);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'x');
  if (applied === 'sent') return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json') return invalid(reply, 'The body must be a JSON object.');
  const f = body.fields;
  const unknown = Object.keys(f).filter((k) => !ALLOWED_FIELDS.has(k));
  if (unknown.length > 0)
    return invalid(
      reply,
      `$.${unknown[0]}: is not defined in the schema and the schema does not allow additional properties`,
    );
  const text = f.text === undefined ? '' : f.text;
  if (typeof text !== 'string') return invalid(reply, '$.text: string expected');
  const media = (f.media as { media_ids?: unknown } | undefined)?.media_ids;
  if (
    media !== undefined &&
    (!Array.isArray(media) || media.length < 1 || media.length > 4 || !media.every((id) => typeof id === 'string'))
  ) {
    return invalid(reply, '$.media.media_ids: 1 to 4 media id strings expected');
  }
  const mediaIds = (media as string[] | undefined) ?? [];
  if (text.trim() === '' && mediaIds.length === 0) return invalid(reply, 'Post text or media is required.');
  // ⚠ unverified: the status and body X gives an over-long text (Herald refuses it before sending anyway).
  if (text !== '' && !twitterText.parseTweet(text, twitterText.configs.version3).valid) {
    return reply
      .code(403)
      .send(problem(403, 'Forbidden', 'Your post text is too long or contains invalid characters.'));
  }
  const replyTo = (f.reply as { in_reply_to_tweet_id?: unknown } | undefined)?.in_reply_to_tweet_id;
  const normalized = text.normalize('NFC').trim();
  // Everything the checks below need, read at once: the media and the reply target.
  const [items, parent] = await Promise.all([
    Promise.all(mediaIds.map((id) => kit.store.get<XMedia>(KIND.media, id))),
    typeof replyTo === 'string' ? kit.store.get<XTweet>(KIND.tweet, replyTo) : undefined,
  ]);
  for (const [i, item] of items.entries()) {
    if (!item || item.ownerId !== user.id) return invalid(reply, `Your media IDs are invalid: ${mediaIds[i]}`);
    const status = mediaState(kit, item);
    if (status.state !== 'succeeded') return invalid(reply, `Media ${item.id} is not ready (${status.state}).`);
  }
  const heavy = items.filter((m) => m && (m.category === 'tweet_video' || m.category === 'tweet_gif')).length;
  if (heavy > 0 && items.length > 1) return invalid(reply, 'A post may carry 4 photos or 1 GIF or 1 video; not a mix.');
  if (
    (replyTo !== undefined && (!parent || parent.deleted)) ||
    (replyTo !== undefined && fault?.fault === 'item_deleted')
  )
    return invalid(reply, 'The post you are replying to does not exist or was deleted.');
  if (replyTo !== undefined && fault?.fault === 'reply_window_closed')
    return reply
      .code(403)
      .send(
        problem(
          403,
          'Forbidden',
          'Reply to this conversation is not allowed because you have not been mentioned or otherwise engaged by the author of the post you are replying to.',
        ),
      );
  const duplicate = () =>
    reply.code(403).send(problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.'));
  if (fault?.fault === 'duplicate') return duplicate();
  const id = await kit.snowflake();
  const tweet: XTweet = {
    id,
    authorId: user.id,
    authorUsername: user.username,
    text: wrapUrls(kit, text),
    submitted: normalized,
    createdAt: kit.now(),
    replyTo: parent?.id ?? null,
    conversationId: parent?.conversationId ?? id,
    mediaIds,
    mediaKeys: items.flatMap((m) => (m ? [mediaKey(m)] : [])),
    deleted: false,
  };
  // A text is claimed before its post is written, so of two identical posts sent at once (on any nodes) one is
  // refused; a post without text has nothing to claim.
  if (normalized !== '' && !(await claimText(kit, tweet))) return duplicate();
  await writeTweet(kit, tweet);
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return reply.code(201).send({ data: { id, text: tweet.text, edit_history_tweet_ids: [id] } });
}

async function readTweet(
  ctx: XContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: TweetFieldsQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const user = await authenticate(ctx, request, reply, ['tweet.read']);
  if (!user) return reply;
  // Post lookup: 900 requests per 15 minutes per user (docs/platforms/x.md "Rate limits").
  const window = kit.windows.hit(`lookup:${user.id}`, kit.limit(900), 15 * 60_000);
  reply.headers(windowHeaders(window, 'x'));
  if (!window.allowed) return errorReply(reply, 429, 'Too Many Requests');
  if (applyFault(kit, { errorReply }, kit.faults.take('read_post', user.id), request, reply, 'x') === 'sent')
    return reply;
  const id = request.params.id;
  const tweet = await ctx.kit.store.get<XTweet>(KIND.tweet, id);
  if (!tweet || tweet.deleted) {
    return {
      errors: [
        {
          value: id,
          detail: `Could not find tweet with id: [${id}].`,
          title: 'Not Found Error',
          resource_type: 'tweet',
          parameter: 'id',
          resource_id: id,
          type: 'https://api.twitter.com/2/problems/resource-not-found',
        },
      ],
    };
  }
  return { data: tweetJson(tweet, fieldsOf(request.query), kit.now(), user.id) };
}

async function deleteTweet(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const user = await authenticate(ctx, request, reply, ['tweet.write']);
  if (!user) return reply;
  const tweet = await ctx.kit.store.update<XTweet>(KIND.tweet, request.params.id, (t) =>
    t.authorId === user.id ? { ...t, deleted: true } : undefined,
  );
  if (!tweet || tweet.authorId !== user.id)
    return reply.code(403).send(problem(403, 'Forbidden', 'You are not authorized to delete this Tweet.'));
  return { data: { deleted: true } };
}

/** A user's recent posts, newest first: the adapter's reconciliation look-up. */
async function userTweets(
  ctx: XContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: TimelineQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const user = await authenticate(ctx, request, reply, ['tweet.read', 'users.read']);
  if (!user) return reply;
  const window = kit.windows.hit(`timeline:${user.id}`, kit.limit(900), 15 * 60_000);
  reply.headers(windowHeaders(window, 'x'));
  if (!window.allowed) return errorReply(reply, 429, 'Too Many Requests');
  const applied = applyFault(kit, { errorReply }, kit.faults.take('lookup', user.id), request, reply, 'x');
  if (applied === 'sent') return reply;
  const q = request.query;
  const max = q.max_results === undefined ? 10 : Number(q.max_results);
  if (!Number.isInteger(max) || max < 5 || max > 100)
    return invalid(reply, 'The `max_results` query parameter value must be between 5 and 100.');
  const start = q.start_time ? Date.parse(q.start_time) : -Infinity;
  const end = q.end_time ? Date.parse(q.end_time) : Infinity;
  // The token names the last post of the previous page; the next page is what the author posted before it.
  const after = q.pagination_token ? Buffer.from(q.pagination_token, 'base64url').toString() : undefined;
  if (after !== undefined && !/^\d{1,20}$/.test(after))
    return invalid(reply, 'The `pagination_token` query parameter value is not valid.');
  const { page, more } = await timelinePage(kit, request.params.id, { start, end }, max, after);
  const meta: Record<string, unknown> = { result_count: page.length };
  if (page.length > 0) Object.assign(meta, { newest_id: page[0]!.id, oldest_id: page.at(-1)!.id });
  if (more) meta.next_token = Buffer.from(page.at(-1)!.id).toString('base64url');
  return page.length > 0 ? { data: page.map((t) => tweetJson(t, fieldsOf(q), kit.now(), user.id)), meta } : { meta };
}

/**
 * One page of an author's live posts of [start, end), newest first from the post `after` names (exclusive), and
 * whether more follow. The store is read a page (and one more) at a time: the first read is the whole answer
 * unless an end_time skips newer posts, and the reads stop at the first post older than the start_time.
 */
async function timelinePage(
  kit: SimulatorKit,
  authorId: string,
  window: { start: number; end: number },
  max: number,
  after: string | undefined,
): Promise<{ page: XTweet[]; more: boolean }> {
  const page: XTweet[] = [];
  for (let cursor = after; ;) {
    const read = await kit.store.list<XTweet>(KIND.tweet, {
      owner: authorId,
      match: { deleted: false },
      limit: max + 1,
      beforeId: cursor,
    });
    for (const t of read) {
      if (t.createdAt < window.start) return { page, more: false };
      if (t.createdAt >= window.end) continue;
      if (page.length === max) return { page, more: true };
      page.push(t);
    }
    if (read.length <= max) return { page, more: false };
    cursor = read.at(-1)!.id;
  }
}

async function me(
  ctx: XContext,
  request: FastifyRequest<{ Querystring: { 'user.fields'?: string } }>,
  reply: FastifyReply,
) {
  const user = await authenticate(ctx, request, reply, ['users.read']);
  if (!user) return reply;
  // Optional fields come only when asked for (`user.fields`), as on X.
  const fields = String(request.query['user.fields'] ?? '').split(',');
  const host = hostOf(ctx, request);
  return {
    data: {
      id: user.id,
      name: user.name,
      username: user.username,
      ...(fields.includes('profile_image_url')
        ? { profile_image_url: `${host}/web/avatars/${user.id}_normal.png` }
        : {}),
    },
  };
}

/** The request's origin and the simulator's mount: the base of the URLs it hands out. */
function hostOf(ctx: XContext, request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host}${ctx.prefix}`;
}

/** The thread a post belongs to, as X shows it: the author's chain from the first post through this one to the last reply. */
function threadOf(tweet: XTweet, conversation: XTweet[]): XTweet[] {
  const byId = new Map(conversation.map((t) => [t.id, t]));
  const chain: XTweet[] = [];
  for (let t: XTweet | undefined = tweet; t; t = t.replyTo ? byId.get(t.replyTo) : undefined) chain.unshift(t);
  for (let next = conversation.find((t) => t.replyTo === tweet.id); next;) {
    chain.push(next);
    const id: string = next.id;
    next = conversation.find((t) => t.replyTo === id);
  }
  return chain;
}

/** The public page of a post (its sandbox URL): the author, the text with links, the media, the thread, the time. */
async function tweetPage(
  ctx: XContext,
  request: FastifyRequest<{ Params: { username: string; id: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const tweet = await store.get<XTweet>(KIND.tweet, request.params.id);
  if (!tweet || tweet.deleted) return sendMissingPost(reply, 'X');
  // The author's parts of this conversation: the thread's own documents, however long the author's history.
  const parts = await store.list<XThreadPart>(KIND.threadPart, {
    owner: threadKey(tweet.authorId, tweet.conversationId),
    ascending: true,
  });
  const conversation = (await Promise.all(parts.map((p) => store.get<XTweet>(KIND.tweet, p.id)))).filter(
    (t): t is XTweet => t !== undefined && !t.deleted,
  );
  const thread = threadOf(tweet, conversation);
  const media = new Map(
    (await Promise.all(thread.flatMap((t) => t.mediaIds).map((id) => store.get<XMedia>(KIND.media, id)))).flatMap(
      (m) => (m ? [[m.id, m] as const] : []),
    ),
  );
  const host = hostOf(ctx, request);
  const author = userOf(tweet.authorUsername);
  return sendPostPage(reply, {
    platform: 'X',
    accent: '#000000',
    noun: 'Post',
    account: { name: author.name, handle: `@${author.username}` },
    parts: thread.map((t) => ({
      // What X shows: the links as written (the stored text carries t.co links, which X expands for display).
      text: t.submitted,
      media: t.mediaIds.map((id) => ({
        url: mediaUrl(host, id),
        kind: media.get(id)?.category === 'tweet_video' ? ('video' as const) : ('image' as const),
        alt: media.get(id)?.altText ?? null,
      })),
      createdAt: t.createdAt,
      url: `${host}/web/${encodeURIComponent(t.authorUsername)}/status/${t.id}`,
    })),
  });
}
