// The public page of a Mastodon status (its sandbox URL), shown as Mastodon shows it: the account, the text with
// links, the media, and the thread it belongs to — read from the thread's own parts (`thread-part`), so a page
// costs the length of its thread, not the account's history.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { accountOf, hostOf } from './auth.ts';
import { KIND, threadKey, type MastoContext, type MastoStatus, type MastoThreadPart } from './state.ts';

/** The thread a status belongs to, as Mastodon shows it: the author's chain from the first status, through this one, to the last reply. */
function threadOf(status: MastoStatus, conversation: MastoStatus[]): MastoStatus[] {
  const byId = new Map(conversation.map((s) => [s.id, s]));
  const chain: MastoStatus[] = [];
  for (let s: MastoStatus | undefined = status; s; s = s.inReplyToId ? byId.get(s.inReplyToId) : undefined)
    chain.unshift(s);
  for (let next = conversation.find((s) => s.inReplyToId === status.id); next;) {
    chain.push(next);
    const id: string = next.id;
    next = conversation.find((s) => s.inReplyToId === id);
  }
  return chain;
}

/** The public page of a status (its sandbox URL): the account, the text with links, the media, the thread, the time. */
export async function statusPage(
  ctx: MastoContext,
  request: FastifyRequest<{ Params: { username: string; id: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const s = await store.get<MastoStatus>(KIND.status, request.params.id);
  if (!s || s.deleted) return sendMissingPost(reply, 'Mastodon');
  // The account's parts of this conversation: the thread's own documents, however long the account's history.
  const parts = await store.list<MastoThreadPart>(KIND.threadPart, {
    owner: threadKey(s.accountId, s.conversationId),
    ascending: true,
  });
  // The conversation's first status has no part of its own: its id is the conversation's.
  const ids = [...new Set([s.conversationId, ...parts.map((p) => p.id)])];
  const conversation = (await Promise.all(ids.map((id) => store.get<MastoStatus>(KIND.status, id)))).filter(
    (part): part is MastoStatus => part !== undefined && !part.deleted && part.accountId === s.accountId,
  );
  const h = hostOf(request, ctx.prefix);
  const account = accountOf(s.username);
  return sendPostPage(reply, {
    platform: 'Mastodon',
    accent: '#6364FF',
    noun: 'Post',
    account: {
      name: account.displayName,
      handle: `@${account.username}@${String(request.headers.host ?? 'sandbox.invalid')}`,
      url: `${h}/@${account.username}`,
    },
    parts: threadOf(s, conversation).map((part) => ({
      text: part.spoilerText ? `${part.spoilerText}\n\n${part.text}` : part.text,
      media: part.attachments.map((a) => ({
        url: `${h}/media/${a.id}`,
        kind: a.type === 'video' ? ('video' as const) : ('image' as const),
        alt: a.description,
      })),
      createdAt: part.createdAt,
      url: `${h}/@${part.username}/${part.id}`,
    })),
  });
}
