import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JITTER, MAX_ATTEMPTS, nextRetryDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from './schedule.ts';

const DAY = 86_400_000;

test('ten attempts: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h — about three days', () => {
  assert.equal(MAX_ATTEMPTS, 10);
  const nominal = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => nextRetryDelayMs(n, { random: () => 0.5 })!);
  assert.deepEqual(nominal, RETRY_DELAYS_MS);
  const total = nominal.reduce((a, b) => a + b, 0);
  assert.ok(total > 3 * DAY && total < 3.2 * DAY, `${total / DAY} days`);
  assert.equal(nextRetryDelayMs(10), null, 'no attempt after the tenth');
});

test('every delay stays within ±20 % of the schedule, whatever the randomness', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 9 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempts, r) => {
        const base = RETRY_DELAYS_MS[attempts - 1]!;
        const delay = nextRetryDelayMs(attempts, { random: () => r })!;
        return delay >= Math.floor(base * (1 - JITTER)) && delay <= Math.ceil(base * (1 + JITTER));
      },
    ),
  );
});

test('Retry-After postpones a retry, up to 24 h, and never brings it forward', () => {
  assert.equal(nextRetryDelayMs(1, { random: () => 0.5, retryAfterMs: 60_000 }), 60_000);
  assert.equal(nextRetryDelayMs(5, { random: () => 0.5, retryAfterMs: 1000 }), RETRY_DELAYS_MS[4]);
  assert.equal(nextRetryDelayMs(1, { random: () => 0.5, retryAfterMs: 7 * DAY }), DAY);
});

test('Retry-After is read as seconds or as an HTTP date', () => {
  const now = new Date('2026-11-20T10:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter('Fri, 20 Nov 2026 10:05:00 GMT', now), 300_000);
  assert.equal(parseRetryAfter('Fri, 20 Nov 2026 09:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter(undefined, now), null);
});
