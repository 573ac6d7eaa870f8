// Contract of Instagram's caption and media limits (docs/platforms/instagram.md "Limits").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countHashtags, countMentions, limits, measure } from './limits.ts';

const tags = (n: number): string => Array.from({ length: n }, (_, i) => `#tag${i}`).join(' ');
const handles = (n: number): string => Array.from({ length: n }, (_, i) => `@user.${i}`).join(' ');

test('30 hashtags pass on Instagram', () => {
  assert.equal(countHashtags(tags(30)), 30);
  assert.deepEqual(limits.text.check(tags(30)), []);
});

test('31 hashtags fail on Instagram with too_many_hashtags', () => {
  assert.deepEqual(limits.text.check(tags(31)), [
    { rule: 'too_many_hashtags', message: 'Caption has 31 hashtags; Instagram allows 30.' },
  ]);
});

test('hashtags in any script count; a # inside a word or an HTML entity does not', () => {
  assert.equal(countHashtags('#日本 #café #a_b'), 3);
  assert.equal(countHashtags('a#b &#39; # alone'), 0);
});

test('20 mentions pass, 21 fail with too_many_mentions', () => {
  assert.deepEqual(limits.text.check(handles(20)), []);
  assert.deepEqual(limits.text.check(handles(21)), [
    { rule: 'too_many_mentions', message: 'Caption has 21 @mentions; Instagram allows 20.' },
  ]);
});

test('an e-mail address is not a mention', () => {
  assert.equal(countMentions('write to hello@example.com or @herald.app'), 1);
});

test('exactly 2200 characters pass, 2201 fail', () => {
  assert.equal(measure('😀'), 1);
  assert.deepEqual(limits.text.check('a'.repeat(2200)), []);
  assert.deepEqual(limits.text.check('a'.repeat(2201)), [
    { rule: 'text_too_long', message: 'Caption is 2201 characters; Instagram allows 2200.' },
  ]);
});

test('an empty caption is fine; media is what Instagram requires', () => {
  assert.deepEqual(limits.text.check(''), []);
  assert.equal(limits.media.required, true);
});

test('media: 1–10 items, JPEG-only images, mixed carousels allowed, Reels 3 s – 15 min', () => {
  assert.equal(limits.media.maxItems, 10);
  assert.equal(limits.media.mixKinds, true);
  assert.deepEqual(limits.media.kinds.image?.contentTypes, ['image/jpeg']);
  assert.equal(limits.media.kinds.image?.maxBytes, 8_000_000);
  assert.equal(limits.media.kinds.video?.minDurationMs, 3_000);
  assert.equal(limits.media.kinds.video?.maxDurationMs, 900_000);
  assert.deepEqual(limits.text.caps, { hashtags: 30, mentions: 20 });
  assert.equal(limits.maxThreadParts, 0);
});

test('an Instagram story or Reel is one media item; story-only misuses of options are named', () => {
  assert.deepEqual(limits.checkOptions!({ type: 'story' }, 1), []);
  assert.deepEqual(limits.checkOptions!({ type: 'feed' }, 3), []);
  assert.deepEqual(
    limits.checkOptions!({ type: 'story' }, 2).map((i) => i.rule),
    ['story_single_media'],
  );
  assert.deepEqual(
    limits.checkOptions!({ type: 'reel' }, 2).map((i) => i.rule),
    ['reel_single_media'],
  );
  assert.deepEqual(
    limits.checkOptions!({ type: 'story', share_to_feed: true, first_comment: 'hi' }, 1).map((i) => i.rule),
    ['share_to_feed_reels_only', 'first_comment_on_story'],
  );
});
