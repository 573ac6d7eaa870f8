// Contract of X's text and media limits (docs/platforms/x.md "Limits").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { limits, measure } from './limits.ts';

test('twitter-text ships the v3 config: 280 weighted characters, URLs 23, emoji parsing on', () => {
  const { configs } = createRequire(import.meta.url)('twitter-text');
  assert.equal(configs.version3.version, 3);
  assert.equal(configs.version3.maxWeightedTweetLength, 280);
  assert.equal(configs.version3.transformedURLLength, 23);
  assert.equal(configs.version3.emojiParsingEnabled, true);
});

test('a URL counts 23 on X whatever its length', () => {
  assert.equal(measure('https://example.com'), 23);
  assert.equal(measure(`https://example.com/${'a'.repeat(200)}`), 23);
  assert.equal(measure('see https://x.co'), 4 + 23);
});

test('a bare domain is a URL too and counts 23', () => {
  assert.equal(measure('example.com'), 23);
});

test('CJK counts double on X', () => {
  assert.equal(measure('日本語'), 6);
  assert.equal(measure('あ'.repeat(140)), 280);
  assert.deepEqual(limits.text.check('あ'.repeat(140)), []);
  assert.equal(limits.text.check('あ'.repeat(141))[0]?.rule, 'text_too_long');
});

test('an emoji, even a ZWJ family or a skin-tone sequence, weighs 2', () => {
  assert.equal(measure('👍'), 2);
  assert.equal(measure('👍🏽'), 2);
  assert.equal(measure('👨‍👩‍👧‍👦'), 2);
});

test('text is NFC-normalised before counting: e + combining acute counts as one é', () => {
  assert.equal(measure('e\u0301'), 1);
  assert.equal(measure('e\u0301'), measure('é'));
});

test('exactly 280 passes, 281 fails with a message naming platform, value, unit and limit', () => {
  assert.deepEqual(limits.text.check('a'.repeat(280)), []);
  assert.deepEqual(limits.text.check('a'.repeat(281)), [
    { rule: 'text_too_long', message: 'Text is 281 weighted characters; X allows 280.' },
  ]);
});

test('empty text is left to the caller (text vs media requirement)', () => {
  assert.deepEqual(limits.text.check(''), []);
});

test('characters X refuses are reported', () => {
  assert.equal(limits.text.check('a\uFEFFb')[0]?.rule, 'invalid_characters');
});

test('media: 4 images or 1 GIF or 1 video, never mixed', () => {
  assert.equal(limits.media.maxItems, 4);
  assert.equal(limits.media.mixKinds, false);
  assert.equal(limits.media.kinds.image?.maxCount, 4);
  assert.equal(limits.media.kinds.gif?.maxCount, 1);
  assert.equal(limits.media.kinds.video?.maxCount, 1);
  assert.ok(limits.media.kinds.gif?.contentTypes.includes('image/gif'));
  assert.equal(limits.media.kinds.document, undefined);
});
