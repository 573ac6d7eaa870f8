// The platform adapter contract: the one narrow interface every platform implements, and the vocabulary the
// publishing engine and the adapters share. Adapters are given their configuration and an HTTP client; they
// never read the environment and never import features, db or jobs (docs/architecture.md "Rules of the house").
//
// Glossary
//   post        What a client creates: text, media, options, for one or more platforms.
//   target      One post on one connection (a row of post_targets). Published once, or failed with a reason.
//   part        One platform post of a target: the post itself (part 0), then each thread reply (1, 2, …).
//   connection  A platform account Herald may publish as, with its encrypted credentials.
//   session     What an adapter call gets: the connection, its decrypted credentials and an HTTP client
//               bound to the connection's platform host.
//   attempt     One run of the publish task on a target; recorded before the first platform call.
//   part key    A stable token Herald chooses per part before sending it (Mastodon's Idempotency-Key,
//               Bluesky's record key, a lookup marker on X); a re-send uses the same key.
//   reconcile   Looking a part up on the platform after an unknown outcome, before anything is sent again.
//   pending     References an adapter makes for a part before the call that publishes it (a Meta container id),
//               recorded on the part's row through `remember` so that a restart finds them again.
//   sandbox     Herald's simulator of a platform (src/sandbox); a sandbox connection is an ordinary
//               connection whose host is the simulator.
import type { Readable } from 'node:stream';
import type { Clock } from '../lib/clock.ts';
import type { PlatformErrorCode, PlatformErrorKind } from './errors.ts';
import type { PlatformHttp } from './http-contract.ts';
import type { MediaKind, PlatformLimits, PlatformName } from './limits.ts';

export type { PlatformName } from './limits.ts';
export type { PlatformErrorKind } from './errors.ts';
export { METRIC_NAMES, definedCounts, type MetricName, type PostMetrics } from './metrics.ts';
import type { PostMetrics } from './metrics.ts';

/** A failure of a platform call, as plain data. Thrown by adapters and by the HTTP client. */
export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly code: PlatformErrorCode;
  /** When the platform said to come back (rate-limit reset, Retry-After), in ms from now. */
  readonly retryAfterMs: number | undefined;
  readonly platformStatus: number | undefined;
  /** The platform's answer, truncated for storage. */
  readonly platformBody: string | undefined;
  constructor(
    kind: PlatformErrorKind,
    code: PlatformErrorCode,
    message: string,
    extra: { retryAfterMs?: number; platformStatus?: number; platformBody?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: extra.cause });
    this.name = 'PlatformError';
    this.kind = kind;
    this.code = code;
    this.retryAfterMs = extra.retryAfterMs;
    this.platformStatus = extra.platformStatus;
    this.platformBody = extra.platformBody?.slice(0, 2000);
  }
}

export function isPlatformError(error: unknown): error is PlatformError {
  return error instanceof PlatformError;
}

/** Decrypted credentials of a connection. Each adapter reads the fields its platform uses. */
export interface Credentials {
  accessToken: string;
  refreshToken?: string | null;
  /** ISO time the access token expires (X 2 h, Bluesky 2 h); absent when it does not expire (Mastodon). */
  expiresAt?: string | null;
  /** Bluesky: the app password, kept so a session can be re-created when the refresh token has expired. */
  appPassword?: string | null;
}

/** The account a connection publishes as, as the platform reports it. */
export interface AccountInfo {
  accountId: string;
  handle: string;
  displayName: string | null;
  /** The account's picture, where the platform gives one (shown by client apps next to the handle). */
  avatarUrl?: string | null;
  /** Platform facts worth keeping on the connection (a Mastodon instance's configuration). */
  settings?: Record<string, unknown>;
}

/** A connection as an adapter sees it. */
export interface ConnectionInfo {
  id: string;
  accountId: string;
  handle: string;
  /** The base URL the adapter talks to (platform host, instance, PDS or the simulator). */
  baseUrl: string;
  settings: Record<string, unknown>;
  sandbox: boolean;
}

export interface PlatformSession {
  connection: ConnectionInfo;
  credentials: Credentials;
  http: PlatformHttp;
  clock: Clock;
}

/**
 * A media item handed to an adapter. Adapters never learn how media is stored: they read the bytes through
 * `open()` (uploading platforms) or hand out `signedUrl()` (platforms that fetch by URL).
 */
export interface MediaSource {
  id: string;
  kind: MediaKind;
  contentType: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  altText: string | null;
  open(): Promise<Readable>;
  /** A short-lived public URL of the bytes, for platforms that pull media (Instagram, Threads). */
  signedUrl?(): Promise<string>;
}

/** Media uploaded to (and, where the platform processes it, accepted by) the platform, ready to attach. */
export interface PreparedMedia {
  /** The platform's media id (X media id, Mastodon attachment id) or blob reference (Bluesky, JSON). */
  platformRef: string;
  kind: MediaKind;
  altText: string | null;
  width: number | null;
  height: number | null;
}

/** What a published part is known by. `ref` carries what replies to it need (Bluesky: uri and cid). */
export interface PublishedPart {
  id: string;
  url: string;
  ref?: Record<string, string>;
}

/** Per-platform options of a post (`platform_options.<platform>`), already validated by schema. */
export type PartOptions = Record<string, unknown>;

/** A part's pending references by name (`{ container: '1789…' }`); `{}` when none were recorded. */
export type PendingRefs = Readonly<Record<string, string>>;

/** One part to publish. */
export interface OutgoingPart {
  /** 0 for the post itself, n for the n-th thread reply (a first comment comes after the last). */
  index: number;
  text: string;
  /** Media of the part (the first part carries the post's media, a first comment its own). */
  media: PreparedMedia[];
  /** The part this one replies to (the previous part), and the first part of the thread. */
  parent: PublishedPart | null;
  root: PublishedPart | null;
  /** The part key: stable across re-sends (see glossary). */
  key: string;
  /**
   * When the part was first marked `sending`, before any send: a look-up adopts only a post created after this
   * (less `LOOKUP_CLOCK_ALLOWANCE_MS`, lookup.ts), never one that was there before the part was sent.
   */
  firstSentAt: Date;
  options: PartOptions;
  /**
   * How many media the part carries (`media.length` when this attempt prepared them). A look-up after an earlier
   * attempt gets `media` empty, since that attempt's uploads are not kept, and compares this count instead.
   */
  mediaCount?: number;
  /**
   * Look-ups only: platform post ids other parts of the same platform account already hold (through this connection
   * or another of the workspace's connections of that account). A look-up never returns one (and the engine would
   * refuse it: a platform post is one Herald part's).
   */
  heldElsewhere?: ReadonlySet<string>;
  /**
   * What earlier sends of this part recorded with `remember` (this attempt's too), read back from the part's row:
   * after a restart, the container made before it is here, never only in a process's memory.
   */
  readonly pending: PendingRefs;
  /**
   * Records the part's pending references (replacing the previous ones) durably, before the call that could use
   * them: on the part's row, fenced by the target's claim. Resolves once stored, after which `pending` shows them;
   * rejects when the claim was lost (the adapter lets that error through: the engine stops this attempt).
   */
  remember(refs: PendingRefs): Promise<void>;
}

/** A comment on / reply to a published post (optional capability). */
export interface PlatformComment {
  id: string;
  authorHandle: string;
  text: string;
  createdAt: string;
  url: string | null;
}

/** The streams an inbox is read in (docs/inbox.md "Ingestion"); each has its own cursor. */
export type InboxStreamName = 'comments' | 'mentions' | 'dms' | 'reviews';

/** One item of a connection's inbox as the platform gave it (optional capability `inbox`). */
export interface PlatformInboxItem {
  kind: 'comment' | 'reply' | 'dm' | 'mention' | 'review';
  /** The platform's id of the item: unique within the connection. */
  id: string;
  /** The platform post it is on (a comment, a reply to a comment, a mention in a reply); null for DMs. */
  postId: string | null;
  /** The platform's thread or conversation root. */
  threadId: string;
  /** The item it answers, when it answers one. */
  parentId: string | null;
  author: { id: string; username: string | null; displayName: string | null; avatarUrl: string | null };
  text: string;
  url: string | null;
  createdAt: string;
  /** The connected account's own message (a reply made outside Herald). */
  fromAccount: boolean;
  /** Until when the platform accepts an answer (Messenger and Instagram DMs: 24 h after the last message). */
  replyWindowEndsAt?: string | null;
  /** What answering it needs beyond its id (Bluesky: uri and cid of the item and of its thread root). */
  ref?: Record<string, string>;
}

/** One page of a stream: the items, and the cursor the next page (or the next poll) starts from. */
export interface InboxPage {
  items: PlatformInboxItem[];
  /** Opaque to Herald; stored per connection and stream and given back on the next call. */
  cursor: Record<string, unknown> | null;
  /** More items are waiting now (poll again at once), not just at the next interval. */
  more: boolean;
}

/** What an answer is sent to: an ingested item, with what the adapter recorded of it. */
export interface InboxTarget {
  kind: PlatformInboxItem['kind'];
  id: string;
  postId: string | null;
  threadId: string;
  author: { id: string; username: string | null };
  ref?: Record<string, string>;
}

/**
 * Reading and answering a connection's inbox (optional capability). `streams` lists what the platform gives to
 * Herald's permissions; `list` reads one page after `cursor` (null: from now on, or the recent past the platform
 * keeps); `answer` replies to a comment or review, answers a DM, or replies as a post (X, Bluesky, Mastodon,
 * Threads). A closed reply window is a PlatformError `permanent` with code PLATFORM_REPLY_WINDOW_CLOSED, a
 * deleted item PLATFORM_ITEM_DELETED.
 */
export interface InboxCapability {
  readonly streams: readonly InboxStreamName[];
  /** Whether `answer` can reply privately (a DM to a commenter, a direct status); else `private` is refused. */
  readonly privateReplies: boolean;
  list(session: PlatformSession, stream: InboxStreamName, cursor: Record<string, unknown> | null): Promise<InboxPage>;
  answer(
    session: PlatformSession,
    target: InboxTarget,
    text: string,
    options: { private: boolean },
  ): Promise<PublishedPart>;
}

/**
 * Comments on the account's own published post (a first comment, `FirstCommentRules` `comment`), for platforms where
 * a first comment is a comment rather than a reply post. `post` is the published part 0; `part` carries the text,
 * the part key and `firstSentAt`. `find` is the reconciliation of a comment whose send had no answer: the account's
 * comment on `post` with the part's text, made since its first send and held by no other part (lookup.ts), else null.
 */
export interface OwnCommentCapability {
  create(session: PlatformSession, post: PublishedPart, part: OutgoingPart): Promise<PublishedPart>;
  find(session: PlatformSession, post: PublishedPart, part: OutgoingPart): Promise<PublishedPart | null>;
}

/** How an adapter is built: its platform-wide configuration (OAuth client, API host). */
export interface AdapterConfig {
  /** The platform's API host for real connections (X: https://api.x.com). Instances/PDSs come per connection. */
  apiUrl: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /**
   * The API version Herald speaks where the platform versions its API (LinkedIn's `LinkedIn-Version` header, Meta
   * Graph's path prefix).
   */
  apiVersion?: string;
}

/** What connecting a sandbox account produces. */
export interface SandboxAccount {
  account: AccountInfo;
  credentials: Credentials;
}

/** A platform app Herald signs users in with: from configuration, or registered per instance (Mastodon). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string | null;
}

/** What an OAuth step is given. The service builds it; adapters never read configuration themselves. */
export interface OAuthContext {
  /** Bound to the platform's API host, the user's instance, or the simulator (sandbox). */
  http: PlatformHttp;
  /** Where the end user's browser goes for consent: the platform's site, the instance, or the simulator's pages. */
  webUrl: string;
  /** True in a test workspace: every endpoint is the simulator's, at the same paths under `http.baseUrl`/`webUrl`. */
  sandbox: boolean;
  app: OAuthApp;
  /** Herald's callback (`<public url>/connect/callback`), registered with the platform app. */
  redirectUri: string;
}

/** One account a consent lets Herald publish as, with the credentials to use for it. */
export interface ConnectableAccount {
  account: AccountInfo;
  credentials: Credentials;
}

/**
 * A platform's OAuth sign-in (authorization code grant). Optional: platforms that connect otherwise (Bluesky app
 * passwords) leave it out. Invalid, expired or replayed codes throw PlatformError (`auth_expired`).
 */
export interface OAuthCapability {
  /** Whether the platform takes PKCE (S256). */
  readonly pkce: boolean;
  /** What Herald asks for: publishing, and reading metrics and comments where the platform separates them. */
  readonly scopes: readonly string[];
  /** Mastodon: registers an app on the instance (`POST /api/v1/apps`); Herald keeps one per instance. */
  registerApp?(ctx: Omit<OAuthContext, 'app'>, input: { name: string; website: string }): Promise<OAuthApp>;
  /** The consent URL the end user's browser is sent to. */
  authorizeUrl(ctx: OAuthContext, input: { state: string; codeChallenge: string | null }): string;
  /** Code → credentials, including the long-lived exchange where the platform has one (Meta). */
  exchangeCode(ctx: OAuthContext, input: { code: string; codeVerifier: string | null }): Promise<Credentials>;
  /**
   * The accounts the credentials may publish as: the signed-in member for most platforms; the Facebook Pages or
   * Instagram business accounts the user granted (each with its own credentials, e.g. a page access token).
   */
  accounts(ctx: OAuthContext, credentials: Credentials): Promise<ConnectableAccount[]>;
  /** Revokes the credentials at the platform, where it supports revocation. */
  revoke?(ctx: OAuthContext, credentials: Credentials): Promise<void>;
}

/**
 * Sign-in with an identifier and a password the user made for Herald (Bluesky app passwords), for platforms
 * connected without OAuth. The hosted connect page asks for both; Herald keeps what `login` returns.
 */
export interface PasswordLoginCapability {
  /** Labels of the hosted form's two fields. */
  readonly identifierLabel: string;
  readonly passwordLabel: string;
  /** Whether a user may name their own server (a PDS) instead of the configured default. */
  readonly customServer: boolean;
  /** Signs in at `http`'s base URL. A refused identifier or password throws PlatformError (`auth_expired`). */
  login(http: PlatformHttp, input: { identifier: string; password: string }): Promise<ConnectableAccount>;
}

export interface PlatformAdapter {
  readonly platform: PlatformName;
  /** Stock limits (GET /v1/platforms, validation at creation). */
  readonly limits: PlatformLimits;
  /** Limits of one connection (a Mastodon instance's own); the stock limits where the platform has one set. */
  limitsFor(connection: Pick<ConnectionInfo, 'settings'>): PlatformLimits;
  /** A new part key (Bluesky: a TID record key; Mastodon: a UUID Idempotency-Key; X: a lookup marker). */
  newPartKey(now: Date): string;
  /** Uploads media in the platform's own protocol and waits until the platform accepts it. */
  prepareMedia(session: PlatformSession, media: MediaSource[], options: PartOptions): Promise<PreparedMedia[]>;
  /**
   * Creates one part. Throws PlatformError; `unknown_outcome` when the request may have taken effect. A refusal
   * (`invalid_content`, `media_rejected`, `permanent`, `auth_expired`, `rate_limited`) must mean that nothing of the
   * part was made: after one on a part's first send the engine forgets the part's key and sends it afresh next time.
   * So a call made after the one that may have published (a read of the new post) must not throw a refusal of its own.
   */
  publish(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart>;
  /**
   * Reconciliation: the part if the platform holds it (by key or by look-up), else null. Read-only. A look-up
   * returns only a post provably this part's: created after `firstSentAt`, not in `heldElsewhere`, with the part's
   * text, media and reply parent (lookup.ts; src/platforms/README.md).
   */
  findPublished(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null>;
  deletePost(session: PlatformSession, post: PublishedPart): Promise<void>;
  /** New credentials from the refresh token (or app password). Throws `auth_expired` when that is impossible. */
  refreshCredentials(session: PlatformSession): Promise<Credentials>;
  /** Who the credentials belong to (connect, verify). */
  verifyAccount(session: PlatformSession): Promise<AccountInfo>;
  /**
   * Runs the platform's own sign-in against its simulator at `session.http`'s base URL, as `username`. `workspace`
   * (`sandbox_ws`, an opaque tag) makes the simulated account that workspace's: no other workspace may sign in as it.
   */
  connectSandbox(http: PlatformHttp, options: { username: string; workspace?: string }): Promise<SandboxAccount>;
  /** OAuth sign-in of real (and, through the simulator, sandbox) accounts; absent where the platform has none. */
  readonly oauth?: OAuthCapability;
  /** Password sign-in (Bluesky app passwords); absent where the platform connects through OAuth. */
  readonly passwordLogin?: PasswordLoginCapability;
  /** Optional capabilities; absent ones are shown as unsupported in GET /v1/platforms. */
  fetchMetrics?(session: PlatformSession, post: PublishedPart): Promise<PostMetrics>;
  listComments?(session: PlatformSession, post: PublishedPart): Promise<PlatformComment[]>;
  reply?(session: PlatformSession, post: PublishedPart, text: string): Promise<PublishedPart>;
  /** The connection's inbox: comments, mentions, DMs and reviews, and answers to them (docs/inbox.md). */
  readonly inbox?: InboxCapability;
  /** Comments on its own posts: first comments where `limits.firstComment.via` is `comment`. */
  readonly ownComments?: OwnCommentCapability;
}

export type AdapterFactory = (config: AdapterConfig) => PlatformAdapter;
