// Contract of the limits catalogue and of its `GET /v1/platforms` description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_NAMES } from './limits.ts';
import { PLATFORM_LIMITS, describeLimits } from './catalogue.ts';

test('every platform is present, in PLATFORM_NAMES order, under its own name', () => {
  assert.deepEqual(Object.keys(PLATFORM_LIMITS), [...PLATFORM_NAMES]);
  for (const name of PLATFORM_NAMES) assert.equal(PLATFORM_LIMITS[name].platform, name);
});

test('every description survives a JSON round trip unchanged', () => {
  for (const name of PLATFORM_NAMES) {
    const described = describeLimits(PLATFORM_LIMITS[name]);
    assert.deepEqual(JSON.parse(JSON.stringify(described)), described, name);
  }
});

test('limits are positive: text length, media items, bytes and counts of every kind', () => {
  for (const name of PLATFORM_NAMES) {
    const l = PLATFORM_LIMITS[name];
    assert.ok(l.text.maxLength > 0, name);
    assert.ok(l.media.maxItems > 0, name);
    assert.ok(l.maxThreadParts >= 0, name);
    for (const [kind, rule] of Object.entries(l.media.kinds)) {
      assert.ok(rule.contentTypes.length > 0, `${name} ${kind}`);
      assert.ok(rule.maxBytes > 0 && rule.maxCount > 0 && rule.maxCount <= l.media.maxItems, `${name} ${kind}`);
      assert.ok((rule.minDurationMs ?? 0) < (rule.maxDurationMs ?? Infinity), `${name} ${kind}`);
    }
    for (const value of Object.values(l.text.caps ?? {})) assert.ok(value > 0, name);
  }
});

test("every platform accepts the empty string in check() (text-required is the caller's rule)", () => {
  for (const name of PLATFORM_NAMES) assert.deepEqual(PLATFORM_LIMITS[name].text.check(''), [], name);
});

test('the description uses snake_case and leaves out absent optional fields', () => {
  assert.deepEqual(describeLimits(PLATFORM_LIMITS.instagram), {
    text: { max_length: 2200, unit: 'characters', caps: { hashtags: 30, mentions: 20 } },
    media: {
      max_items: 10,
      required: true,
      mix_kinds: true,
      kinds: {
        image: { content_types: ['image/jpeg'], max_bytes: 8_000_000, max_count: 10 },
        video: {
          content_types: ['video/mp4', 'video/quicktime'],
          max_bytes: 300_000_000,
          max_count: 10,
          min_duration_ms: 3_000,
          max_duration_ms: 900_000,
        },
      },
      video_rules: {
        containers: ['mp4', 'mov'],
        video_codecs: ['h264', 'hevc'],
        audio_codecs: ['aac'],
        max_long_side: 1920,
        min_frame_rate: 23,
        max_frame_rate: 60,
      },
    },
    max_thread_parts: 0,
  });
  assert.equal('caps' in describeLimits(PLATFORM_LIMITS.x).text, false);
});
