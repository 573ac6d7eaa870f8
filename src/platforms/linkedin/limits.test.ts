// Contract of LinkedIn's text and media limits (docs/platforms/linkedin.md "Limits").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limits, measure } from './limits.ts';

test('LinkedIn counts code points: an emoji outside the BMP is 1, not 2', () => {
  assert.equal(measure('😀'), 1);
  assert.equal(measure('héllo'), 5);
});

test('a URL counts its full length on LinkedIn', () => {
  assert.equal(measure('https://example.com/abc'), 23);
  assert.equal(measure(`https://example.com/${'a'.repeat(100)}`), 120);
});

test('exactly 3000 passes, 3001 fails', () => {
  assert.deepEqual(limits.text.check('a'.repeat(3000)), []);
  assert.deepEqual(limits.text.check('a'.repeat(3001)), [
    { rule: 'text_too_long', message: 'Text is 3001 characters; LinkedIn allows 3000.' },
  ]);
  assert.deepEqual(limits.text.check('😀'.repeat(3000)), []);
});

test('empty text is left to the caller', () => {
  assert.deepEqual(limits.text.check(''), []);
});

test('media: up to 20 images, or one video, or one PDF — never mixed', () => {
  assert.equal(limits.media.maxItems, 20);
  assert.equal(limits.media.mixKinds, false);
  assert.equal(limits.media.kinds.image?.maxCount, 20);
  assert.ok(limits.media.kinds.image?.contentTypes.includes('image/gif'));
  assert.equal(limits.media.kinds.video?.maxCount, 1);
  assert.equal(limits.media.kinds.video?.minDurationMs, 3_000);
  assert.equal(limits.media.kinds.video?.maxDurationMs, 1_800_000);
  assert.deepEqual(limits.media.kinds.document?.contentTypes, ['application/pdf']);
  assert.equal(limits.media.kinds.document?.maxCount, 1);
});

test('LinkedIn has no threads', () => {
  assert.equal(limits.maxThreadParts, 0);
});
