// The Mastodon simulator's documents in its sandbox store (kit.store): OAuth apps (`app`), statuses (`status`, owned
// by the account), the parts of each thread (`thread-part`, owned by the thread: a status's page reads its thread,
// not the account's history), media attachments (`media`, owned by the uploader; the bytes a blob each), the Idempotency-Key
// memory (`idempotency`, one hour per account, docs/platforms/mastodon.md "Idempotency"), spent codes and revoked
// tokens by jti; and the context every route handler is given. Accounts are not stored: an account is the username
// its signed token carries, and its id is derived from that name.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface MastoAccount {
  id: string;
  username: string;
  displayName: string;
}

export interface MastoStatus {
  id: string;
  accountId: string;
  /** The author's username when posting: the status's URLs and account are built without another read. */
  username: string;
  text: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: string;
  language: string | null;
  inReplyToId: string | null;
  /** The account of the status replied to (Mastodon's `in_reply_to_account_id`). */
  inReplyToAccountId: string | null;
  /** The first status of the thread: its parts are listed by `threadKey(accountId, conversationId)`. */
  conversationId: string;
  mediaIds: string[];
  /** The attachments as posted (they were processed by then): reading a status reads no media documents. */
  attachments: MastoAttachment[];
  createdAt: number;
  deleted: boolean;
}

/** What a status shows of each attachment. */
export interface MastoAttachment {
  id: string;
  type: MastoMedia['type'];
  description: string | null;
}

export interface MastoMedia {
  id: string;
  accountId: string;
  type: 'image' | 'gifv' | 'video';
  contentType: string;
  size: number;
  description: string | null;
  readyAt: number;
  failed: boolean;
}

export interface MastoApp {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  scopes: string;
}

/** An Idempotency-Key's claim (`idempotencyId`): the status it made and when; older than an hour it is void. */
export interface MastoIdempotency {
  statusId: string;
  at: number;
}

/** A part of a thread, listed by the thread's key (`threadKey`): what a status's page reads. */
export interface MastoThreadPart {
  id: string;
}

/** Document kinds of the store. `spent`: jti of codes already exchanged; `thread-part` by status id. */
export const KIND = {
  app: 'app',
  status: 'status',
  threadPart: 'thread-part',
  media: 'media',
  idempotency: 'idempotency',
  spent: 'spent',
  revoked: 'revoked',
} as const;

/** An Idempotency-Key is remembered per account. */
export function idempotencyId(accountId: string, key: string): string {
  return `${accountId}:${key}`;
}

/** The owner of a thread's parts: the account's own statuses of one conversation. */
export function threadKey(accountId: string, conversationId: string): string {
  return `${accountId} ${conversationId}`;
}

/** The blob holding an attachment's bytes. */
export function mediaBlob(mediaId: string): string {
  return `media:${mediaId}`;
}

/** What every route handler works with: the kit (its store holds the state) and Mastodon's error body. */
export interface MastoContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/mastodon` in Herald), for the URLs it hands out. */
  prefix: string;
}
