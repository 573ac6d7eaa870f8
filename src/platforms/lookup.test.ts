// The checks every reconciliation look-up shares (lookup.ts): made since the part's first send, held by no other
// part, carrying the part's media.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LOOKUP_CLOCK_ALLOWANCE_MS, lookupSince, mayBeThisPart, sameMedia } from './lookup.ts';
import type { PreparedMedia } from './types.ts';

const firstSentAt = new Date('2026-01-01T12:00:00.500Z');
const sent = firstSentAt.getTime();
const image = (platformRef: string): PreparedMedia => ({
  platformRef,
  kind: 'image',
  altText: null,
  width: null,
  height: null,
});

test('a post made before the part was first sent is never the part, beyond the clock allowance', () => {
  assert.equal(lookupSince({ firstSentAt }), sent - LOOKUP_CLOCK_ALLOWANCE_MS);
  assert.equal(mayBeThisPart({ firstSentAt }, { id: '1', createdAt: sent + 800 }), true);
  // Whole-second timestamps: the post made 500 ms after the first send reads as the second before it.
  assert.equal(mayBeThisPart({ firstSentAt }, { id: '1', createdAt: sent - 500 }), true);
  // A platform clock some seconds behind Herald's database (an unsynchronised host) still finds the part.
  assert.equal(mayBeThisPart({ firstSentAt }, { id: '1', createdAt: sent - 8_000 }), true, 'a clock 8 s behind');
  assert.ok(LOOKUP_CLOCK_ALLOWANCE_MS >= 10_000 && LOOKUP_CLOCK_ALLOWANCE_MS <= 30_000, 'seconds, never minutes');
  assert.equal(mayBeThisPart({ firstSentAt }, { id: '1', createdAt: sent - 60_000 }), false, 'a minute older');
  assert.equal(mayBeThisPart({ firstSentAt }, { id: '1', createdAt: undefined }), false, 'no time, no proof');
  assert.equal(mayBeThisPart({ firstSentAt }, { id: '1', createdAt: Number.NaN }), false);
});

test('a post another part of the connection holds is never the part', () => {
  const part = { firstSentAt, heldElsewhere: new Set(['held']) };
  assert.equal(mayBeThisPart(part, { id: 'held', createdAt: sent + 1000 }), false);
  assert.equal(mayBeThisPart(part, { id: 'free', createdAt: sent + 1000 }), true);
});

test('media compare by platform id when this attempt sent them, else by number', () => {
  const sentNow = { media: [image('m1'), image('m2')] };
  assert.equal(sameMedia(sentNow, { ids: ['m2', 'm1'], count: 2 }), true);
  assert.equal(sameMedia(sentNow, { ids: ['m1', 'other'], count: 2 }), false, 'another upload');
  assert.equal(sameMedia(sentNow, { count: 2 }), true, 'a platform that lists no ids');
  assert.equal(sameMedia(sentNow, { count: 1 }), false);
  const earlierAttempt = { media: [], mediaCount: 2 };
  assert.equal(sameMedia(earlierAttempt, { ids: ['x', 'y'], count: 2 }), true, 'unknown uploads: the number tells');
  assert.equal(sameMedia(earlierAttempt, { ids: [], count: 0 }), false, 'a text post is not a photo post');
  assert.equal(sameMedia({ media: [] }, { ids: [], count: 0 }), true);
  assert.equal(sameMedia({ media: [] }, { ids: ['x'], count: 1 }), false);
});
