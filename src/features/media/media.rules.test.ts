// Media rules per platform, from PLATFORM_LIMITS: counts, types (in each platform's own kinds), sizes,
// durations and mixing. Pure functions, no database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { checkMediaForPlatform, checkMediaRules, type AttachedMedia } from './media.rules.ts';
import { UPLOAD_TYPES } from './media.types.ts';

let n = 0;
const item = (contentType: string, extra: Partial<AttachedMedia> = {}): AttachedMedia => ({
  id: `med_${++n}`,
  position: 0,
  contentType,
  sizeBytes: 100_000,
  durationMs: contentType.startsWith('video/') ? 10_000 : null,
  ...extra,
});
const positioned = (items: AttachedMedia[]) => items.map((m, position) => ({ ...m, position }));
const rules = (issues: { rule: string }[]) => issues.map((i) => i.rule);

test('every content type a platform takes can be uploaded', () => {
  for (const limits of Object.values(PLATFORM_LIMITS)) {
    for (const rule of Object.values(limits.media.kinds)) {
      for (const type of rule.contentTypes)
        assert.ok(Object.hasOwn(UPLOAD_TYPES, type), `${limits.platform} takes ${type}`);
    }
  }
});

test("a GIF is X's separate gif kind (one per post), but an image on LinkedIn, Bluesky and Mastodon", () => {
  const gifs = positioned([item('image/gif'), item('image/gif')]);
  assert.deepEqual(rules(checkMediaForPlatform('x', gifs)), ['too_many_media_of_kind']);
  assert.deepEqual(rules(checkMediaForPlatform('x', positioned([item('image/gif'), item('image/png')]))), [
    'media_mix_unsupported',
  ]);
  for (const platform of ['linkedin', 'bluesky', 'mastodon'] as const) {
    assert.deepEqual(checkMediaForPlatform(platform, positioned([item('image/gif'), item('image/png')])), [], platform);
  }
});

test('a type the platform does not take names the item by its path; an image of another type is fitted instead', () => {
  const issues = checkMediaForPlatform('instagram', positioned([item('image/jpeg'), item('application/pdf')]));
  assert.deepEqual(
    issues.map((i) => [i.platform, i.rule, i.path]),
    [['instagram', 'media_type_unsupported', '/media_ids/1']],
  );
  assert.match(issues[0]!.message, /application\/pdf/);
  // Instagram takes only JPEG, but Herald converts the rest (fit/plan.ts): no refusal here.
  for (const type of ['image/png', 'image/webp', 'image/heic', 'image/avif', 'image/gif'])
    assert.deepEqual(checkMediaForPlatform('instagram', positioned([item(type)])), [], type);
});

test("too many items, counted against the platform's maximum", () => {
  const five = positioned(Array.from({ length: 5 }, () => item('image/jpeg')));
  assert.deepEqual(rules(checkMediaForPlatform('x', five)), ['too_many_media', 'too_many_media_of_kind']);
  assert.deepEqual(checkMediaForPlatform('threads', five), []);
});

test('size caps per platform and kind; images over a cap are recompressed instead', () => {
  const big = positioned([item('video/mp4', { sizeBytes: 150_000_000 })]);
  assert.deepEqual(rules(checkMediaForPlatform('bluesky', big)), ['media_too_large']); // 100 MB cap
  assert.deepEqual(checkMediaForPlatform('x', big), []); // 512 MB cap
  const photo = positioned([item('image/png', { sizeBytes: 3_000_000 })]);
  assert.deepEqual(checkMediaForPlatform('bluesky', photo), []); // fitted to Bluesky's 1 MB by a variant
});

test('video durations: too short, too long, and unknown where the platform limits them', () => {
  assert.deepEqual(rules(checkMediaForPlatform('instagram', positioned([item('video/mp4', { durationMs: 2_000 })]))), [
    'video_too_short',
  ]);
  assert.deepEqual(rules(checkMediaForPlatform('x', positioned([item('video/mp4', { durationMs: 141_000 })]))), [
    'video_too_long',
  ]);
  assert.deepEqual(rules(checkMediaForPlatform('x', positioned([item('video/mp4', { durationMs: null })]))), [
    'video_duration_unknown',
  ]);
  // Mastodon sets no duration limit, so an unknown duration (a WebM) is fine there.
  assert.deepEqual(checkMediaForPlatform('mastodon', positioned([item('video/webm', { durationMs: null })])), []);
});

test('mixing images and video: refused where the platform forbids it, fine on Instagram and Threads carousels', () => {
  const mixed = positioned([item('image/jpeg'), item('video/mp4')]);
  for (const platform of PLATFORM_NAMES) {
    const { mixKinds: mix, kinds } = PLATFORM_LIMITS[platform].media;
    const issues = rules(checkMediaForPlatform(platform, mixed));
    // A platform that takes only one of the kinds (YouTube: video) refuses the other as a type it does not take.
    if (!kinds.image || !kinds.video) assert.ok(issues.includes('media_type_unsupported'), platform);
    else assert.equal(issues.includes('media_mix_unsupported'), !mix, platform);
  }
});

test('checkMediaRules reports each platform separately, and nothing for a post without media', () => {
  const issues = checkMediaRules(['x', 'linkedin'], positioned([item('video/quicktime')]));
  assert.deepEqual(
    issues.map((i) => `${i.platform}:${i.rule}`),
    ['linkedin:media_type_unsupported'],
  );
  assert.deepEqual(checkMediaRules(['instagram'], []), []);
});
