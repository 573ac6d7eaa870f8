// Instagram's inbox (docs/inbox.md "Platforms"): comments on the account's own media and the replies under them
// (`instagram_business_manage_comments`). A poll lists the account's recent media (`GET /{user}/media`) of the last
// LOOKBACK_DAYS and reads each one's comments with their replies expanded (`GET /{media}/comments?fields=…,
// replies{…}`), keeping those at or after the newest taken before. A top-level comment is a `comment`, a reply under
// it a `reply`; the account's own are ingested as `from_account`. An answer is a reply to the comment
// (`POST /{comment}/replies`; Instagram threads one level deep, so an answer to a reply goes under its top-level
// comment, kept in the item's `ref`). Mentions arrive only by webhook and DMs and private replies need
// `instagram_business_manage_messages`, which Herald does not ask for: it reads neither.
import type { GraphClient } from '../meta/graph.ts';
import { graphTimeMs } from '../meta/graph.ts';
import {
  PlatformError,
  isPlatformError,
  type InboxCapability,
  type PlatformInboxItem,
  type PlatformSession,
} from '../types.ts';
import * as client from './client.ts';

/** How far back the account's media are watched for comments. */
export const LOOKBACK_DAYS = 7;
const COMMENT_FIELDS = 'id,text,timestamp,username,from';
const FIELDS = `${COMMENT_FIELDS},replies{${COMMENT_FIELDS}}`;

interface CommentNode {
  id: string;
  text?: string;
  timestamp?: string;
  username?: string;
  from?: { id: string; username?: string };
  replies?: { data?: CommentNode[] };
}

export interface InstagramInboxDeps {
  graphOf(session: PlatformSession): GraphClient;
  /** The media's web address (for an item's permalink). */
  mediaUrl(session: PlatformSession, media: client.IgMediaNode): string;
}

function itemOf(
  session: PlatformSession,
  media: client.IgMediaNode,
  url: string,
  c: CommentNode,
  top: CommentNode | null,
): PlatformInboxItem {
  const username = c.from?.username ?? c.username ?? null;
  return {
    kind: top ? 'reply' : 'comment',
    id: c.id,
    postId: media.id,
    threadId: media.id,
    parentId: top ? top.id : media.id,
    author: { id: c.from?.id ?? username ?? '', username, displayName: null, avatarUrl: null },
    text: c.text ?? '',
    url,
    createdAt: new Date(graphTimeMs(c.timestamp) ?? session.clock.now().getTime()).toISOString(),
    fromAccount:
      c.from?.id === session.connection.accountId ||
      (username !== null && username.toLowerCase() === session.connection.handle.toLowerCase()),
    ref: { reply_to: top ? top.id : c.id },
  };
}

export function instagramInbox(deps: InstagramInboxDeps): InboxCapability {
  return {
    streams: ['comments'],
    privateReplies: false,
    async list(session, _stream, raw) {
      const g = deps.graphOf(session);
      const token = session.credentials.accessToken;
      const now = session.clock.now().getTime();
      const from = now - LOOKBACK_DAYS * 86_400_000;
      const since = Math.max(typeof raw?.since === 'number' ? raw.since : from, from);
      const media = (await client.recentMedia(g, token, session.connection.accountId, 'media')).filter(
        (m) => (graphTimeMs(m.timestamp) ?? now) >= from,
      );
      const items: PlatformInboxItem[] = [];
      for (const m of media) {
        const body = await g.call<{ data?: CommentNode[] }>({
          method: 'GET',
          path: `/${m.id}/comments`,
          params: { fields: FIELDS },
          token,
        });
        const url = deps.mediaUrl(session, m);
        for (const c of body.data ?? []) {
          items.push(itemOf(session, m, url, c, null));
          for (const r of c.replies?.data ?? []) items.push(itemOf(session, m, url, r, c));
        }
      }
      const fresh = items.filter((i) => Date.parse(i.createdAt) >= since);
      const newest = Math.max(since, ...fresh.map((i) => Date.parse(i.createdAt)));
      return { items: fresh, cursor: { since: newest }, more: false };
    },
    async answer(session, target, text) {
      const to = target.ref?.reply_to ?? target.id;
      try {
        const answer = await deps.graphOf(session).call<{ id: string }>({
          method: 'POST',
          path: `/${to}/replies`,
          params: { message: text },
          token: session.credentials.accessToken,
        });
        return { id: answer.id, url: '' };
      } catch (error) {
        // Graph's "Object with ID … does not exist" (code 100, subcode 33): the comment was deleted.
        if (isPlatformError(error) && /does not exist/i.test(error.message))
          throw new PlatformError('permanent', 'PLATFORM_ITEM_DELETED', error.message, {
            platformStatus: error.platformStatus,
            platformBody: error.platformBody,
          });
        throw error;
      }
    },
  };
}
