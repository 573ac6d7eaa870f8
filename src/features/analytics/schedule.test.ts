// The sync schedule (docs/analytics.md "Sync"): 15 min, 1 h, 6 h, 1 day after publishing, then daily, and no
// reading after the configured age (the last one lands on the age itself).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nextSyncAt } from './schedule.ts';

const published = new Date('2026-11-01T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const after = (ms: number) => new Date(published.getTime() + ms);
const ageOfNext = (ageMs: number, maxDays = 30) => {
  const next = nextSyncAt(published, after(ageMs), maxDays);
  return next === null ? null : next.getTime() - published.getTime();
};

describe('metrics sync schedule', () => {
  test('often while the post is young: 15 min, 1 h, 6 h, 1 day', () => {
    assert.equal(ageOfNext(0), 15 * MINUTE);
    assert.equal(ageOfNext(15 * MINUTE), HOUR, 'a reading at a point moves on to the next one');
    assert.equal(ageOfNext(20 * MINUTE), HOUR);
    assert.equal(ageOfNext(HOUR), 6 * HOUR);
    assert.equal(ageOfNext(7 * HOUR), DAY);
  });

  test('then once a day, on the day boundaries of the post', () => {
    assert.equal(ageOfNext(DAY), 2 * DAY);
    assert.equal(ageOfNext(DAY + 3 * HOUR), 2 * DAY, 'a late reading does not shift the days');
    assert.equal(ageOfNext(10 * DAY + MINUTE), 11 * DAY);
  });

  test('no reading after the configured age; the last one lands on the age itself', () => {
    assert.equal(ageOfNext(29 * DAY + HOUR), 30 * DAY);
    assert.equal(ageOfNext(30 * DAY), null);
    assert.equal(ageOfNext(45 * DAY), null);
    assert.equal(ageOfNext(6 * HOUR + MINUTE, 1), DAY);
    assert.equal(ageOfNext(DAY, 1), null);
  });
});
