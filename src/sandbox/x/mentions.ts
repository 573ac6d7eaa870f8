// Other people's posts that mention an account (docs/platforms/x.md "Metrics and inbox"): replies to its posts start
// with its @username, so `GET /2/users/:id/mentions` lists both. They are ordinary posts of simulated users (the
// trickle and the control switch write them, src/sandbox/framework/inbox.ts), indexed per mentioned user in
// `mention` documents, newest first, paged with since_id / pagination_token as X does. 180 requests per 15 minutes
// per user; the `list_inbox` fault switches apply.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { authenticate, userOf } from './auth.ts';
import { writeTweet } from './claims.ts';
import { KIND, problem, type XContext, type XTweet } from './state.ts';
import { tweetJson } from './tweets.ts';

const MENTION = 'mention';

interface MentionsQuery {
  max_results?: string;
  since_id?: string;
  pagination_token?: string;
  'tweet.fields'?: string;
}

export function registerXMentions(app: FastifyInstance, ctx: XContext): void {
  app.get<{ Params: { id: string }; Querystring: MentionsQuery }>('/2/users/:id/mentions', (request, reply) =>
    mentions(ctx, request, reply),
  );
}

/** Writes a post by `author` mentioning `mentioned` (a reply to `parent` when given) and indexes the mention. */
async function writeMention(
  ctx: XContext,
  author: string,
  mentioned: string,
  text: string,
  parent: XTweet | undefined,
): Promise<XTweet> {
  const { kit } = ctx;
  const user = userOf(author);
  const id = await kit.snowflake();
  const body = `@${mentioned} ${text}`;
  const tweet: XTweet = {
    id,
    authorId: user.id,
    authorUsername: user.username,
    text: body,
    submitted: body,
    createdAt: kit.now(),
    replyTo: parent?.id ?? null,
    conversationId: parent?.conversationId ?? id,
    mediaIds: [],
    mediaKeys: [],
    deleted: false,
  };
  await writeTweet(kit, tweet);
  await kit.store.insert(MENTION, id, { id }, userOf(mentioned).id);
  return tweet;
}

/** The control switch: replies to the account's post (comment, reply, mention) by simulated users. */
export async function injectX(ctx: XContext, input: InboxInjection): Promise<InjectResult> {
  if (input.kind === 'dm' || input.kind === 'review')
    return { error: `X gives Herald no ${input.kind === 'dm' ? 'direct messages' : 'reviews'} (docs/inbox.md).` };
  const owner = userOf(input.account);
  const parentId =
    input.parent_id ??
    input.post_id ??
    (await ctx.kit.store.list<XTweet>(KIND.tweet, { owner: owner.id, match: { deleted: false }, limit: 1 }))[0]?.id;
  const parent = parentId ? await ctx.kit.store.get<XTweet>(KIND.tweet, parentId) : undefined;
  if (parentId && !parent) return { error: `No post ${parentId}.` };
  if (input.kind !== 'mention' && !parent) return { error: `@${input.account} has no post to comment on.` };
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push((await writeMention(ctx, author, input.account, text, parent)).id);
  }
  return { ids };
}

async function mentions(
  ctx: XContext,
  request: FastifyRequest<{ Params: { id: string }; Querystring: MentionsQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const user = await authenticate(ctx, request, reply, ['tweet.read', 'users.read']);
  if (!user) return reply;
  const window = kit.windows.hit(`mentions:${user.id}`, kit.limit(180), 15 * 60_000);
  reply.headers(windowHeaders(window, 'x'));
  if (!window.allowed) return errorReply(reply, 429, 'Too Many Requests');
  if (applyFault(kit, { errorReply }, kit.faults.take('list_inbox', user.id), request, reply, 'x') === 'sent')
    return reply;
  if (request.params.id !== user.id)
    return reply.code(403).send(problem(403, 'Forbidden', 'You may only read your own mentions.'));
  const q = request.query;
  const max = q.max_results === undefined ? 10 : Number(q.max_results);
  if (!Number.isInteger(max) || max < 5 || max > 100)
    return reply
      .code(400)
      .send(problem(400, 'Invalid Request', 'The `max_results` query parameter value must be between 5 and 100.'));
  const own = await kit.store.list<XTweet>(KIND.tweet, { owner: user.id, match: { deleted: false }, limit: 50 });
  await runTrickle(kit, own, async (post, n) => {
    const { author, text } = trickleItem(post.id, n);
    await writeMention(ctx, author, user.username, text, post);
  });
  const before = q.pagination_token ? Buffer.from(q.pagination_token, 'base64url').toString() : undefined;
  const refs = await kit.store.list<{ id: string }>(MENTION, {
    owner: user.id,
    limit: max + 1,
    beforeId: before,
    afterId: q.since_id,
  });
  const page = refs.slice(0, max);
  const tweets = (await Promise.all(page.map((r) => kit.store.get<XTweet>(KIND.tweet, r.id)))).filter(
    (t): t is XTweet => t !== undefined && !t.deleted,
  );
  const meta: Record<string, unknown> = { result_count: tweets.length };
  if (page.length > 0) Object.assign(meta, { newest_id: page[0]!.id, oldest_id: page.at(-1)!.id });
  if (refs.length > max) meta.next_token = Buffer.from(page.at(-1)!.id).toString('base64url');
  if (tweets.length === 0) return { meta };
  const fields = String(q['tweet.fields'] ?? '')
    .split(',')
    .filter(Boolean);
  const users = new Map(tweets.map((t) => [t.authorId, userOf(t.authorUsername)]));
  return {
    data: tweets.map((t) => tweetJson(t, fields, kit.now(), user.id)),
    includes: { users: [...users.values()].map((u) => ({ id: u.id, username: u.username, name: u.name })) },
    meta,
  };
}
