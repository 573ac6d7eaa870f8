// Notifications (docs/platforms/mastodon.md "Metrics and inbox"): `GET /api/v1/notifications` with `types[]=mention`,
// newest first, paged by max_id / since_id / min_id (limit 40 by default, 80 at most), each with the account and
// the status. Other people's replies to the account's statuses, mentions of it and direct messages (statuses of
// visibility `direct` that mention it) are ordinary statuses of simulated accounts, written by the trickle and the
// control switch (src/sandbox/framework/inbox.ts); each makes one `notification` document owned by the account.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { accountJson, accountOf, hostOf } from './auth.ts';
import { KIND, threadKey, type MastoContext, type MastoStatus, type MastoThreadPart } from './state.ts';
import { gate, statusJson } from './statuses.ts';

const NOTIFICATION = 'notification';

interface MastoNotification {
  id: string;
  statusId: string;
  from: string;
  createdAt: number;
}

interface NotificationsQuery {
  limit?: string;
  max_id?: string;
  since_id?: string;
  min_id?: string;
  'types[]'?: string | string[];
}

export function registerMastoNotifications(app: FastifyInstance, ctx: MastoContext): void {
  app.get<{ Querystring: NotificationsQuery }>('/api/v1/notifications', (request, reply) =>
    notifications(ctx, request, reply),
  );
}

async function writeMention(
  ctx: MastoContext,
  from: string,
  to: string,
  text: string,
  parent: MastoStatus | undefined,
  visibility: 'public' | 'direct',
): Promise<string> {
  const { kit } = ctx;
  const author = accountOf(from);
  const id = await kit.snowflake();
  const status: MastoStatus = {
    id,
    accountId: author.id,
    username: author.username,
    text: `@${to} ${text}`,
    spoilerText: '',
    sensitive: false,
    visibility,
    language: 'en',
    inReplyToId: parent?.id ?? null,
    inReplyToAccountId: parent?.accountId ?? null,
    conversationId: parent?.conversationId ?? id,
    mediaIds: [],
    attachments: [],
    createdAt: kit.now(),
    deleted: false,
  };
  if (parent)
    await kit.store.insert<MastoThreadPart>(KIND.threadPart, id, { id }, threadKey(author.id, status.conversationId));
  await kit.store.put(KIND.status, id, status, author.id);
  const note: MastoNotification = { id: await kit.snowflake(), statusId: id, from, createdAt: kit.now() };
  await kit.store.insert(NOTIFICATION, note.id, note, accountOf(to).id);
  return id;
}

/** The control switch: replies (comment, reply), mentions and direct messages by simulated accounts. */
export async function injectMastodon(ctx: MastoContext, input: InboxInjection): Promise<InjectResult> {
  if (input.kind === 'review') return { error: 'Mastodon has no reviews.' };
  const owner = accountOf(input.account);
  const parentId =
    input.parent_id ??
    input.post_id ??
    (input.kind === 'comment' || input.kind === 'reply'
      ? (
          await ctx.kit.store.list<MastoStatus>(KIND.status, { owner: owner.id, match: { deleted: false }, limit: 1 })
        )[0]?.id
      : undefined);
  const parent = parentId ? await ctx.kit.store.get<MastoStatus>(KIND.status, parentId) : undefined;
  if (parentId && !parent) return { error: `No status ${parentId}.` };
  if ((input.kind === 'comment' || input.kind === 'reply') && !parent)
    return { error: `@${input.account} has no status to reply to.` };
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push(await writeMention(ctx, author, input.account, text, parent, input.kind === 'dm' ? 'direct' : 'public'));
  }
  return { ids };
}

async function notifications(
  ctx: MastoContext,
  request: FastifyRequest<{ Querystring: NotificationsQuery }>,
  reply: FastifyReply,
) {
  const { kit } = ctx;
  const g = await gate(ctx, request, reply, 'list_inbox');
  if (!g) return reply;
  const q = request.query;
  const limit = Math.min(80, Math.max(1, Number(q.limit ?? 40) || 40));
  const own = await kit.store.list<MastoStatus>(KIND.status, {
    owner: g.account.id,
    match: { deleted: false },
    limit: 50,
  });
  await runTrickle(kit, own, async (post, n) => {
    const { author, text } = trickleItem(post.id, n);
    await writeMention(ctx, author, g.account.username, text, post, 'public');
  });
  // min_id: the page just after it (oldest first, then shown newest first); since_id: the newest after it. Ids
  // are snowflakes, so an id the simulator never handed out (`min_id=0`: from the start) compares as a number.
  const page = q.min_id
    ? await pageAfter(ctx, g.account.id, q.min_id, limit)
    : await newest(ctx, g.account.id, q, limit);
  const host = hostOf(request, ctx.prefix);
  const out: Array<Record<string, unknown>> = [];
  for (const n of page) {
    const status = await kit.store.get<MastoStatus>(KIND.status, n.statusId);
    if (!status || status.deleted) continue;
    out.push({
      id: n.id,
      type: 'mention',
      created_at: new Date(n.createdAt).toISOString(),
      account: accountJson(accountOf(n.from), host),
      status: statusJson(ctx, status, request),
    });
  }
  if (page.length > 0) {
    const base = `${host}/api/v1/notifications`;
    reply.header(
      'link',
      `<${base}?max_id=${page.at(-1)!.id}>; rel="next", <${base}?min_id=${page[0]!.id}>; rel="prev"`,
    );
  }
  return out;
}

async function pageAfter(ctx: MastoContext, owner: string, minId: string, limit: number) {
  const store = ctx.kit.store;
  const held = await store.get<MastoNotification>(NOTIFICATION, minId);
  const list = held
    ? await store.list<MastoNotification>(NOTIFICATION, { owner, afterId: minId, ascending: true, limit })
    : (await store.list<MastoNotification>(NOTIFICATION, { owner, ascending: true }))
        .filter((n) => /^\d+$/.test(minId) && BigInt(n.id) > BigInt(minId))
        .slice(0, limit);
  return list.reverse();
}

function newest(ctx: MastoContext, owner: string, q: NotificationsQuery, limit: number) {
  return ctx.kit.store.list<MastoNotification>(NOTIFICATION, { owner, afterId: q.since_id, beforeId: q.max_id, limit });
}
