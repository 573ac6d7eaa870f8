// Video rules per platform: what X, Instagram and Threads refuse of a video's container, codecs, size, aspect and
// frame rate, named by rule, from the catalogue's own rules (no platform names in the checks themselves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { checkMediaForPlatform, type AttachedMedia } from './media.rules.ts';
import { checkVideoRules, type VideoFactsForRules } from './media.video-rules.ts';

const good: Omit<VideoFactsForRules, 'id'> = {
  width: 1280,
  height: 720,
  container: 'mp4',
  videoCodec: 'h264',
  audioCodec: 'aac',
  frameRate: 30,
};

function video(facts: Partial<VideoFactsForRules> = {}): AttachedMedia {
  return {
    id: 'med_v',
    position: 0,
    contentType: 'video/mp4',
    sizeBytes: 5_000_000,
    durationMs: 10_000,
    video: { ...good, ...facts },
  };
}

const rules = (platform: 'x' | 'instagram' | 'threads', facts: Partial<VideoFactsForRules> = {}) =>
  checkMediaForPlatform(platform, [video(facts)]).map((i) => i.rule);

test('an H.264/AAC 1280×720 30 fps MP4 passes X, Instagram and Threads', () => {
  for (const platform of ['x', 'instagram', 'threads'] as const) assert.deepEqual(rules(platform), [], platform);
});

test('each broken video rule is named, with the media and the platform', () => {
  assert.deepEqual(rules('x', { videoCodec: 'hevc' }), ['video_codec_unsupported']);
  assert.deepEqual(rules('instagram', { videoCodec: 'hevc' }), []);
  assert.deepEqual(rules('x', { audioCodec: 'opus' }), ['audio_codec_unsupported']);
  assert.deepEqual(rules('x', { audioCodec: null }), [], 'a silent video has no sound codec to refuse');
  assert.deepEqual(rules('x', { width: 1920, height: 1080 }), ['video_resolution_too_high']);
  assert.deepEqual(rules('x', { width: 1024, height: 1280 }), [], 'the box is either way round');
  assert.deepEqual(rules('x', { width: 16, height: 16 }), ['video_resolution_too_low']);
  assert.deepEqual(rules('x', { width: 1280, height: 400 }), ['video_aspect_ratio_unsupported']);
  assert.deepEqual(rules('instagram', { width: 3840, height: 2160 }), ['video_resolution_too_high']);
  assert.deepEqual(rules('instagram', { frameRate: 15 }), ['video_frame_rate_too_low']);
  assert.deepEqual(rules('threads', { frameRate: 120 }), ['video_frame_rate_too_high']);
  assert.deepEqual(rules('instagram', { frameRate: 23.976 }), []);
  assert.deepEqual(rules('x', { container: 'webm' }), ['video_container_unsupported']);

  const [issue] = checkMediaForPlatform('x', [video({ videoCodec: 'vp9' })]);
  assert.equal(issue?.platform, 'x');
  assert.equal(issue?.path, '/media_ids/0');
  assert.match(issue!.message, /med_v.*vp9.*X takes h264/);
});

test('a fact Herald could not read is reported as unknown where a rule needs it, never guessed', () => {
  assert.deepEqual(rules('instagram', { frameRate: null }), ['video_facts_unknown']);
  assert.deepEqual(rules('x', { videoCodec: null, width: null, height: null }), [
    'video_facts_unknown',
    'video_facts_unknown',
  ]);
  const [issue] = checkMediaForPlatform('instagram', [video({ frameRate: null })]);
  assert.match(issue!.message, /frame rate of media med_v/);
});

test('platforms that declare no video rules check only type, size and duration', () => {
  for (const platform of ['linkedin', 'facebook', 'bluesky'] as const) {
    assert.equal(PLATFORM_LIMITS[platform].media.videoRules, undefined, platform);
    assert.deepEqual(checkMediaForPlatform(platform, [video({ videoCodec: 'prores', frameRate: 240 })]), []);
  }
});

test('the rules checker reads only the rules it is given', () => {
  assert.deepEqual(checkVideoRules('Somewhere', {}, { id: 'med_x', ...good, videoCodec: null }), []);
  assert.deepEqual(
    checkVideoRules('Somewhere', { maxLongSide: 640 }, { id: 'med_x', ...good }).map((i) => i.message),
    ['Media med_x is 1280×720; Somewhere takes video up to 640 px on its long side (either way round).'],
  );
});
