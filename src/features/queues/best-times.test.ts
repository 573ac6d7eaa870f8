// The ranking of best-time suggestions, pure (docs/queues.md "Best times"): the confidence formula and its bounds,
// the order of scored hours and their ties, hours below average kept out of the answer and of the defaults.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { confidenceOf, DEFAULT_SLOTS, rankSlots } from './best-times.ts';
import type { HourGroup } from './best-times.repo.ts';

const group = (dow: number, hour: number, n: number, mean: number, sd = 0): HourGroup => ({
  dow,
  hour,
  n,
  mean,
  sd,
  byRate: 0,
});
const rank = (groups: HourGroup[], count = 7, minSample = 3) =>
  rankSlots(groups, { count, minSample, timezone: 'UTC' }).map((s) => `${s.day_of_week} ${s.time} ${s.source}`);

describe('confidenceOf', () => {
  test('is 1 − (s ÷ √n) ÷ mean, rounded to 2 decimals', () => {
    assert.equal(confidenceOf({ n: 4, mean: 2, sd: 1 }), 0.75);
    assert.equal(confidenceOf({ n: 9, mean: 1.5, sd: 0.9 }), 0.8);
  });
  test('is 1 without spread and 0 when the standard error exceeds the mean', () => {
    assert.equal(confidenceOf({ n: 3, mean: 1.2, sd: 0 }), 1);
    assert.equal(confidenceOf({ n: 4, mean: 1, sd: 5 }), 0);
    assert.equal(confidenceOf({ n: 4, mean: 0, sd: 0 }), 0);
  });
});

describe('rankSlots', () => {
  test('orders by score, then confidence, then sample, then the earlier hour of a Monday-first week', () => {
    const groups = [
      group(0, 10, 3, 1.5), // Sunday: last in a Monday-first week
      group(2, 10, 3, 1.5),
      group(1, 10, 5, 1.5, 0.5), // lower confidence
      group(4, 10, 6, 1.5),
      group(3, 10, 3, 2),
    ];
    assert.deepEqual(rank(groups, 5), [
      '3 10:00 history',
      '4 10:00 history',
      '2 10:00 history',
      '0 10:00 history',
      '1 10:00 history',
    ]);
  });

  test('leaves out hours below the minimum sample or below average, and defaults they already cover', () => {
    const groups = [
      group(1, 9, 3, 1.3), // Monday 09:00 scored: the default there is not repeated
      group(2, 9, 5, 0.6), // Tuesday 09:00 measured below average: neither scored nor a default
      group(3, 14, 2, 3), // too few posts
    ];
    assert.deepEqual(rank(groups, 4), ['1 09:00 history', '3 09:00 default', '4 09:00 default', '5 09:00 default']);
  });

  test('a score rounding to 1.000 counts as the average, not below it', () => {
    assert.deepEqual(rank([group(1, 9, 3, 0.99999999)], 1), ['1 09:00 history']);
  });

  test('gives at most the scored hours plus the defaults', () => {
    assert.equal(rankSlots([], { count: 50, minSample: 3, timezone: 'UTC' }).length, DEFAULT_SLOTS.length);
  });
});
