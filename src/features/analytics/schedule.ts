// When a published target's metrics are read (docs/analytics.md "Sync"): often while a post is young and its
// numbers move, then daily, and never after the configured age. Pure, so the schedule is tested without a clock.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Ages (time since publishing) of the first readings: most of a post's views and likes arrive within hours
 * (src/sandbox/framework/metrics-growth.ts models the same curve), so early readings catch the curve's shape
 * and daily ones its tail.
 */
export const EARLY_SYNC_AGES_MS: readonly number[] = [15 * MINUTE, HOUR, 6 * HOUR, DAY];

/** After the early readings, one a day. */
export const DAILY_MS = DAY;

/** How long a pass holds the targets it claimed; a pass that died leaves them due again after this. */
export const CLAIM_LEASE_MS = 10 * MINUTE;

/** A failure that is neither a rate limit nor an expired token (the platform down): try again after this. */
export const RETRY_AFTER_FAILURE_MS = 15 * MINUTE;

/** A rate limit without a reset time: wait this long. */
export const RATE_LIMIT_FALLBACK_MS = 15 * MINUTE;

/**
 * The next reading after `now` of a target published at `publishedAt`: the first schedule point later than now,
 * or null once that would be past `maxAgeDays` (the last point is the max age itself, so the final reading
 * covers the whole window).
 */
export function nextSyncAt(publishedAt: Date, now: Date, maxAgeDays: number): Date | null {
  const maxAge = maxAgeDays * DAY;
  const age = now.getTime() - publishedAt.getTime();
  if (age >= maxAge) return null;
  let next = EARLY_SYNC_AGES_MS.find((point) => point > age);
  if (next === undefined) {
    const last = EARLY_SYNC_AGES_MS[EARLY_SYNC_AGES_MS.length - 1]!;
    next = last + (Math.floor((age - last) / DAILY_MS) + 1) * DAILY_MS;
  }
  return new Date(publishedAt.getTime() + Math.min(next, maxAge));
}
