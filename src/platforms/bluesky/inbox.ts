// Bluesky's inbox (docs/inbox.md "Platforms"): `app.bsky.notification.listNotifications` with
// `reasons[]=reply,mention,quote` lists replies to the account's posts and in its threads, mentions of it and quotes
// of its posts, newest first, paged backwards with an opaque cursor. A poll walks from the newest down to the newest
// item taken before (by `indexedAt`). A reply to the account's own post is a `comment` (deeper: `reply`); a mention
// or a quote is a `mention`. An answer is a post replying to the item, whose reply ref needs the item's uri and cid
// and its thread root's: kept in the item's `ref` (inbox_items.platform_ref). Bluesky's DMs live in a separate chat
// service an app password reaches only with its own grant: Herald reads none.
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  isPlatformError,
  type InboxCapability,
  type PlatformInboxItem,
  type PlatformSession,
} from '../types.ts';
import { createRecord, getPosts, xrpc } from './client.ts';
import { newTid } from './tid.ts';

const PAGE = 50;
const COLLECTION = 'app.bsky.feed.post';

interface Ref {
  uri: string;
  cid: string;
}

interface Notification {
  uri: string;
  cid: string;
  author: { did: string; handle: string; displayName?: string; avatar?: string };
  reason: string;
  reasonSubject?: string;
  record: { text?: string; createdAt?: string; reply?: { root: Ref; parent: Ref } };
  indexedAt: string;
}

/** `since`: the newest `indexedAt` taken; `next`/`newest` while an older page of the same poll is pending. */
interface BskyCursor {
  since?: string;
  next?: string;
  newest?: string;
}

async function notifications(http: PlatformHttp, token: string, cursor: string | undefined) {
  const res = await xrpc(http, {
    method: 'GET',
    path: 'app.bsky.notification.listNotifications',
    bearer: token,
    query: { limit: PAGE, cursor, 'reasons[]': ['reply', 'mention', 'quote'] },
  });
  return res.json<{ notifications: Notification[]; cursor?: string }>();
}

const rkeyOf = (uri: string) => uri.split('/').pop()!;
const didOf = (uri: string) => uri.replace(/^at:\/\//, '').split('/')[0]!;

function itemOf(session: PlatformSession, n: Notification): PlatformInboxItem {
  const me = session.connection.accountId;
  const reply = n.record.reply;
  const root = reply?.root ?? { uri: n.uri, cid: n.cid };
  const kind =
    n.reason === 'reply' && reply
      ? reply.parent.uri === reply.root.uri && didOf(reply.root.uri) === me
        ? 'comment'
        : 'reply'
      : 'mention';
  const onOwnPost = didOf(root.uri) === me ? root.uri : n.reason === 'quote' ? (n.reasonSubject ?? null) : null;
  const base = session.connection.sandbox ? session.connection.baseUrl : 'https://bsky.app';
  return {
    kind,
    id: n.uri,
    postId: onOwnPost,
    threadId: root.uri,
    parentId: reply?.parent.uri ?? null,
    author: {
      id: n.author.did,
      username: n.author.handle,
      displayName: n.author.displayName || null,
      avatarUrl: n.author.avatar ?? null,
    },
    text: n.record.text ?? '',
    url: `${base}/profile/${n.author.handle}/post/${rkeyOf(n.uri)}`,
    createdAt: n.record.createdAt ?? n.indexedAt,
    fromAccount: n.author.did === me,
    ref: { uri: n.uri, cid: n.cid, root_uri: root.uri, root_cid: root.cid },
  };
}

export const blueskyInbox: InboxCapability = {
  streams: ['mentions'],
  privateReplies: false,
  async list(session, _stream, raw) {
    const cursor = (raw ?? {}) as BskyCursor;
    const answer = await notifications(session.http, session.credentials.accessToken, cursor.next);
    const fresh = answer.notifications.filter((n) => cursor.since === undefined || n.indexedAt >= cursor.since);
    const items = fresh.map((n) => itemOf(session, n));
    const newest = cursor.newest ?? answer.notifications[0]?.indexedAt ?? cursor.since;
    // An older page is still new when this one was full of new items and the platform gave a cursor.
    if (answer.cursor && fresh.length === answer.notifications.length && fresh.length > 0)
      return { items, cursor: { since: cursor.since, next: answer.cursor, newest }, more: true };
    return { items, cursor: newest ? { since: newest } : null, more: false };
  },
  async answer(session, target, text) {
    const ref = target.ref;
    if (!ref?.uri || !ref.cid || !ref.root_uri || !ref.root_cid)
      throw new PlatformError(
        'permanent',
        'PLATFORM_REJECTED',
        'This Bluesky item was ingested without the references a reply needs (uri and cid of it and its root).',
      );
    // The AppView leaves a deleted post out: a reply to it would hang under nothing.
    const [view] = await getPosts(session.http, session.credentials.accessToken, [ref.uri]);
    if (!view)
      throw new PlatformError('permanent', 'PLATFORM_ITEM_DELETED', `Bluesky no longer has the post ${ref.uri}.`);
    const record = {
      $type: COLLECTION,
      text,
      createdAt: new Date(session.clock.now()).toISOString(),
      reply: { root: { uri: ref.root_uri, cid: ref.root_cid }, parent: { uri: ref.uri, cid: ref.cid } },
    };
    try {
      const created = await createRecord(session.http, session.credentials.accessToken, {
        repo: session.connection.accountId,
        collection: COLLECTION,
        rkey: newTid(new Date(session.clock.now())),
        record,
      });
      const base = session.connection.sandbox ? session.connection.baseUrl : 'https://bsky.app';
      return { id: created.uri, url: `${base}/profile/${session.connection.handle}/post/${rkeyOf(created.uri)}` };
    } catch (error) {
      if (isPlatformError(error) && /does not reference an existing post/.test(error.message))
        throw new PlatformError('permanent', 'PLATFORM_ITEM_DELETED', error.message, {
          platformStatus: error.platformStatus,
          platformBody: error.platformBody,
        });
      throw error;
    }
  },
};
