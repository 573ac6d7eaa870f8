// In-memory state of the X simulator: users, posts (tweets), media uploads, spent one-time tokens; and the
// context every route handler is given.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface XUser {
  id: string;
  username: string;
  name: string;
}

export interface XTweet {
  id: string;
  authorId: string;
  /** The text as X stores it: every URL replaced by a t.co link (docs/platforms/x.md "Limits"). */
  text: string;
  /** The text as submitted, for duplicate detection. */
  submitted: string;
  createdAt: number;
  replyTo: string | null;
  conversationId: string;
  mediaIds: string[];
  deleted: boolean;
}

export interface XMedia {
  id: string;
  ownerId: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  segments: Map<number, Buffer>;
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

export interface XState {
  users: Map<string, XUser>;
  tweets: Map<string, XTweet>;
  media: Map<string, XMedia>;
  /** jti of authorization codes and refresh tokens already used (both are single-use). */
  spent: Set<string>;
  revoked: Set<string>;
}

export function createXState(): XState {
  return { users: new Map(), tweets: new Map(), media: new Map(), spent: new Set(), revoked: new Set() };
}

/** X's problem JSON (RFC 7807-ish), the body of every v2 error. */
export function problem(status: number, title: string, detail: string, type = 'about:blank'): Record<string, unknown> {
  return { title, detail, type, status };
}

/** What every route handler works with: the kit, the live state (reset swaps it) and X's error body. */
export interface XContext {
  kit: SimulatorKit;
  state: XState;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/x` in Herald), for the URLs it hands out. */
  prefix: string;
}
