// What the Threads simulator keeps, all of it in its store (kit.store), so published threads and their media survive
// a restart and every node serves the same ones: containers (meta/containers.ts), published posts and replies (kind
// POST, owner: the account's edge, `edgeOwner`), two indexes of replies (REPLY_OF, owner: the post replied to, for a post's replies edge;
// THREAD_PART, owner: `threadKey`, for a post's page), the rolling quotas of posts, replies and deletions
// (meta/quotas.ts) and the OAuth's spent codes (meta/oauth.ts). Accounts are not kept: each is rebuilt from the
// username its token carries (auth.ts).
import type { MediaFile } from '../meta/media-files.ts';

/** The store kind of published posts and replies. */
export const POST = 'post';
/** A reply listed under the post it replies to (`ThReplyRef`, by the reply's id). */
export const REPLY_OF = 'reply-of';
/** A reply listed under its account and thread root (`ThReplyRef`, by the reply's id; owner: `threadKey`). */
export const THREAD_PART = 'thread-part';

/** Where a reply is listed: its id, the post read from POST. */
export interface ThReplyRef {
  id: string;
}

/** The owner of an account's replies under one root: what a post's page lists. */
export const threadKey = (owner: string, root: string) => `${owner} ${root}`;
export const DELETES_PER_DAY = 100;

export interface ThUser {
  id: string;
  username: string;
  name: string;
}

export type ThMediaType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';

export interface ThContainerData {
  mediaType: ThMediaType;
  carouselItem: boolean;
  text: string;
  children: string[];
  replyTo: string | null;
  /** The first post of the conversation replied to (known when the container is made, for the published post). */
  root: string | null;
  replyControl: string;
  altText: string | null;
}

export interface ThPost {
  id: string;
  owner: string;
  containerId: string;
  text: string;
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  /** The owner's username, for pages and reads of posts outside the caller's account. */
  username: string;
  shortcode: string;
  items: number;
  /** The media fetched for it, in order, shown on its page. */
  media: MediaFile[];
  replyTo: string | null;
  /** Whether it is a reply: the account's `threads` or `replies` edge (its store owner is `edgeOwner(owner, edge)`). */
  isReply: boolean;
  root: string | null;
  replyControl: string;
  timestamp: number;
  deleted: boolean;
}
