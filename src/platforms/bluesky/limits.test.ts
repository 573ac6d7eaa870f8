// Contract of Bluesky's text and media limits (docs/platforms/bluesky.md "Limits").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limits, measure, utf8Bytes } from './limits.ts';

test('an emoji ZWJ family counts as one grapheme on Bluesky', () => {
  assert.equal(measure('👨‍👩‍👧‍👦'), 1);
  assert.equal(measure('👍🏽'), 1);
  assert.equal(measure('🇫🇷'), 1);
});

test('a combining sequence counts as one grapheme, composed or not', () => {
  assert.equal(measure('e\u0301'), 1);
  assert.equal(measure('é'), 1);
});

test('a URL counts its full length (no shortening on Bluesky)', () => {
  const url = `https://example.com/${'a'.repeat(50)}`;
  assert.equal(measure(url), url.length);
});

test('exactly 300 graphemes passes, 301 fails', () => {
  assert.deepEqual(limits.text.check('a'.repeat(300)), []);
  assert.deepEqual(limits.text.check('a'.repeat(301)), [
    { rule: 'text_too_long', message: 'Text is 301 graphemes; Bluesky allows 300.' },
  ]);
});

test('300 ZWJ families are 300 graphemes but 7,500 bytes: the byte cap fails alone', () => {
  const text = '👨‍👩‍👧‍👦'.repeat(300);
  assert.equal(measure(text), 300);
  assert.equal(utf8Bytes(text), 7500);
  assert.deepEqual(limits.text.check(text), [
    { rule: 'text_too_many_bytes', message: 'Text is 7500 UTF-8 bytes; Bluesky allows 3000.' },
  ]);
});

test('exactly 3000 bytes passes, 3001 fails (120 ZWJ families are 25 bytes each)', () => {
  const family = '👨‍👩‍👧‍👦';
  assert.equal(utf8Bytes(family), 25);
  assert.deepEqual(limits.text.check(family.repeat(120)), []);
  assert.deepEqual(limits.text.check(family.repeat(120) + 'a'), [
    { rule: 'text_too_many_bytes', message: 'Text is 3001 UTF-8 bytes; Bluesky allows 3000.' },
  ]);
});

test('empty text is left to the caller', () => {
  assert.deepEqual(limits.text.check(''), []);
});

test('media: up to 4 images of 2,000,000 bytes, or one mp4 video, never mixed', () => {
  assert.equal(limits.media.maxItems, 4);
  assert.equal(limits.media.mixKinds, false);
  assert.equal(limits.media.kinds.image?.maxBytes, 2_000_000);
  assert.equal(limits.media.kinds.image?.maxCount, 4);
  assert.deepEqual(limits.media.kinds.video?.contentTypes, ['video/mp4']);
  assert.equal(limits.media.kinds.video?.maxCount, 1);
  assert.equal(limits.maxThreadParts, 25);
});
