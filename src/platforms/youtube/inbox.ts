// YouTube's inbox (docs/inbox.md "Platforms"): `commentThreads.list?allThreadsRelatedToChannelId=<channel>
// &part=snippet,replies` (scope youtube.force-ssl, 1 quota unit a page) lists the threads on the channel's videos,
// most recently active first; a top-level comment is a `comment`, each reply in its thread a `reply`, the channel's
// own replies `fromAccount`. YouTube has no "since": a poll walks pages until a thread older than the newest
// activity taken, and the cursor keeps that time. Answers are `comments.insert?part=snippet` with
// `snippet.parentId` the thread's top-level comment (YouTube threads are one level deep), 50 units each. A 404
// (comment or video gone) is PLATFORM_ITEM_DELETED; quotaExceeded waits for midnight Pacific (client.ts).
import { mayBeThisPart } from '../lookup.ts';
import type { InboxCapability, OwnCommentCapability, PlatformInboxItem, PlatformSession } from '../types.ts';
import { PlatformError, isPlatformError } from '../types.ts';
import { call } from './client.ts';
import { watchUrl } from './map.ts';

const PAGE = 100;

interface CommentResource {
  id: string;
  snippet: {
    videoId?: string;
    textOriginal?: string;
    textDisplay?: string;
    parentId?: string;
    authorDisplayName?: string;
    authorProfileImageUrl?: string;
    authorChannelId?: { value?: string };
    publishedAt: string;
    updatedAt?: string;
  };
}

interface ThreadResource {
  id: string;
  snippet: { videoId?: string; topLevelComment: CommentResource };
  replies?: { comments?: CommentResource[] };
}

interface YtCursor {
  /** The newest activity taken by the last finished poll (ISO time). */
  since?: string;
  /** While a poll walks older pages: the next page and the newest activity of its first page. */
  next?: string;
  newest?: string;
}

function item(session: PlatformSession, c: CommentResource, thread: ThreadResource): PlatformInboxItem {
  const s = c.snippet;
  const author = s.authorChannelId?.value ?? '';
  const videoId = s.videoId ?? thread.snippet.videoId ?? null;
  return {
    kind: s.parentId ? 'reply' : 'comment',
    id: c.id,
    postId: videoId,
    threadId: thread.id,
    parentId: s.parentId ?? null,
    author: {
      id: author,
      username: null,
      displayName: s.authorDisplayName ?? null,
      avatarUrl: s.authorProfileImageUrl ?? null,
    },
    text: s.textOriginal ?? s.textDisplay ?? '',
    url: videoId ? `${watchUrl(session, videoId)}&lc=${encodeURIComponent(c.id)}` : null,
    createdAt: s.publishedAt,
    fromAccount: author === session.connection.accountId,
  };
}

export const youtubeInbox: InboxCapability = {
  streams: ['comments'],
  privateReplies: false,
  async list(session, _stream, raw) {
    const cursor = (raw ?? {}) as YtCursor;
    const res = await call(session.http, {
      method: 'GET',
      path: '/youtube/v3/commentThreads',
      bearer: session.credentials.accessToken,
      query: {
        part: 'snippet,replies',
        allThreadsRelatedToChannelId: session.connection.accountId,
        maxResults: PAGE,
        order: 'time',
        textFormat: 'plainText',
        pageToken: cursor.next,
      },
    });
    const body = res.json<{ items?: ThreadResource[]; nextPageToken?: string }>();
    const items: PlatformInboxItem[] = [];
    let newest = cursor.newest;
    let crossed = false;
    for (const thread of body.items ?? []) {
      const comments = [thread.snippet.topLevelComment, ...(thread.replies?.comments ?? [])];
      const activity = comments.map((c) => c.snippet.publishedAt).reduce((a, b) => (a > b ? a : b));
      if (!newest || activity > newest) newest = activity;
      // Threads come most recently active first: one older than the last poll's newest ends the walk.
      if (cursor.since && activity < cursor.since) {
        crossed = true;
        break;
      }
      for (const c of comments) items.push(item(session, c, thread));
    }
    if (body.nextPageToken && !crossed)
      return { items, cursor: { since: cursor.since, next: body.nextPageToken, newest }, more: true };
    return { items, cursor: { since: newest ?? cursor.since }, more: false };
  },
  async answer(session, target, text) {
    // Replies answer the thread's top-level comment: YouTube has no deeper level.
    const parentId = target.kind === 'reply' ? target.threadId : target.id;
    try {
      const res = await call(session.http, {
        method: 'POST',
        path: '/youtube/v3/comments',
        bearer: session.credentials.accessToken,
        query: { part: 'snippet' },
        json: { snippet: { parentId, textOriginal: text } },
      });
      const made = res.json<CommentResource>();
      const videoId = made.snippet.videoId ?? target.postId ?? '';
      return { id: made.id, url: `${watchUrl(session, videoId)}&lc=${encodeURIComponent(made.id)}` };
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

/**
 * First comments (docs/platforms/youtube.md "First comments"): a top-level comment on the video as its channel
 * (`commentThreads.insert?part=snippet`, 50 units), found again among the channel's most recently active threads
 * (one page of `commentThreads.list`) by the video, the channel, the text and the time.
 */
export const youtubeOwnComments: OwnCommentCapability = {
  async create(session, post, part) {
    const res = await call(session.http, {
      method: 'POST',
      path: '/youtube/v3/commentThreads',
      bearer: session.credentials.accessToken,
      query: { part: 'snippet' },
      json: { snippet: { videoId: post.id, topLevelComment: { snippet: { textOriginal: part.text } } } },
    });
    const made = res.json<ThreadResource>();
    return { id: made.id, url: `${watchUrl(session, post.id)}&lc=${encodeURIComponent(made.id)}` };
  },
  async find(session, post, part) {
    const res = await call(session.http, {
      method: 'GET',
      path: '/youtube/v3/commentThreads',
      bearer: session.credentials.accessToken,
      query: {
        part: 'snippet',
        allThreadsRelatedToChannelId: session.connection.accountId,
        maxResults: PAGE,
        order: 'time',
        textFormat: 'plainText',
      },
    });
    const wanted = part.text.normalize('NFC').trim();
    const match = (res.json<{ items?: ThreadResource[] }>().items ?? []).find((thread) => {
      const s = thread.snippet.topLevelComment.snippet;
      return (
        (s.videoId ?? thread.snippet.videoId) === post.id &&
        s.authorChannelId?.value === session.connection.accountId &&
        (s.textOriginal ?? '').normalize('NFC').trim() === wanted &&
        mayBeThisPart(part, { id: thread.id, createdAt: Date.parse(s.publishedAt) })
      );
    });
    return match ? { id: match.id, url: `${watchUrl(session, post.id)}&lc=${encodeURIComponent(match.id)}` } : null;
  },
};
