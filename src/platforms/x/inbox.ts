// X's inbox (docs/platforms/x.md "Metrics and inbox"): `GET /2/users/:id/mentions` lists the posts that mention
// the account, which includes every reply to its posts (a reply starts with the @username of who it answers).
// A reply to one of the account's posts is a `comment` (deeper: `reply`), any other mention a `mention`. Answers are
// posts replying to the item (`POST /2/tweets` with `reply.in_reply_to_tweet_id`). Direct messages need the
// `dm.read`/`dm.write` scopes, which Herald does not ask for: X is not polled for DMs.
import type { PlatformHttp } from '../http-contract.ts';
import type { InboxCapability, PlatformInboxItem, PlatformSession } from '../types.ts';
import { call, createTweet, type XTweetData } from './client.ts';

const PAGE = 100;

interface MentionData extends XTweetData {
  author_id?: string;
  conversation_id?: string;
}

interface MentionsAnswer {
  data?: MentionData[];
  includes?: { users?: Array<{ id: string; username: string; name: string; profile_image_url?: string }> };
  meta?: { newest_id?: string; next_token?: string };
}

/** The cursor: `since` is the newest id taken; `next`/`newest` while an older page of the same poll is pending. */
interface XCursor {
  since?: string;
  next?: string;
  newest?: string;
}

async function mentions(http: PlatformHttp, token: string, userId: string, cursor: XCursor): Promise<MentionsAnswer> {
  const res = await call(http, {
    method: 'GET',
    path: `/2/users/${encodeURIComponent(userId)}/mentions`,
    bearer: token,
    query: {
      max_results: PAGE,
      since_id: cursor.since,
      pagination_token: cursor.next,
      'tweet.fields': 'created_at,author_id,conversation_id,referenced_tweets',
      expansions: 'author_id',
      'user.fields': 'profile_image_url',
    },
  });
  return res.json<MentionsAnswer>();
}

export function xInbox(postUrl: (s: PlatformSession, handle: string, id: string) => string): InboxCapability {
  return {
    streams: ['mentions'],
    privateReplies: false,
    async list(session, _stream, raw) {
      const cursor = (raw ?? {}) as XCursor;
      const answer = await mentions(
        session.http,
        session.credentials.accessToken,
        session.connection.accountId,
        cursor,
      );
      const users = new Map((answer.includes?.users ?? []).map((u) => [u.id, u]));
      const items: PlatformInboxItem[] = (answer.data ?? []).map((t) => {
        const parent = t.referenced_tweets?.find((r) => r.type === 'replied_to')?.id ?? null;
        const author = users.get(t.author_id ?? '');
        const root = t.conversation_id ?? t.id;
        const kind = parent === null ? 'mention' : parent === root ? 'comment' : 'reply';
        return {
          kind,
          id: t.id,
          postId: parent === null ? null : root,
          threadId: root,
          parentId: parent,
          author: {
            id: t.author_id ?? '',
            username: author?.username ?? null,
            displayName: author?.name ?? null,
            avatarUrl: author?.profile_image_url ?? null,
          },
          text: t.text,
          url: postUrl(session, author?.username ?? 'i', t.id),
          createdAt: t.created_at ?? new Date(session.clock.now()).toISOString(),
          fromAccount: t.author_id === session.connection.accountId,
        };
      });
      const newest = cursor.newest ?? answer.meta?.newest_id ?? cursor.since;
      if (answer.meta?.next_token)
        return { items, cursor: { since: cursor.since, next: answer.meta.next_token, newest }, more: true };
      return { items, cursor: newest ? { since: newest } : null, more: false };
    },
    async answer(session, target, text) {
      const data = await createTweet(session.http, session.credentials.accessToken, {
        text,
        reply: { in_reply_to_tweet_id: target.id },
      });
      return { id: data.id, url: postUrl(session, session.connection.handle, data.id) };
    },
  };
}
