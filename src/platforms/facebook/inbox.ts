// Facebook's inbox (docs/inbox.md "Platforms"): comments on the Page's posts and the replies under them. A poll
// lists the Page's posts of the last LOOKBACK_DAYS (`GET /{page}/feed?since=`) and reads each one's comments with
// their replies (`GET /{post}/comments?filter=stream&order=reverse_chronological`) down to the newest time taken. A
// top-level comment is a `comment`, a reply under it a `reply`; the Page's own are `from_account`. An answer is a
// comment on the item (`POST /{comment}/comments`, as the Page). Page conversations (Messenger) need
// `pages_messaging`, which Herald does not ask for: it reads none, and offers no private replies.
import type { GraphClient } from '../meta/graph.ts';
import { graphTimeMs } from '../meta/graph.ts';
import { lookupSince, mayBeThisPart } from '../lookup.ts';
import {
  PlatformError,
  isPlatformError,
  type InboxCapability,
  type OwnCommentCapability,
  type PlatformInboxItem,
  type PlatformSession,
} from '../types.ts';
import * as client from './client.ts';
import { comparable, mediaRef } from './map.ts';

/** How far back the Page's posts are watched for comments. */
export const LOOKBACK_DAYS = 7;
const PAGE = 100;
const MAX_PAGES = 5;

interface CommentNode {
  id: string;
  message?: string;
  created_time?: string;
  from?: { id: string; name?: string };
  parent?: { id: string };
}

export interface FacebookInboxDeps {
  graphOf(session: PlatformSession): GraphClient;
  /** A Page post's web address. */
  postUrl(session: PlatformSession, postId: string): string;
}

async function commentsSince(g: GraphClient, token: string, postId: string, since: number): Promise<CommentNode[]> {
  const out: CommentNode[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await g.call<{ data?: CommentNode[]; paging?: { next?: string; cursors?: { after?: string } } }>({
      method: 'GET',
      path: `/${encodeURIComponent(postId)}/comments`,
      params: {
        fields: 'id,message,created_time,from,parent',
        filter: 'stream',
        order: 'reverse_chronological',
        limit: PAGE,
        after,
      },
      token,
    });
    const data = answer.data ?? [];
    const fresh = data.filter((c) => (graphTimeMs(c.created_time) ?? 0) >= since);
    out.push(...fresh);
    if (fresh.length < data.length || !answer.paging?.next || !answer.paging.cursors?.after) break;
    after = answer.paging.cursors.after;
  }
  return out;
}

export function facebookInbox(deps: FacebookInboxDeps): InboxCapability {
  return {
    streams: ['comments'],
    privateReplies: false,
    async list(session, _stream, raw) {
      const g = deps.graphOf(session);
      const token = session.credentials.accessToken;
      const now = session.clock.now().getTime();
      const from = now - LOOKBACK_DAYS * 86_400_000;
      const since = Math.max(typeof raw?.since === 'number' ? raw.since : from, from);
      const posts = await client.feed(g, token, session.connection.accountId, Math.floor(from / 1000), 3);
      const items: PlatformInboxItem[] = [];
      for (const post of posts) {
        const url = deps.postUrl(session, post.id);
        for (const c of await commentsSince(g, token, post.id, since))
          items.push({
            kind: c.parent ? 'reply' : 'comment',
            id: c.id,
            postId: post.id,
            threadId: post.id,
            parentId: c.parent?.id ?? post.id,
            author: { id: c.from?.id ?? '', username: null, displayName: c.from?.name ?? null, avatarUrl: null },
            text: c.message ?? '',
            url,
            createdAt: new Date(graphTimeMs(c.created_time) ?? now).toISOString(),
            fromAccount: c.from?.id === session.connection.accountId,
          });
      }
      const newest = Math.max(since, ...items.map((i) => Date.parse(i.createdAt)));
      return { items, cursor: { since: newest }, more: false };
    },
    async answer(session, target, text) {
      try {
        const answer = await deps.graphOf(session).call<{ id: string }>({
          method: 'POST',
          path: `/${encodeURIComponent(target.id)}/comments`,
          params: { message: text },
          token: session.credentials.accessToken,
        });
        return { id: answer.id, url: target.postId ? deps.postUrl(session, target.postId) : '' };
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

/**
 * First comments (docs/platforms/facebook.md "First comments"): a comment on the Page's post, as the Page
 * (`POST /{post}/comments`, with its one photo as `attachment_id`), found again among the post's comments by the
 * Page's id, the text and the time.
 */
export function facebookOwnComments(deps: FacebookInboxDeps): OwnCommentCapability {
  return {
    async create(session, post, part) {
      // Its photo, uploaded unpublished by prepareMedia as a post's are, goes as `attachment_id`.
      const photo = part.media[0] ? mediaRef(part.media[0]) : undefined;
      if (photo && photo.type !== 'photo')
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          'A Facebook comment takes a photo only.',
        );
      const answer = await deps.graphOf(session).call<{ id: string }>({
        method: 'POST',
        path: `/${encodeURIComponent(post.id)}/comments`,
        params: { message: part.text, ...(photo ? { attachment_id: photo.id } : {}) },
        token: session.credentials.accessToken,
      });
      return { id: answer.id, url: post.url };
    },
    async find(session, post, part) {
      const token = session.credentials.accessToken;
      const listed = await commentsSince(deps.graphOf(session), token, post.id, lookupSince(part));
      const wanted = comparable(part.text);
      const match = listed.find(
        (c) =>
          !c.parent &&
          c.from?.id === session.connection.accountId &&
          comparable(c.message) === wanted &&
          mayBeThisPart(part, { id: c.id, createdAt: graphTimeMs(c.created_time) }),
      );
      return match ? { id: match.id, url: post.url } : null;
    },
  };
}
