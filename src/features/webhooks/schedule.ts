// When a failed delivery is tried again: the Standard Webhooks example schedule (immediately, then 5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts over about three days), each delay jittered by ±20 %
// so that a receiver coming back from an outage is not hit by every retry at the same instant.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before the 2nd, 3rd, … attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** Attempts a delivery gets in all before it is marked failed. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const JITTER = 0.2;

/** A receiver's Retry-After is honoured up to this long; beyond it the schedule decides. */
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * The delay before the next attempt, after `attemptsMade` attempts have failed; null when none is left.
 * A Retry-After from the receiver (429, 503) postpones the retry, never brings it forward.
 */
export function nextRetryDelayMs(
  attemptsMade: number,
  options: { random?: () => number; retryAfterMs?: number | null } = {},
): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[Math.max(attemptsMade, 1) - 1]!;
  const random = options.random ?? Math.random;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  const retryAfter = options.retryAfterMs ? Math.min(options.retryAfterMs, MAX_RETRY_AFTER_MS) : 0;
  return Math.max(jittered, retryAfter);
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}
