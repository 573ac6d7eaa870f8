// Contract of Facebook's text and media limits (docs/platforms/facebook.md "Limits").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limits, measure } from './limits.ts';

test('Facebook counts code points', () => {
  assert.equal(measure('😀 ok'), 4);
});

test('exactly 63,206 passes, 63,207 fails', () => {
  assert.deepEqual(limits.text.check('a'.repeat(63_206)), []);
  assert.deepEqual(limits.text.check('a'.repeat(63_207)), [
    { rule: 'text_too_long', message: 'Text is 63207 characters; Facebook allows 63206.' },
  ]);
});

test('empty text is left to the caller', () => {
  assert.deepEqual(limits.text.check(''), []);
});

test('media: up to 10 JPEG/PNG photos of 10 MB, or one video, never mixed', () => {
  assert.equal(limits.media.maxItems, 10);
  assert.equal(limits.media.mixKinds, false);
  assert.deepEqual(limits.media.kinds.image?.contentTypes, ['image/jpeg', 'image/png']);
  assert.equal(limits.media.kinds.image?.maxBytes, 10_000_000);
  assert.equal(limits.media.kinds.video?.maxCount, 1);
  assert.equal(limits.media.kinds.gif, undefined);
});

test('Facebook has no threads', () => {
  assert.equal(limits.maxThreadParts, 0);
});
