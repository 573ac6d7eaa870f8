// X posts (docs/platforms/x.md "Calls"): POST /2/tweets with X's own checks (weighted length by twitter-text v3,
// 1–4 processed media, replies to existing posts, duplicate text per user → 403), read, delete, a user's
// recent posts (the adapter's reconciliation look-up), and a small web page per post for sandbox URLs.
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { applyFault, snowflake, windowHeaders, type SimulatorKit } from '../framework/simulator.ts';
import { authenticate } from './auth.ts';
import { mediaState } from './media.ts';
import { problem, type XContext, type XTweet } from './state.ts';

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
const DUPLICATE_WINDOW_MS = 24 * 3600_000; // ⚠ unverified: X does not document how far back duplicate detection looks

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

export function tweetJson(t: XTweet, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] };
  if (fields.includes('created_at')) out.created_at = new Date(t.createdAt).toISOString();
  if (fields.includes('author_id')) out.author_id = t.authorId;
  if (fields.includes('conversation_id')) out.conversation_id = t.conversationId;
  if (fields.includes('referenced_tweets') && t.replyTo)
    out.referenced_tweets = [{ type: 'replied_to', id: t.replyTo }];
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
  const { kit, state, errorReply } = ctx;
  const user = authenticate(kit, state, request, reply, ['tweet.write', 'tweet.read', 'users.read']);
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
  const items = mediaIds.map((id) => state.media.get(id));
  for (const [i, item] of items.entries()) {
    if (!item || item.ownerId !== user.id) return invalid(reply, `Your media IDs are invalid: ${mediaIds[i]}`);
    const status = mediaState(kit, item);
    if (status.state !== 'succeeded') return invalid(reply, `Media ${item.id} is not ready (${status.state}).`);
  }
  const heavy = items.filter((m) => m && (m.category === 'tweet_video' || m.category === 'tweet_gif')).length;
  if (heavy > 0 && items.length > 1) return invalid(reply, 'A post may carry 4 photos or 1 GIF or 1 video; not a mix.');
  const replyTo = (f.reply as { in_reply_to_tweet_id?: unknown } | undefined)?.in_reply_to_tweet_id;
  const parent = typeof replyTo === 'string' ? state.tweets.get(replyTo) : undefined;
  if (replyTo !== undefined && (!parent || parent.deleted))
    return invalid(reply, 'The post you are replying to does not exist or was deleted.');
  const normalized = text.normalize('NFC').trim();
  const recentDuplicate =
    normalized !== '' &&
    [...state.tweets.values()].some(
      (t) =>
        t.authorId === user.id &&
        !t.deleted &&
        t.submitted === normalized &&
        t.createdAt > kit.now() - DUPLICATE_WINDOW_MS,
    );
  if (recentDuplicate || fault?.fault === 'duplicate') {
    return reply
      .code(403)
      .send(problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.'));
  }
  const id = snowflake(kit.now());
  const tweet: XTweet = {
    id,
    authorId: user.id,
    text: wrapUrls(kit, text),
    submitted: normalized,
    createdAt: kit.now(),
    replyTo: parent?.id ?? null,
    conversationId: parent?.conversationId ?? id,
    mediaIds,
    deleted: false,
  };
  state.tweets.set(id, tweet);
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return reply.code(201).send({ data: { id, text: tweet.text, edit_history_tweet_ids: [id] } });
}

async function readTweet(
  ctx: XContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: TweetFieldsQuery }>,
  reply: FastifyReply,
) {
  if (!authenticate(ctx.kit, ctx.state, request, reply, ['tweet.read'])) return reply;
  const id = request.params.id;
  const tweet = ctx.state.tweets.get(id);
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
  return { data: tweetJson(tweet, fieldsOf(request.query)) };
}

async function deleteTweet(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const user = authenticate(ctx.kit, ctx.state, request, reply, ['tweet.write']);
  if (!user) return reply;
  const tweet = ctx.state.tweets.get(request.params.id);
  if (!tweet || tweet.authorId !== user.id)
    return reply.code(403).send(problem(403, 'Forbidden', 'You are not authorized to delete this Tweet.'));
  tweet.deleted = true;
  return { data: { deleted: true } };
}

/** A user's recent posts, newest first: the adapter's reconciliation look-up. */
async function userTweets(
  ctx: XContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: TimelineQuery }>,
  reply: FastifyReply,
) {
  const { kit, state, errorReply } = ctx;
  const user = authenticate(kit, state, request, reply, ['tweet.read', 'users.read']);
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
  const authorId = request.params.id;
  const all = [...state.tweets.values()]
    .filter((t) => t.authorId === authorId && !t.deleted && t.createdAt >= start && t.createdAt < end)
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const offset = q.pagination_token ? Number(Buffer.from(q.pagination_token, 'base64url').toString()) || 0 : 0;
  const page = all.slice(offset, offset + max);
  const meta: Record<string, unknown> = { result_count: page.length };
  if (page.length > 0) Object.assign(meta, { newest_id: page[0]!.id, oldest_id: page.at(-1)!.id });
  if (offset + max < all.length) meta.next_token = Buffer.from(String(offset + max)).toString('base64url');
  return page.length > 0 ? { data: page.map((t) => tweetJson(t, fieldsOf(q))), meta } : { meta };
}

async function me(
  ctx: XContext,
  request: FastifyRequest<{ Querystring: { 'user.fields'?: string } }>,
  reply: FastifyReply,
) {
  const user = authenticate(ctx.kit, ctx.state, request, reply, ['users.read']);
  if (!user) return reply;
  // Optional fields come only when asked for (`user.fields`), as on X.
  const fields = String(request.query['user.fields'] ?? '').split(',');
  const host = `${request.protocol}://${request.headers.host}${ctx.prefix}`;
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

async function tweetPage(
  ctx: XContext,
  request: FastifyRequest<{ Params: { username: string; id: string } }>,
  reply: FastifyReply,
) {
  const tweet = ctx.state.tweets.get(request.params.id);
  if (!tweet || tweet.deleted)
    return reply
      .code(404)
      .type('text/plain')
      .send('This post does not exist in the sandbox (it may have been deleted, or the sandbox restarted).');
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><meta charset="utf-8"><title>Sandbox X post</title><p><b>@${esc(request.params.username)}</b> (Herald sandbox)</p><p>${esc(tweet.text)}</p><p>${tweet.mediaIds.length} media · ${new Date(tweet.createdAt).toISOString()}</p>`,
    );
}
