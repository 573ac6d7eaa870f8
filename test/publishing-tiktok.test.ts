// TikTok end to end through the public API, a worker and the simulator run as an unaudited TikTok app: uploaded PNGs
// published as a photo post (fitted to JPEG, pulled by the simulator from Herald's signed URLs) with the most private
// level by default, a public post refused with what to do about the audit, a video whose processing fails recorded
// as a media refusal, the creator's privacy levels offered on the connection, and the option rules at creation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import {
  buildMediaTestApp,
  mediaRecord,
  serveMediaToSimulators,
  uploadBytes,
  type MediaTestApp,
} from './helpers/media.ts';
import { mp4 } from './helpers/media-fixtures.ts';
import { png } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;

before(async () => {
  const settings: Record<string, unknown> = { tiktokUnaudited: true };
  sandbox = await startSandbox({ secret: sandboxSecret(), settings, platforms: ['tiktok'] });
  t = await buildMediaTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200', HERALD_PLATFORM_TIMEOUT_MS: '3000' },
  });
  serveMediaToSimulators(t, settings);
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies, read field by field in assertions
async function publish(payload: Record<string, unknown>, label: string): Promise<any> {
  const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { publish_now: true, ...payload } });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.post.id;
  return pollFor(
    label,
    async () => {
      const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
      return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
    },
    60_000,
  );
}

async function upload(bytes: Buffer, type: string, filename: string): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, bytes, type, { filename });
  assert.ok(put.status < 300, put.body.toString());
  await pollFor(`${filename} ready`, async () => (await mediaRecord(t, key, mediaId)).status === 'ready', 60_000, 100);
  return mediaId;
}

interface SimPublish {
  description: string;
  title: string;
  privacyLevel: string;
  mediaType: string;
}
const publishesWith = async (text: string) =>
  (await sandbox.simulator('tiktok').kit.store.list<SimPublish>('publish')).filter(
    (p) => p.description === text || p.title === text,
  );

describe('TikTok through the public API (an unaudited app)', () => {
  test('two PNGs become a photo post, pulled from Herald, SELF_ONLY by default', async () => {
    const ids = [
      await upload(png(64, 48, 2048), 'image/png', 'a.png'),
      await upload(png(48, 64, 2048), 'image/png', 'b.png'),
    ];
    const text = `TikTok photos ${Date.now()}`;
    const post = await publish(
      {
        content: text,
        platforms: ['tiktok'],
        media_ids: ids,
        platform_options: { tiktok: { title: 'Two photos', photo_cover_index: 1 } },
      },
      'photo post published',
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets[0].error));
    const held = (await sandbox.simulator('tiktok').posts()).filter((p) => p.text === text);
    assert.equal(held.length, 1);
    assert.equal(held[0]!.media, 2);
    assert.equal(held[0]!.id, post.targets[0].platform_post_id);
    assert.match(post.targets[0].url, /\/@[^/]+\/photo\/\d+$/);
    const [made] = await publishesWith(text);
    assert.deepEqual([made!.mediaType, made!.title, made!.privacyLevel], ['PHOTO', 'Two photos', 'SELF_ONLY']);
  });

  test('a public post from an unaudited app fails with what to do; nothing is posted', async () => {
    const id = await upload(
      mp4({ durationMs: 6_000, width: 1280, height: 720, mdatBytes: 50_000 }),
      'video/mp4',
      'v.mp4',
    );
    const text = `TikTok public ${Date.now()}`;
    const post = await publish(
      {
        content: text,
        platforms: ['tiktok'],
        media_ids: [id],
        platform_options: { tiktok: { privacy_level: 'PUBLIC_TO_EVERYONE' } },
      },
      'public post settled',
    );
    assert.equal(post.status, 'failed');
    assert.equal(post.targets[0].error.code, 'PLATFORM_PERMISSION_DENIED');
    assert.match(post.targets[0].error.message, /not audited.*SELF_ONLY/s);
    assert.equal((await sandbox.simulator('tiktok').posts()).filter((p) => p.text === text).length, 0);
  });

  test('a video TikTok fails to process is a media refusal', async () => {
    const id = await upload(
      mp4({ durationMs: 6_000, width: 1280, height: 720, mdatBytes: 60_000 }),
      'video/mp4',
      'w.mp4',
    );
    sandbox.simulator('tiktok').faults.add({ fault: 'media_failed', operation: 'upload_media' });
    const post = await publish(
      { content: `TikTok failed video ${Date.now()}`, platforms: ['tiktok'], media_ids: [id] },
      'failed video settled',
    );
    assert.equal(post.status, 'failed');
    assert.equal(post.targets[0].error.code, 'PLATFORM_MEDIA_REJECTED');
    assert.match(post.targets[0].error.message, /file_format_check_failed/);
  });

  test("the connection offers the creator's privacy levels", async () => {
    const res = await t.inject({ url: `/v1/connections/${t.connections.tiktok}`, key });
    assert.deepEqual(res.json().data.options.privacy_levels, [
      'PUBLIC_TO_EVERYONE',
      'MUTUAL_FOLLOW_FRIENDS',
      'SELF_ONLY',
    ]);
  });

  test('options are checked at creation: 422 for bad combinations, 400 for what TikTok has not', async () => {
    const ids = [
      await upload(png(64, 48, 2048), 'image/png', 'c.png'),
      await upload(png(64, 48, 2048), 'image/png', 'd.png'),
    ];
    const create = (tiktok: Record<string, unknown>, media = ids) =>
      t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'rules', platforms: ['tiktok'], media_ids: media, platform_options: { tiktok } },
      });
    const duet = await create({ disable_duet: true });
    assert.equal(duet.statusCode, 422, duet.body);
    assert.match(duet.body, /video_option_on_photo_post/);
    const cover = await create({ photo_cover_index: 5 });
    assert.equal(cover.statusCode, 422);
    assert.match(cover.body, /photo_cover_index_out_of_range/);
    const branded = await create({ brand_content_toggle: true, privacy_level: 'SELF_ONLY' }, [ids[0]!]);
    assert.equal(branded.statusCode, 422);
    assert.match(branded.body, /branded_content_private/);
    assert.equal((await create({ thread: ['no threads'] })).statusCode, 400);
    assert.equal((await create({ privacy_level: 'EVERYONE' })).statusCode, 400);
    const none = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'text only', platforms: ['tiktok'] },
    });
    assert.equal(none.statusCode, 422);
    assert.match(none.body, /media_required/);
  });
});
