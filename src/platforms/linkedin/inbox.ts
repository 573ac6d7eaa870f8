// LinkedIn's inbox (docs/inbox.md "Platforms"): the comments on the connection's recent posts, through the Community
// Management API. A poll lists the author's newest posts (`GET /rest/posts?q=author`, up to RECENT_POSTS) and reads
// each one's comments (`GET /rest/socialActions/{post}/comments`, oldest first, `start`/`count`); the cursor keeps,
// per post, how many comments were taken, and re-reads a few before that so a deleted comment (which shifts the
// offsets) never hides a new one. Top-level comments are `comment`s, the account's own `fromAccount`. Answers are
// replies to the comment (`POST /rest/socialActions/{comment}/comments` with `parentComment`), as the connection's
// author (the member or the page). A 404 (the comment or post is gone) is PLATFORM_ITEM_DELETED. Reading members'
// comments needs r_member_social, which LinkedIn grants only to approved apps (docs/platforms/linkedin.md).
// Nested replies (the replies to a comment) are not read: only top-level comments reach the inbox.
import { mayBeThisPart } from '../lookup.ts';
import type { InboxCapability, OwnCommentCapability, PlatformInboxItem } from '../types.ts';
import { PlatformError, isPlatformError } from '../types.ts';
import { postsByAuthor, rest, type LiApi } from './client.ts';
import { connectionAuthor, postUrl } from './map.ts';
import { LINKEDIN_DEFAULT_VERSION } from './version.ts';

/** Posts whose comments a poll reads, newest first. */
const RECENT_POSTS = 20;
const PAGE = 100;
/** Comments re-read before the offset taken (deletions move the rest forward). */
const OVERLAP = 10;

interface LiCommentElement {
  id: string;
  commentUrn?: string;
  actor: string;
  object?: string;
  parentComment?: string;
  message?: { text?: string };
  created?: { time?: number };
}

interface LiCursor {
  /** Comments taken per post URN. */
  taken?: Record<string, number>;
}

export function linkedinInbox(
  version: string = LINKEDIN_DEFAULT_VERSION,
  web = 'https://www.linkedin.com',
): InboxCapability {
  const api = (s: { http: LiApi['http']; credentials: { accessToken: string } }): LiApi => ({
    http: s.http,
    token: s.credentials.accessToken,
    version,
  });
  return {
    streams: ['comments'],
    privateReplies: false,
    async list(session, _stream, raw) {
      const cursor = (raw ?? {}) as LiCursor;
      const liApi = api(session);
      const author = connectionAuthor(session.connection);
      const webBase = session.connection.sandbox ? `${session.connection.baseUrl}/web` : web;
      const { elements: posts } = await postsByAuthor(liApi, author, 0, RECENT_POSTS);
      const taken: Record<string, number> = {};
      const items: PlatformInboxItem[] = [];
      let more = false;
      for (const post of posts) {
        const before = cursor.taken?.[post.id] ?? 0;
        const start = Math.max(0, before - OVERLAP);
        const res = await rest(liApi, {
          method: 'GET',
          path: `/rest/socialActions/${encodeURIComponent(post.id)}/comments`,
          query: { start, count: PAGE },
        });
        const body = res.json<{ elements?: LiCommentElement[]; paging?: { total?: number } }>();
        const elements = body.elements ?? [];
        taken[post.id] = Math.max(before, start + elements.length);
        if ((body.paging?.total ?? 0) > start + elements.length) more = true;
        for (const c of elements) {
          if (c.parentComment) continue;
          const urn = c.commentUrn ?? `urn:li:comment:(${post.id},${c.id})`;
          items.push({
            kind: 'comment',
            id: urn,
            postId: post.id,
            threadId: urn,
            parentId: null,
            author: { id: c.actor, username: null, displayName: null, avatarUrl: null },
            text: c.message?.text ?? '',
            url: postUrl(webBase, post.id),
            createdAt: new Date(c.created?.time ?? Date.now()).toISOString(),
            fromAccount: c.actor === author,
          });
        }
      }
      return { items, cursor: { taken }, more };
    },
    async answer(session, target, text) {
      const author = connectionAuthor(session.connection);
      const webBase = session.connection.sandbox ? `${session.connection.baseUrl}/web` : web;
      try {
        const res = await rest(api(session), {
          method: 'POST',
          path: `/rest/socialActions/${encodeURIComponent(target.threadId)}/comments`,
          json: { actor: author, object: target.postId, parentComment: target.threadId, message: { text } },
        });
        const header = res.headers['x-restli-id'];
        const made = res.json<Partial<LiCommentElement>>();
        const id = made.commentUrn ?? (Array.isArray(header) ? header[0] : header);
        if (!id)
          throw new PlatformError(
            'unknown_outcome',
            'PLATFORM_UNKNOWN_OUTCOME',
            `LinkedIn answered ${res.status} without the comment's URN.`,
            { platformStatus: res.status },
          );
        return { id, url: postUrl(webBase, target.postId ?? '') };
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
}

/**
 * First comments (docs/platforms/linkedin.md "First comments"): a comment on the post by its own author, the member
 * or the organization it went out as (`POST /rest/socialActions/{post}/comments` without `parentComment`), found again
 * among the post's comments by that author, the text and the time.
 */
export function linkedinOwnComments(version: string = LINKEDIN_DEFAULT_VERSION): OwnCommentCapability {
  const api = (s: { http: LiApi['http']; credentials: { accessToken: string } }): LiApi => ({
    http: s.http,
    token: s.credentials.accessToken,
    version,
  });
  const authorOf = (session: Parameters<typeof connectionAuthor>[0], options: Record<string, unknown>) =>
    typeof options.organization === 'string' ? options.organization : connectionAuthor(session);
  return {
    async create(session, post, part) {
      const res = await rest(api(session), {
        method: 'POST',
        path: `/rest/socialActions/${encodeURIComponent(post.id)}/comments`,
        json: { actor: authorOf(session.connection, part.options), object: post.id, message: { text: part.text } },
      });
      const header = res.headers['x-restli-id'];
      const id = res.json<Partial<LiCommentElement>>().commentUrn ?? (Array.isArray(header) ? header[0] : header);
      if (!id)
        throw new PlatformError(
          'unknown_outcome',
          'PLATFORM_UNKNOWN_OUTCOME',
          `LinkedIn answered ${res.status} without the comment's URN.`,
          { platformStatus: res.status },
        );
      return { id, url: post.url };
    },
    async find(session, post, part) {
      const author = authorOf(session.connection, part.options);
      const wanted = part.text.normalize('NFC').trim();
      // Oldest first: the last pages hold the newest comments; a first comment is looked for among the newest PAGE.
      const path = `/rest/socialActions/${encodeURIComponent(post.id)}/comments`;
      const first = await rest(api(session), { method: 'GET', path, query: { start: 0, count: 0 } });
      const total = first.json<{ paging?: { total?: number } }>().paging?.total ?? 0;
      const res = await rest(api(session), {
        method: 'GET',
        path,
        query: { start: Math.max(0, total - PAGE), count: PAGE },
      });
      const match = (res.json<{ elements?: LiCommentElement[] }>().elements ?? []).find(
        (c) =>
          !c.parentComment &&
          c.actor === author &&
          (c.message?.text ?? '').normalize('NFC').trim() === wanted &&
          mayBeThisPart(part, { id: c.commentUrn ?? c.id, createdAt: c.created?.time }),
      );
      return match ? { id: match.commentUrn ?? `urn:li:comment:(${post.id},${match.id})`, url: post.url } : null;
    },
  };
}
