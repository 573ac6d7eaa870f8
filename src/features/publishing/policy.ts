// What a failed platform call means for the target — the one place kinds become decisions (docs/architecture.md
// "Rules of the house"): retry with backoff (transient, unknown outcome after a fruitless look-up), wait for
// the platform's reset (rate limits, which also hold the connection), fail at once (content, media,
// permanent), or fail and mark the connection for reconnection (auth, after one refresh was tried).
import { PLATFORM_ERRORS } from '../../platforms/errors.ts';
import type { PlatformError } from '../../platforms/types.ts';
import { DuplicateOfPost } from './parts.ts';

export type Decision =
  { action: 'retry'; at: Date; throttleConnection: boolean } | { action: 'fail'; reconnect: boolean };

const BASE_BACKOFF_MS = 2000;
const MAX_BACKOFF_MS = 5 * 60_000;
/** A rate limit resetting further away than this fails the target instead of holding it (X's 24 h app cap). */
const MAX_RATE_LIMIT_WAIT_MS = 60 * 60_000;
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

/** Exponential backoff with full jitter on the upper half: 2 s, 4 s, 8 s … capped at 5 min. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export function decide(
  error: PlatformError,
  attempt: number,
  maxAttempts: number,
  now: Date,
  random: () => number = Math.random,
): Decision {
  const canRetry = attempt < maxAttempts;
  switch (error.kind) {
    case 'auth_expired':
      return { action: 'fail', reconnect: true };
    case 'rate_limited': {
      const wait = error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
      if (!canRetry || wait > MAX_RATE_LIMIT_WAIT_MS) return { action: 'fail', reconnect: false };
      // A little past the reset, spread so that every held post does not return in the same millisecond.
      return {
        action: 'retry',
        at: new Date(now.getTime() + wait + 250 + Math.round(random() * 1000)),
        throttleConnection: true,
      };
    }
    case 'transient':
    case 'unknown_outcome': {
      if (!canRetry) return { action: 'fail', reconnect: false };
      const wait = Math.max(error.retryAfterMs ?? 0, backoffMs(attempt, random));
      return { action: 'retry', at: new Date(now.getTime() + wait), throttleConnection: false };
    }
    default:
      return { action: 'fail', reconnect: false };
  }
}

/**
 * The target's `error` object of docs/api.md "Posts"; a duplicate of a Herald post's content names that post in
 * `duplicate_of`, so that a client need not parse the message.
 */
export function targetError(error: PlatformError): Record<string, unknown> {
  const definition = PLATFORM_ERRORS[error.code];
  return {
    code: error.code,
    category: definition.category,
    message: error.message,
    retryable: definition.retryable,
    platform_status: error.platformStatus ?? null,
    platform_response: error.platformBody ? error.platformBody.slice(0, 1000) : null,
    ...(error instanceof DuplicateOfPost ? { duplicate_of: { post_id: error.postId } } : {}),
  };
}
