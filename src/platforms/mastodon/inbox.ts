// Mastodon's inbox (docs/platforms/mastodon.md "Metrics and inbox"): `GET /api/v1/notifications?types[]=mention`
// (scope `read`) lists replies to the account's statuses, mentions, and direct messages (a status of visibility
// `direct` mentioning it), walked forward with `min_id` from the newest one taken. Answers are statuses replying
// to the item (`in_reply_to_id`), `direct` and addressed to its author for a direct message.
import { randomUUID } from 'node:crypto';
import type { InboxCapability, PlatformInboxItem } from '../types.ts';
import { PlatformError, isPlatformError } from '../types.ts';
import { call, postStatus } from './client.ts';

const PAGE = 40;

interface Notification {
  id: string;
  type: string;
  created_at: string;
  account: { id: string; username: string; acct?: string; display_name?: string; avatar?: string };
  status?: {
    id: string;
    url: string | null;
    uri: string;
    created_at: string;
    in_reply_to_id: string | null;
    in_reply_to_account_id: string | null;
    visibility: string;
    content: string;
  };
}

/** The text of a status's HTML content (paragraphs and line breaks as new lines, entities decoded). */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p>/gi, '\n\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export const mastodonInbox: InboxCapability = {
  streams: ['mentions'],
  privateReplies: true,
  async list(session, _stream, raw) {
    // From the start of the account's notifications the first time (`min_id=0`), then after the newest taken.
    const since = typeof raw?.min_id === 'string' ? raw.min_id : '0';
    const res = await call(session.http, {
      method: 'GET',
      path: '/api/v1/notifications',
      bearer: session.credentials.accessToken,
      query: { 'types[]': ['mention'], limit: PAGE, min_id: since },
    });
    const page = res.json<Notification[]>();
    const items: PlatformInboxItem[] = [];
    for (const n of page) {
      const s = n.status;
      if (n.type !== 'mention' || !s) continue;
      const direct = s.visibility === 'direct';
      const own = s.in_reply_to_account_id === session.connection.accountId;
      items.push({
        kind: direct ? 'dm' : s.in_reply_to_id === null ? 'mention' : own ? 'comment' : 'reply',
        id: s.id,
        postId: direct ? null : s.in_reply_to_id,
        threadId: s.in_reply_to_id ?? s.id,
        parentId: s.in_reply_to_id,
        author: {
          id: n.account.id,
          username: n.account.acct ?? n.account.username,
          displayName: n.account.display_name || null,
          avatarUrl: n.account.avatar ?? null,
        },
        text: plainText(s.content),
        url: s.url ?? s.uri,
        createdAt: s.created_at,
        fromAccount: n.account.id === session.connection.accountId,
      });
    }
    // The answer is newest first; the next poll starts after the newest of this page.
    return { items, cursor: { min_id: page[0]?.id ?? since }, more: page.length === PAGE };
  },
  async answer(session, target, text, options) {
    const direct = target.kind === 'dm' || options.private;
    const body = {
      status: direct && target.author.username ? `@${target.author.username} ${text}` : text,
      in_reply_to_id: target.id,
      visibility: direct ? 'direct' : 'public',
    };
    try {
      const s = await postStatus(session.http, session.credentials.accessToken, randomUUID(), body);
      return { id: s.id, url: s.url ?? s.uri };
    } catch (error) {
      if (isPlatformError(error) && error.platformStatus === 404)
        throw new PlatformError('permanent', 'PLATFORM_ITEM_DELETED', error.message, {
          platformStatus: 404,
          platformBody: error.platformBody,
        });
      throw error;
    }
  },
};
