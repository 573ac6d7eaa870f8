// Google Business Profile's inbox (docs/inbox.md "Platforms"): the location's reviews, `GET
// /v4/{accounts/*/locations/*}/reviews` (scope business.manage, most recently updated first, 50 a page). Each review is
// a `review`; the owner's reply on it (`reviewReply`, made in Herald or elsewhere) is a `reply` from the account with
// id `<review>/reply`, so a human answer given outside Herald is seen. No "since" exists: a poll walks pages until a
// review updated before the newest time taken, which the cursor keeps. Answers are `PUT …/reviews/{r}/reply`
// (`{comment}`), which replaces any earlier owner reply; a 404 (the review was removed) is PLATFORM_ITEM_DELETED.
// Business Profile has no private replies and local posts take no comments.
import type { InboxCapability, PlatformInboxItem, PlatformSession } from '../types.ts';
import { PlatformError, isPlatformError } from '../types.ts';
import { call } from './client.ts';
import { locationOf } from './publish.ts';

const PAGE = 50;
const STARS: Record<string, number> = { ONE: 1, TWO: 2, THREE: 3, FOUR: 4, FIVE: 5 };

interface Review {
  name: string;
  reviewId?: string;
  reviewer?: { displayName?: string; profilePhotoUrl?: string; isAnonymous?: boolean };
  starRating?: string;
  comment?: string;
  createTime: string;
  updateTime?: string;
  reviewReply?: { comment: string; updateTime?: string };
}

interface GbpCursor {
  since?: string;
  next?: string;
  newest?: string;
}

/** Where a review is seen: the location's reviews on Google Maps (⚠ unverified URL form for real locations). */
function reviewUrl(session: PlatformSession, location: string): string {
  const id = location.slice(location.lastIndexOf('/') + 1);
  return session.connection.sandbox
    ? `${session.connection.baseUrl}/v4/${location}/reviews`
    : `https://business.google.com/reviews/l/${id}`;
}

function itemsOf(session: PlatformSession, location: string, r: Review): PlatformInboxItem[] {
  const stars = r.starRating ? STARS[r.starRating] : undefined;
  const text = r.comment ?? '';
  const review: PlatformInboxItem = {
    kind: 'review',
    id: r.name,
    postId: null,
    threadId: r.name,
    parentId: null,
    author: {
      // Reviews carry no reviewer id: the display name stands in (anonymous reviewers share one).
      id: r.reviewer?.isAnonymous ? 'anonymous' : (r.reviewer?.displayName ?? 'anonymous'),
      username: null,
      displayName: r.reviewer?.isAnonymous ? null : (r.reviewer?.displayName ?? null),
      avatarUrl: r.reviewer?.profilePhotoUrl ?? null,
    },
    text: stars === undefined ? text : `${'★'.repeat(stars)}${text ? ` ${text}` : ''}`,
    url: reviewUrl(session, location),
    createdAt: r.createTime,
    fromAccount: false,
  };
  if (!r.reviewReply) return [review];
  return [
    review,
    {
      kind: 'reply',
      id: `${r.name}/reply`,
      postId: null,
      threadId: r.name,
      parentId: r.name,
      author: { id: session.connection.accountId, username: null, displayName: null, avatarUrl: null },
      text: r.reviewReply.comment,
      url: reviewUrl(session, location),
      createdAt: r.reviewReply.updateTime ?? r.updateTime ?? r.createTime,
      fromAccount: true,
    },
  ];
}

export const googlebusinessInbox: InboxCapability = {
  streams: ['reviews'],
  privateReplies: false,
  async list(session, _stream, raw) {
    const cursor = (raw ?? {}) as GbpCursor;
    const location = locationOf(session);
    const res = await call(session.http, {
      method: 'GET',
      path: `/v4/${location}/reviews`,
      bearer: session.credentials.accessToken,
      query: { pageSize: PAGE, pageToken: cursor.next, orderBy: 'updateTime desc' },
    });
    const body = res.json<{ reviews?: Review[]; nextPageToken?: string }>();
    const items: PlatformInboxItem[] = [];
    let newest = cursor.newest;
    let crossed = false;
    for (const r of body.reviews ?? []) {
      const updated = r.updateTime ?? r.createTime;
      if (!newest || updated > newest) newest = updated;
      if (cursor.since && updated < cursor.since) {
        crossed = true;
        break;
      }
      items.push(...itemsOf(session, location, r));
    }
    if (body.nextPageToken && !crossed)
      return { items, cursor: { since: cursor.since, next: body.nextPageToken, newest }, more: true };
    return { items, cursor: { since: newest ?? cursor.since }, more: false };
  },
  async answer(session, target, text) {
    const review = target.kind === 'reply' ? target.threadId : target.id;
    try {
      await call(session.http, {
        method: 'PUT',
        path: `/v4/${review}/reply`,
        bearer: session.credentials.accessToken,
        json: { comment: text },
      });
      const location = review.slice(0, review.indexOf('/reviews/'));
      return { id: `${review}/reply`, url: reviewUrl(session, location) };
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
