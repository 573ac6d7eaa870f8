// Contract of Threads' text and media limits (docs/platforms/threads.md "Limits").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limits, measure } from './limits.ts';

test('Threads counts 👍 as 4 (its UTF-8 bytes)', () => {
  assert.equal(measure('👍'), 4);
  assert.equal(measure('ok 👍'), 3 + 4);
});

test('a skin-tone or ZWJ emoji counts all its bytes', () => {
  assert.equal(measure('👍🏽'), 8);
  assert.equal(measure('👨‍👩‍👧‍👦'), 25);
  assert.equal(measure('❤️'), 6);
  assert.equal(measure('🇫🇷'), 8);
});

test('other text counts one per grapheme, accents and CJK included', () => {
  assert.equal(measure('héllo'), 5);
  assert.equal(measure('e\u0301'), 1);
  assert.equal(measure('日本語'), 3);
});

test('exactly 500 passes, 501 fails', () => {
  assert.deepEqual(limits.text.check('a'.repeat(500)), []);
  assert.deepEqual(limits.text.check('a'.repeat(501)), [
    { rule: 'text_too_long', message: 'Text is 501 characters (emoji counted as UTF-8 bytes); Threads allows 500.' },
  ]);
  assert.deepEqual(limits.text.check('👍'.repeat(125)), []);
  assert.equal(limits.text.check('👍'.repeat(125) + 'a')[0]?.rule, 'text_too_long');
});

test('five links pass, a sixth fails with too_many_links', () => {
  const five = [
    'https://a.example.com',
    'https://b.example.com',
    'c.example.org',
    'https://d.io/x',
    'http://e.net',
  ].join(' ');
  assert.deepEqual(limits.text.check(five), []);
  assert.deepEqual(limits.text.check(`${five} https://f.example.com`), [
    { rule: 'too_many_links', message: 'Text has 6 links; Threads allows 5.' },
  ]);
});

test('empty text is left to the caller', () => {
  assert.deepEqual(limits.text.check(''), []);
});

test('media: up to 20 mixed images and videos, video at most 5 minutes', () => {
  assert.equal(limits.media.maxItems, 20);
  assert.equal(limits.media.mixKinds, true);
  assert.deepEqual(limits.media.kinds.image?.contentTypes, ['image/jpeg', 'image/png']);
  assert.equal(limits.media.kinds.video?.maxDurationMs, 300_000);
  assert.equal(limits.text.caps?.links, 5);
  assert.equal(limits.maxThreadParts, 25);
});
