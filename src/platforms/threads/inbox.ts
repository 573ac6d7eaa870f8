// Threads' inbox (docs/inbox.md "Platforms"): replies to the account's own posts. Threads has no notification feed
// for them, so a poll lists the account's posts of the last LOOKBACK_DAYS (`GET /{user}/threads?since=`) and reads
// each one's conversation (`GET /{media-id}/conversation`, every reply at any depth, newest first, with
// `threads_read_replies`) down to the newest reply taken before. A reply to the post itself is a `comment`, a reply
// to a reply a `reply`; the account's own replies are ingested as `from_account`. An answer is a reply published like
// a thread part (a container with `reply_to_id`, on the replies quota). Mentions need `threads_manage_mentions` and
// DMs do not exist in the API: Herald reads neither.
import type { GraphClient } from '../meta/graph.ts';
import { graphTimeMs } from '../meta/graph.ts';
import {
  PlatformError,
  isPlatformError,
  type InboxCapability,
  type PlatformInboxItem,
  type PlatformSession,
  type PublishedPart,
} from '../types.ts';
import * as client from './client.ts';

/** How far back the account's posts are watched for replies. */
export const LOOKBACK_DAYS = 7;
const PAGE = 100;
/** Conversation pages read per post and poll (the rest waits for the next poll: `more`). */
const MAX_PAGES = 5;
const FIELDS = 'id,text,timestamp,permalink,shortcode,username,replied_to,root_post,is_reply';

interface ReplyNode extends client.ThreadsNode {
  root_post?: { id: string };
}

/** `since`: the newest reply time taken (ms); each poll reads the conversations down to it. */
interface ThreadsCursor {
  since?: number;
}

export interface ThreadsInboxDeps {
  graphOf(session: PlatformSession): GraphClient;
  /** Publishes `text` as a reply to the post or reply `id`. */
  reply(session: PlatformSession, id: string, text: string): Promise<PublishedPart>;
}

/** The replies under one post newer than `since`, newest first; whether older-than-read pages remain. */
async function conversation(
  g: GraphClient,
  token: string,
  postId: string,
  since: number,
): Promise<{ nodes: ReplyNode[]; more: boolean }> {
  const nodes: ReplyNode[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await g.call<{ data?: ReplyNode[]; paging?: { next?: string; cursors?: { after?: string } } }>({
      method: 'GET',
      path: `/${postId}/conversation`,
      params: { fields: FIELDS, reverse: 'true', limit: PAGE, after },
      token,
    });
    const data = answer.data ?? [];
    const fresh = data.filter((n) => (graphTimeMs(n.timestamp) ?? 0) >= since);
    nodes.push(...fresh);
    if (fresh.length < data.length || !answer.paging?.next || !answer.paging.cursors?.after)
      return { nodes, more: false };
    after = answer.paging.cursors.after;
  }
  return { nodes, more: true };
}

function itemOf(session: PlatformSession, post: string, n: ReplyNode): PlatformInboxItem {
  const root = n.root_post?.id ?? post;
  const parent = n.replied_to?.id ?? root;
  const username = n.username ?? null;
  const web = session.connection.sandbox
    ? `${session.connection.baseUrl}/web/@${username}/post/${n.shortcode ?? n.id}`
    : (n.permalink ?? null);
  return {
    kind: parent === root ? 'comment' : 'reply',
    id: n.id,
    postId: root,
    threadId: root,
    parentId: parent,
    author: { id: username ?? '', username, displayName: null, avatarUrl: null },
    text: n.text ?? '',
    url: web,
    createdAt: new Date(graphTimeMs(n.timestamp) ?? session.clock.now().getTime()).toISOString(),
    fromAccount: username !== null && username.toLowerCase() === session.connection.handle.toLowerCase(),
  };
}

export function threadsInbox(deps: ThreadsInboxDeps): InboxCapability {
  return {
    streams: ['comments'],
    privateReplies: false,
    async list(session, _stream, raw) {
      const cursor = (raw ?? {}) as ThreadsCursor;
      const g = deps.graphOf(session);
      const token = session.credentials.accessToken;
      const now = session.clock.now().getTime();
      const from = now - LOOKBACK_DAYS * 86_400_000;
      const since = Math.max(cursor.since ?? from, from);
      const posts = await client.recent(g, token, session.connection.accountId, 'threads', Math.floor(from / 1000));
      const items: PlatformInboxItem[] = [];
      let more = false;
      for (const post of posts) {
        const read = await conversation(g, token, post.id, since);
        more ||= read.more;
        items.push(...read.nodes.map((n) => itemOf(session, post.id, n)));
      }
      const newest = Math.max(since, ...items.map((i) => Date.parse(i.createdAt)));
      // A poll cut short keeps its `since`, so the next one reads the rest (the unique key drops what it re-reads).
      return { items, cursor: { since: more ? since : newest }, more: false };
    },
    async answer(session, target, text) {
      try {
        return await deps.reply(session, target.id, text);
      } catch (error) {
        // ⚠ unverified: Threads' wording for a reply to a deleted post; the simulator's is Graph's code 100/33.
        if (isPlatformError(error) && /replying to .*(does not exist|deleted)/i.test(error.message))
          throw new PlatformError('permanent', 'PLATFORM_ITEM_DELETED', error.message, {
            platformStatus: error.platformStatus,
            platformBody: error.platformBody,
          });
        throw error;
      }
    },
  };
}
