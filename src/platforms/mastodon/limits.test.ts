// Contract of Mastodon's text and media limits (docs/platforms/mastodon.md "Limits"), stock and per instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limits, mastodonLimitsFor, measure } from './limits.ts';

test('a URL counts 23 on Mastodon whatever its length', () => {
  assert.equal(measure('https://example.com'), 23);
  assert.equal(measure(`https://example.com/${'a'.repeat(200)}`), 23);
  assert.equal(measure('read http://example.org/x now'), 5 + 23 + 4);
});

test('a bare domain without http(s) is plain text', () => {
  assert.equal(measure('example.com'), 11);
});

test('mastodon mention domain is free', () => {
  assert.equal(measure('@alice@mastodon.example'), '@alice'.length);
  assert.equal(measure('hi @alice@social.example.org!'), 'hi @alice!'.length);
  assert.equal(measure('@bob'), 4);
});

test('an e-mail address is not a mention', () => {
  assert.equal(measure('mail bob@example.com'), 20);
});

test('emoji count as one character each (grapheme clusters)', () => {
  assert.equal(measure('👍🏽'), 1);
  assert.equal(measure('👨‍👩‍👧‍👦'), 1);
});

test('exactly 500 passes, 501 fails', () => {
  assert.deepEqual(limits.text.check('a'.repeat(500)), []);
  assert.deepEqual(limits.text.check('a'.repeat(501)), [
    { rule: 'text_too_long', message: 'Text is 501 characters; Mastodon allows 500.' },
  ]);
  // 476 letters + a space + a 320-character URL counted as 23 = 500
  assert.deepEqual(limits.text.check(`${'a'.repeat(476)} https://example.com/${'z'.repeat(300)}`), []);
  assert.equal(limits.text.check(`${'a'.repeat(477)} https://example.com/${'z'.repeat(300)}`).length, 1);
});

test('empty text is left to the caller', () => {
  assert.deepEqual(limits.text.check(''), []);
});

test('stock media: 4 attachments, images 16 MiB, one video ~99 MiB, no mixing', () => {
  assert.equal(limits.media.maxItems, 4);
  assert.equal(limits.media.mixKinds, false);
  assert.equal(limits.media.kinds.image?.maxBytes, 16 * 1024 * 1024);
  assert.equal(limits.media.kinds.video?.maxBytes, 99 * 1024 * 1024);
  assert.equal(limits.media.kinds.video?.maxCount, 1);
  assert.equal(limits.maxThreadParts, 25);
});

test('mastodonLimitsFor applies an instance configuration', () => {
  const l = mastodonLimitsFor({
    maxCharacters: 5000,
    maxMediaAttachments: 8,
    charactersReservedPerUrl: 30,
    imageSizeLimit: 10_485_760,
    videoSizeLimit: 41_943_040,
  });
  assert.equal(l.text.maxLength, 5000);
  assert.equal(l.text.measure('https://example.com'), 30);
  assert.deepEqual(l.text.check('a'.repeat(5000)), []);
  assert.equal(l.text.check('a'.repeat(5001))[0]?.message, 'Text is 5001 characters; Mastodon allows 5000.');
  assert.equal(l.media.maxItems, 8);
  assert.equal(l.media.kinds.image?.maxCount, 8);
  assert.equal(l.media.kinds.image?.maxBytes, 10_485_760);
  assert.equal(l.media.kinds.video?.maxBytes, 41_943_040);
});

test('mastodonLimitsFor keeps the defaults for absent or nonsensical values', () => {
  const l = mastodonLimitsFor({ maxCharacters: 0, charactersReservedPerUrl: -1, imageSizeLimit: Number.NaN });
  assert.equal(l.text.maxLength, 500);
  assert.equal(l.text.measure('https://example.com'), 23);
  assert.equal(l.media.kinds.image?.maxBytes, 16 * 1024 * 1024);
  assert.equal(mastodonLimitsFor({ charactersReservedPerUrl: 0 }).text.measure('https://example.com'), 0);
});
