// The X simulator's documents in its sandbox store (kit.store): posts (`tweet`, owned by the author), the parts of
// each thread (`thread-part`, owned by the thread: a post's page reads its thread, not its author's history), claims
// on a text for the duplicate check (`text-claim`), media uploads (`media`, owned by the uploader; each appended
// segment's bytes a blob of its own), spent single-use tokens (`spent`) and revoked ones (`revoked`), by jti; and
// the context every route handler is given. Users are not stored: a user is the username its signed token carries,
// and its id is derived from that name.
import { createHash } from 'node:crypto';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface XUser {
  id: string;
  username: string;
  name: string;
}

export interface XTweet {
  id: string;
  authorId: string;
  /** The author's username when posting: the post's page shows it without another read. */
  authorUsername: string;
  /** The text as X stores it: every URL replaced by a t.co link (docs/platforms/x.md "Limits"). */
  text: string;
  /** The text as submitted, for duplicate detection. */
  submitted: string;
  createdAt: number;
  replyTo: string | null;
  conversationId: string;
  mediaIds: string[];
  /** The media keys X reads back (`attachments.media_keys`), fixed when posted: reading a post reads no media. */
  mediaKeys: string[];
  deleted: boolean;
}

export interface XMedia {
  id: string;
  ownerId: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  /**
   * Each appended segment by index; the bytes are blobs (`segmentBlob`), one per segment, so the document stays
   * small however large the upload.
   */
  segments: Record<string, XSegment>;
  /** The sniffed type of the bytes, set at finalize: what the media URL serves. */
  contentType: string | null;
  finalized: boolean;
  /** Processing ends at this time (ms); `failed` set when it ends in failure. */
  readyAt: number;
  failed: string | null;
  startedAt: number;
  createdAt: number;
  altText: string | null;
  /** A media fault taken at initialize, applied at finalize. */
  fault: { fault: string; delayMs?: number } | undefined;
}

/** One appended segment: its length and the blob its bytes were written to before the segment was noted. */
export interface XSegment {
  bytes: number;
  blob: string;
}

/**
 * An author's claim on a text (`textClaimId`): the post that holds it, whole, written before that post is. X refuses
 * the same text again while the post is live and younger than the duplicate window; a claim whose post was never
 * written (its node stopped in between) is finished by the next request that meets it.
 */
export interface XTextClaim {
  tweet: XTweet;
}

/** A part of a thread, listed by the thread's key (`threadKey`): what a post's page reads. */
export interface XThreadPart {
  id: string;
}

/**
 * Document kinds of the store. `spent`: jti of codes and refresh tokens already used (both are single-use);
 * `text-claim` by `textClaimId`, `thread-part` by post id (owner: `threadKey`).
 */
export const KIND = {
  tweet: 'tweet',
  media: 'media',
  spent: 'spent',
  revoked: 'revoked',
  textClaim: 'text-claim',
  threadPart: 'thread-part',
} as const;

/**
 * The blob holding one appended segment of an upload, named by its bytes' digest: a segment sent again never
 * overwrites the bytes an earlier append noted.
 */
export function segmentBlob(mediaId: string, index: number, digest: string): string {
  return `media:${mediaId}:${index}:${digest}`;
}

/** Where an author's claim on a text is kept: one document per author and text, so the check is one read. */
export function textClaimId(authorId: string, text: string): string {
  return `${authorId} ${createHash('sha256').update(text).digest('base64url')}`;
}

/** The owner of a thread's parts: the author's own posts of one conversation. */
export function threadKey(authorId: string, conversationId: string): string {
  return `${authorId} ${conversationId}`;
}

/** X's problem JSON (RFC 7807-ish), the body of every v2 error. */
export function problem(status: number, title: string, detail: string, type = 'about:blank'): Record<string, unknown> {
  return { title, detail, type, status };
}

/** What every route handler works with: the kit (its store holds the state) and X's error body. */
export interface XContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/x` in Herald), for the URLs it hands out. */
  prefix: string;
}
