// What the Instagram simulator keeps, all of it in its store (kit.store), so published media, their comments and
// media files survive a restart and every node serves the same ones: containers (meta/containers.ts), published
// media (kind MEDIA, owner: the account's edge, `edgeOwner`), comments (kind COMMENT, owner: the media), the rolling quotas
// (meta/quotas.ts) and the OAuth's spent codes (meta/oauth.ts). Accounts are not kept: each is rebuilt from the
// username its token carries (auth.ts), as the same username always makes the same account.
export { DAY_MS } from '../meta/quotas.ts';
import type { MediaFile } from '../meta/media-files.ts';

/** The store kinds of published media and of comments. */
export const MEDIA = 'media';
export const COMMENT = 'comment';

export interface IgUser {
  /** The Instagram professional account id used in publishing paths (`user_id` of /me). */
  id: string;
  /** The app-scoped id (`id` of /me under Instagram Login). */
  appScopedId: string;
  username: string;
  name: string;
}

export type IgMediaType = 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';

export interface IgContainerData {
  mediaType: IgMediaType;
  carouselItem: boolean;
  caption: string;
  altText: string | null;
  children: string[];
  mediaUrl: string | null;
  isVideo: boolean;
  shareToFeed: boolean;
}

export interface IgComment {
  id: string;
  mediaId: string;
  text: string;
  username: string;
  timestamp: number;
  /** The top-level comment this one replies to (Instagram replies are one level deep). */
  parentId?: string;
}

export interface IgMedia {
  id: string;
  owner: string;
  containerId: string;
  caption: string;
  /** IMAGE, VIDEO or CAROUSEL_ALBUM, as the IG Media node reports it. */
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  productType: 'FEED' | 'REELS' | 'STORY';
  /** The account's edge it is listed on (`/media` or `/stories`): its store owner is `edgeOwner(owner, edge)`. */
  edge: 'media' | 'stories';
  /** The owner's username, for pages and reads of media outside the caller's account. */
  username: string;
  shortcode: string;
  items: number;
  /** The media fetched for it, in order, shown on its page. */
  media: MediaFile[];
  timestamp: number;
  /** How many comments it has (counted as they are made; the comments are documents of their own). */
  commentCount: number;
  deleted: boolean;
}
