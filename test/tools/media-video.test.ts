// Video probed at upload and checked before it is scheduled, with real files FFmpeg makes here (CI's tools stage
// installs it): ffprobe's facts and Herald's own MP4 reader agree on a real H.264/AAC MP4; a WebM is read only by
// ffprobe; and a video X or Instagram would refuse is refused at validate and create time, naming the rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWorker, type WorkerHandle } from '../../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { sandboxSecret } from '../helpers/app.ts';
import { buildMediaTestApp, mediaRecord, readAll, uploadBytes, type MediaTestApp } from '../helpers/media.ts';
import { mp4 } from '../helpers/media-fixtures.ts';
import { pollFor } from '../helpers/poll.ts';

const run = promisify(execFile);
let dir: string;
let withProbe: MediaTestApp;
let withoutProbe: MediaTestApp;
let keyWith: string;
let keyWithout: string;
let transcoder: MediaTestApp;
let worker: WorkerHandle;
let keyTranscoder: string;
let sandbox: RunningSandbox;

/** A video FFmpeg makes from its test sources: `seconds` long, `size` pixels, at `fps`, in `codec`s. */
async function makeVideo(
  name: string,
  o: { seconds?: number; size?: string; fps?: number; video?: string[]; audio?: string[] | null } = {},
): Promise<Buffer> {
  const file = path.join(dir, name);
  const audio = o.audio === null ? [] : ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${o.seconds ?? 2}`];
  await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=${o.size ?? '320x240'}:rate=${o.fps ?? 30}:duration=${o.seconds ?? 2}`,
      ...audio,
      ...(o.video ?? ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'ultrafast']),
      ...(o.audio === null ? ['-an'] : (o.audio ?? ['-c:a', 'aac'])),
      '-shortest',
      file,
    ],
    { timeout: 120_000 },
  );
  return readFile(file);
}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'herald-video-'));
  // These two do not transcode (HERALD_FFMPEG=off): a video outside a rule is refused, naming it.
  withProbe = await buildMediaTestApp({
    env: { HERALD_FFPROBE: 'ffprobe', HERALD_FFMPEG: 'off', PATH: process.env.PATH ?? '' },
  });
  withoutProbe = await buildMediaTestApp({ env: { HERALD_FFPROBE: 'off', HERALD_FFMPEG: 'off' } });
  // This one has FFmpeg on its PATH, and a worker for the variant jobs.
  sandbox = await startSandbox({ secret: sandboxSecret() });
  transcoder = await buildMediaTestApp({ env: { PATH: process.env.PATH ?? '', HERALD_SANDBOX_URL: sandbox.url } });
  worker = await startWorker(transcoder.container);
  keyWith = await withProbe.key();
  keyWithout = await withoutProbe.key();
  keyTranscoder = await transcoder.key();
});
after(async () => {
  await worker.stop();
  await transcoder.close();
  await sandbox.close();
  await withProbe.close();
  await withoutProbe.close();
  await rm(dir, { recursive: true, force: true });
});

async function upload(t: MediaTestApp, key: string, bytes: Buffer, type: string) {
  const { mediaId, put } = await uploadBytes(t, key, bytes, type, { filename: `clip.${type.split('/')[1]}` });
  assert.equal(put.status, 200, put.body.toString());
  return mediaRecord(t, key, mediaId);
}

/** An HEVC MP4 (which X refuses) made by `makeVideo` and uploaded. */
async function uploadHevc(t: MediaTestApp, key: string, name: string, o: { seconds: number; size?: string }) {
  const bytes = await makeVideo(name, { ...o, video: ['-c:v', 'libx265', '-preset', 'ultrafast', '-tag:v', 'hvc1'] });
  return upload(t, key, bytes, 'video/mp4');
}

async function rulesFor(t: MediaTestApp, key: string, mediaId: string, platforms: string[]) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts/validate',
    key,
    payload: { content: 'a video', platforms, media_ids: [mediaId] },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data.issues as { platform: string; rule: string }[]).map((i) => `${i.platform}:${i.rule}`);
}

describe('the probe at upload', () => {
  test('ffprobe and Herald’s own MP4 reader read the same facts from a real H.264/AAC MP4', async () => {
    const bytes = await makeVideo('h264.mp4', { seconds: 3, size: '640x360', fps: 25 });
    const probed = await upload(withProbe, keyWith, bytes, 'video/mp4');
    const own = await upload(withoutProbe, keyWithout, bytes, 'video/mp4');
    assert.equal(probed.video.probed_with, 'ffprobe');
    assert.equal(own.video.probed_with, 'isobmff');
    for (const media of [probed, own]) {
      assert.deepEqual([media.width, media.height], [640, 360]);
      assert.ok(Math.abs(media.duration_ms - 3_000) <= 100, String(media.duration_ms));
      assert.equal(media.video.container, 'mp4');
      assert.equal(media.video.video_codec, 'h264');
      assert.equal(media.video.audio_codec, 'aac');
      assert.ok(Math.abs(media.video.frame_rate - 25) < 0.1, String(media.video.frame_rate));
    }
    assert.deepEqual(await rulesFor(withProbe, keyWith, probed.id, ['x', 'instagram', 'threads']), []);
  });

  test('a WebM (VP9/Opus) is read by ffprobe; without it its facts are unknown, with the reason', async () => {
    const bytes = await makeVideo('vp9.webm', {
      video: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
      audio: ['-c:a', 'libopus'],
    });
    const probed = await upload(withProbe, keyWith, bytes, 'video/webm');
    assert.deepEqual(
      [probed.video.container, probed.video.video_codec, probed.video.audio_codec, probed.width, probed.height],
      ['webm', 'vp9', 'opus', 320, 240],
    );
    assert.ok(probed.duration_ms > 1_500, String(probed.duration_ms));
    assert.deepEqual(probed.unreadable, []);
    const own = await upload(withoutProbe, keyWithout, bytes, 'video/webm');
    assert.equal(own.video.video_codec, null);
    assert.deepEqual(own.unreadable.map((u: { field: string }) => u.field).sort(), [
      'duration_ms',
      'frame_rate',
      'height',
      'video_codec',
      'width',
    ]);
  });
});

describe('video rules at validate and create time', () => {
  test('a video X or Instagram would refuse is refused before it is scheduled, naming the rule', async () => {
    const hevc = await uploadHevc(withProbe, keyWith, 'hevc.mp4', { seconds: 4 });
    assert.equal(hevc.video.video_codec, 'hevc');
    assert.deepEqual(await rulesFor(withProbe, keyWith, hevc.id, ['x', 'instagram']), ['x:video_codec_unsupported']);

    const wide = await upload(
      withProbe,
      keyWith,
      await makeVideo('wide.mp4', { seconds: 4, size: '1920x1080', fps: 15 }),
      'video/mp4',
    );
    assert.deepEqual(await rulesFor(withProbe, keyWith, wide.id, ['x', 'instagram', 'threads']), [
      'x:video_resolution_too_high',
      'instagram:video_frame_rate_too_low',
      'threads:video_frame_rate_too_low',
    ]);

    const created = await withProbe.inject({
      method: 'POST',
      url: '/v1/posts',
      key: keyWith,
      payload: {
        content: 'scheduled video',
        platforms: ['x'],
        media_ids: [hevc.id],
        schedule_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    assert.equal(created.statusCode, 422, created.body);
    const [detail] = created.json().error.details;
    assert.equal(detail.rule, 'video_codec_unsupported');
    assert.equal(detail.platform, 'x');
    assert.match(detail.message, new RegExp(`Media ${hevc.id} is coded as hevc; X takes h264 video`));
  });

  test('a silent H.264 MP4 within every rule passes X, Instagram and Threads', async () => {
    const silent = await upload(
      withoutProbe,
      keyWithout,
      await makeVideo('silent.mp4', { seconds: 4, size: '720x1280', fps: 30, audio: null }),
      'video/mp4',
    );
    assert.equal(silent.video.audio_codec, null);
    assert.deepEqual([silent.width, silent.height], [720, 1280]);
    assert.deepEqual(await rulesFor(withoutProbe, keyWithout, silent.id, ['x', 'instagram', 'threads']), []);
  });
});

describe('transcoding, where FFmpeg is available', () => {
  async function draft(mediaId: string, platforms: string[]) {
    const res = await transcoder.inject({
      method: 'POST',
      url: '/v1/posts',
      key: keyTranscoder,
      payload: { content: 'a video to fit', platforms, media_ids: [mediaId] },
    });
    assert.equal(res.statusCode, 201, res.body);
  }

  test('a video outside X’s rules that a transcode mends becomes an H.264/AAC MP4 variant, with its progress', async () => {
    const hevc = await uploadHevc(transcoder, keyTranscoder, 'hevc-wide.mp4', { seconds: 3, size: '1920x1080' });
    const validated = await transcoder.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key: keyTranscoder,
      payload: { content: 'a video to fit', platforms: ['x', 'instagram'], media_ids: [hevc.id] },
    });
    const body = validated.json().data;
    assert.deepEqual(body.issues, [], 'no refusal: the transcode mends every fault');
    const onX = body.media.find((m: { platform: string }) => m.platform === 'x');
    assert.equal(onX.result, 'variant');
    assert.equal(onX.content_type, 'video/mp4');
    assert.deepEqual(onX.actions, ['transcoded from hevc/aac in mp4 to H.264/AAC MP4', 'scaled to 1280×720']);
    assert.equal(body.media.find((m: { platform: string }) => m.platform === 'instagram').result, 'original');

    await draft(hevc.id, ['x', 'instagram']);
    const done = await pollFor(
      'the transcode is made',
      async () => {
        const media = await mediaRecord(transcoder, keyTranscoder, hevc.id);
        return media.video.transcodes.some((t: { status: string }) => t.status !== 'pending') ? media : undefined;
      },
      120_000,
    );
    assert.deepEqual(
      done.video.transcodes.map((t: { platform: string; status: string; progress: number }) => [
        t.platform,
        t.status,
        t.progress,
      ]),
      [['x', 'ready', 1]],
    );
    const [variant] = done.variants;
    assert.deepEqual(
      [variant.platform, variant.content_type, variant.width, variant.height],
      ['x', 'video/mp4', 1280, 720],
    );

    // The variant's bytes are what X takes: H.264 with AAC sound, 1280×720.
    const { rows } = await transcoder.container.pool.query(
      `SELECT storage_key FROM media_variants WHERE media_id = $1 AND status = 'ready'`,
      [hevc.id],
    );
    const bytes = await readAll(await transcoder.container.media.storage.open(rows[0].storage_key));
    const file = path.join(dir, 'variant.mp4');
    await writeFile(file, bytes);
    const { stdout } = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', file]);
    const streams = JSON.parse(stdout).streams as { codec_name: string; width?: number; height?: number }[];
    assert.deepEqual(
      streams.map((st) => st.codec_name),
      ['h264', 'aac'],
    );
    assert.deepEqual([streams[0]!.width, streams[0]!.height], [1280, 720]);
  });

  test('a post on X with such a video waits for its transcode, then publishes the variant on the simulator', async () => {
    const hevc = await uploadHevc(transcoder, keyTranscoder, 'hevc-post.mp4', { seconds: 2, size: '1280x720' });
    const text = `Transcoded for X ${Date.now()}`;
    const res = await transcoder.inject({
      method: 'POST',
      url: '/v1/posts',
      key: keyTranscoder,
      payload: { content: text, platforms: ['x'], media_ids: [hevc.id], publish_now: true },
    });
    assert.equal(res.statusCode, 201, res.body);
    const postId = res.json().data.post.id;
    const post = await pollFor(
      'the post with a transcoded video settles',
      async () => {
        const p = (await transcoder.inject({ url: `/v1/posts/${postId}`, key: keyTranscoder })).json().data;
        return ['published', 'failed', 'partially_published'].includes(p.status) ? p : undefined;
      },
      120_000,
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets.map((x: { error: unknown }) => x.error)));
    const media = await mediaRecord(transcoder, keyTranscoder, hevc.id);
    assert.deepEqual(
      media.variants.map((v: { platform: string; content_type: string }) => [v.platform, v.content_type]),
      [['x', 'video/mp4']],
    );
    const held = (await sandbox.simulator('x').posts()).filter((p) => p.text === text);
    assert.equal(held.length, 1);
    assert.equal(held[0]!.media, 1, 'X got the video');
    const { rows } = await transcoder.container.pool.query(
      'SELECT attempt_count FROM post_targets WHERE post_id = $1',
      [postId],
    );
    assert.equal(rows[0].attempt_count, 1, 'waiting for the variant used no attempt');
  });

  test('a transcode that fails fails its variant with the reason and emits media.failed', async () => {
    // Boxes that say HEVC 1920×1080 over bytes that are no video at all: sniffed and probed, but FFmpeg cannot decode.
    const broken = await upload(
      transcoder,
      keyTranscoder,
      mp4({ videoCodec: 'hvc1', width: 1920, height: 1080 }),
      'video/mp4',
    );
    await draft(broken.id, ['x']);
    const done = await pollFor(
      'the transcode has failed',
      async () => {
        const media = await mediaRecord(transcoder, keyTranscoder, broken.id);
        return media.video.transcodes.some((t: { status: string }) => t.status === 'failed') ? media : undefined;
      },
      120_000,
    );
    assert.equal(done.status, 'ready', 'the original is untouched');
    assert.match(
      done.video.transcodes[0].error,
      new RegExp(`Media ${broken.id} could not be transcoded for x: FFmpeg`),
    );
    const { rows } = await transcoder.container.pool.query(
      `SELECT type, data FROM events WHERE data->>'id' = $1 ORDER BY created_at`,
      [broken.id],
    );
    assert.deepEqual(
      rows.map((r) => r.type),
      ['media.ready', 'media.failed'],
    );
    assert.equal(rows[1].data.video.transcodes[0].status, 'failed');
  });

  test('what a transcode cannot mend is still refused, naming the rule', async () => {
    const tooShort = await uploadHevc(transcoder, keyTranscoder, 'short-hevc.mp4', { seconds: 1 });
    // Instagram needs 3 s at least: duration is no transcode's business.
    assert.deepEqual(await rulesFor(transcoder, keyTranscoder, tooShort.id, ['instagram']), [
      'instagram:video_too_short',
    ]);
    const narrow = await uploadHevc(transcoder, keyTranscoder, 'narrow-hevc.mp4', { seconds: 2, size: '200x800' });
    // 1:4 is outside X's 1:3 to 3:1: the codec alone would be mended, the aspect ratio would not; both are named.
    assert.deepEqual(await rulesFor(transcoder, keyTranscoder, narrow.id, ['x']), [
      'x:video_codec_unsupported',
      'x:video_aspect_ratio_unsupported',
    ]);
  });
});
