// Images fitted to each target, through the API with a worker and the simulators: validation says what will be
// done to each media item and refuses what cannot be fitted (naming platform, rule and media) unless `media_fit`
// says pad or crop; a PNG posted to Instagram (whose simulator refuses PNG, as Instagram does) is converted in a job
// and published; variants are listed on the media, reused by the next post, stripped of GPS, and removed with the
// media; a variant that cannot be made fails its target with the reason.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { fitOptionsOf, planImage } from '../src/features/media/fit/plan.ts';
import { variantMaker } from '../src/features/media/media.variants.ts';
import { createMediaStorage } from '../src/features/media/storage/create.ts';
import type { MediaStorage } from '../src/features/media/storage/storage.ts';
import { newId } from '../src/lib/ids.ts';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, serveMediaToSimulators, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { animatedGif, inspectImage, photo } from './helpers/photos.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;

before(async () => {
  const settings: Record<string, unknown> = {};
  sandbox = await startSandbox({ secret: sandboxSecret(), settings });
  t = await buildMediaTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200', HERALD_PLATFORM_TIMEOUT_MS: '5000' },
  });
  // The Meta simulators fetch Herald's signed read URLs (variants' too) from the listening app.
  serveMediaToSimulators(t, settings);
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
});

async function upload(bytes: Buffer, contentType: string): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, bytes, contentType, { filename: 'photo' });
  assert.equal(put.status, 200, put.body.toString());
  return mediaId;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies, read field by field in assertions
async function settle(id: string, label: string): Promise<any> {
  return pollFor(
    label,
    async () => {
      const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
      return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
    },
    90_000,
  );
}

/** The bytes stored under a key (a variant's). */
async function stored(storageKey: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await t.container.media.openMediaStream(storageKey)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The Instagram variant of an uploaded image, recorded pending without a job (nothing makes it unless a test does). */
async function pendingVariant(mediaId: string): Promise<{ variantId: string; workspaceId: string }> {
  const media = (await t.inject({ url: `/v1/media/${mediaId}`, key })).json().data;
  const plan = planImage(
    'instagram',
    PLATFORM_LIMITS.instagram,
    {
      id: mediaId,
      contentType: media.content_type,
      sizeBytes: media.size_bytes,
      width: media.width,
      height: media.height,
    },
    fitOptionsOf(undefined),
  );
  assert.equal(plan?.kind, 'variant');
  if (plan?.kind !== 'variant') throw new Error('no variant planned');
  const variantId = newId('var');
  const { rows } = await t.container.pool.query<{ workspace_id: string }>(
    `INSERT INTO media_variants (id, workspace_id, media_id, rule_key, platform, spec)
     SELECT $1, workspace_id, id, $2, 'instagram', $3 FROM media WHERE id = $4 RETURNING workspace_id`,
    [variantId, plan.ruleKey, JSON.stringify(plan.spec), mediaId],
  );
  return { variantId, workspaceId: rows[0]!.workspace_id };
}

async function variantRows(mediaId: string) {
  const { rows } = await t.container.pool.query<{
    id: string;
    platform: string;
    status: string;
    storage_key: string | null;
  }>('SELECT id, platform, status, storage_key FROM media_variants WHERE media_id = $1 ORDER BY created_at, id', [
    mediaId,
  ]);
  return rows;
}

test('validate reports per platform what will be done to each media item', async () => {
  const png = await upload(await photo(1600, 1200, { format: 'png', detail: 0.2 }), 'image/png');
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts/validate',
    key,
    payload: { content: 'fits', platforms: ['instagram', 'x'], media_ids: [png] },
  });
  assert.equal(res.statusCode, 200, res.body);
  const { valid, media } = res.json().data;
  assert.equal(valid, true);
  const instagram = media.find((m: { platform: string }) => m.platform === 'instagram');
  assert.equal(instagram.result, 'variant');
  assert.equal(instagram.content_type, 'image/jpeg');
  assert.deepEqual(instagram.actions, [
    'converted from image/png to image/jpeg',
    'scaled to 1440×1080',
    'metadata stripped',
  ]);
  const x = media.find((m: { platform: string }) => m.platform === 'x');
  assert.deepEqual(
    [x.result, x.content_type, x.width, x.height, x.actions],
    ['variant', 'image/png', 1600, 1200, ['metadata stripped']],
    'X takes the PNG, re-encoded without its metadata (a PNG may carry EXIF in an eXIf chunk)',
  );
  assert.deepEqual(await variantRows(png), [], 'validation makes nothing');
});

test("a picture outside Instagram's aspect range: 422 naming platform, rule and media, unless media_fit pads it", async () => {
  const tall = await upload(await photo(500, 1000, { detail: 0.2 }), 'image/jpeg');
  const body = { content: 'tall', platforms: ['instagram', 'threads'], media_ids: [tall] };
  const refused = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
  assert.equal(refused.statusCode, 422, refused.body);
  const details = refused.json().error.details;
  assert.equal(details.length, 1, JSON.stringify(details));
  assert.equal(details[0].platform, 'instagram');
  assert.equal(details[0].rule, 'media_aspect_ratio');
  assert.equal(details[0].path, '/media_ids/0');
  assert.match(details[0].message, new RegExp(tall));

  const padded = await t.inject({
    method: 'POST',
    url: '/v1/posts/validate',
    key,
    payload: { ...body, platform_options: { instagram: { media_fit: 'pad' } } },
  });
  const plan = padded.json().data.media.find((m: { platform: string }) => m.platform === 'instagram');
  assert.deepEqual([plan.result, plan.width, plan.height], ['variant', 800, 1000]);
  assert.ok(plan.actions.includes('padded to 4:5'));
  const created = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { ...body, platform_options: { instagram: { media_fit: 'crop' } } },
  });
  assert.equal(created.statusCode, 201, created.body);
  // Asked for when the post was written, made by the worker, listed on the media.
  const made = await pollFor('the cropped variant made', async () => {
    const rows = await variantRows(tall);
    return rows.length > 0 && rows.every((r) => r.status === 'ready') ? rows : undefined;
  });
  assert.deepEqual(made.map((r) => r.platform).sort(), ['instagram', 'threads']);
  const media = (await t.inject({ url: `/v1/media/${tall}`, key })).json().data;
  const cropped = media.variants.find((v: { platform: string }) => v.platform === 'instagram');
  assert.deepEqual([cropped.content_type, cropped.width, cropped.height], ['image/jpeg', 500, 625]);
  assert.match(cropped.sha256, /^[0-9a-f]{64}$/);
});

test('a PNG posted to Instagram is converted and published; the variant is reused, GPS-free, and removed with the media', async () => {
  // The simulator refuses a PNG, as Instagram does: without the conversion this post could not go out.
  const png = await upload(await photo(1200, 1000, { format: 'png', detail: 0.3 }), 'image/png');
  const publish = async (text: string) => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: text, platforms: ['instagram'], media_ids: [png], publish_now: true },
    });
    assert.equal(res.statusCode, 201, res.body);
    const post = await settle(res.json().data.post.id, text);
    assert.equal(post.status, 'published', JSON.stringify(post.targets.map((x: { error: unknown }) => x.error)));
    const held = (await sandbox.simulator('instagram').posts()).filter((p) => p.text === text);
    assert.equal(held.length, 1);
    assert.equal(held[0]!.media, 1, 'Instagram fetched the converted image');
  };
  await publish(`converted PNG ${Date.now()}`);
  const first = await variantRows(png);
  assert.equal(first.length, 1);
  assert.equal(first[0]!.status, 'ready');
  const bytes = await stored(first[0]!.storage_key!);
  const made = await inspectImage(bytes);
  assert.deepEqual([made.format, made.width, made.height, made.exif], ['jpeg', 1200, 1000, false]);

  await publish(`converted PNG again ${Date.now()}`);
  assert.deepEqual(await variantRows(png), first, 'made once, reused by the next post');

  // A JPEG with a GPS position: the variant Bluesky gets has none.
  const gps = await upload(await photo(800, 600, { gps: true, orientation: 6 }), 'image/jpeg');
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `no position ${Date.now()}`, platforms: ['bluesky'], media_ids: [gps], publish_now: true },
  });
  assert.equal((await settle(res.json().data.post.id, 'bluesky post')).status, 'published');
  const [variant] = await variantRows(gps);
  const sent = await inspectImage(await stored(variant!.storage_key!));
  assert.deepEqual([sent.gps, sent.exif, sent.orientation, sent.width, sent.height], [false, false, 1, 600, 800]);

  // Removed with the media: the variant's bytes and row go when the media is purged.
  const file = path.join(t.dataDir, 'media', first[0]!.storage_key!);
  await access(file);
  assert.equal((await t.inject({ method: 'DELETE', url: `/v1/media/${png}`, key })).statusCode, 200);
  await pollFor('the media purged', async () => (await variantRows(png)).length === 0 || undefined);
  await assert.rejects(access(file), /ENOENT/, 'the variant file is gone');
});

test('a variant that cannot be made fails its target with the reason', async () => {
  const gif = await upload(animatedGif(), 'image/gif');
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `animated ${Date.now()}`, platforms: ['instagram', 'x'], media_ids: [gif], publish_now: true },
  });
  assert.equal(res.statusCode, 201, res.body);
  const post = await settle(res.json().data.post.id, 'animated GIF post settled');
  assert.equal(post.status, 'partially_published');
  const instagram = post.targets.find((x: { platform: string }) => x.platform === 'instagram');
  assert.equal(instagram.status, 'failed');
  assert.equal(instagram.error.code, 'PLATFORM_MEDIA_CONVERSION_FAILED');
  assert.equal(instagram.error.category, 'media');
  assert.match(instagram.error.message, /animated GIF/);
  const x = post.targets.find((x: { platform: string }) => x.platform === 'x');
  assert.equal(x.status, 'published', 'X takes the GIF as it is');
});

test('a target waits for its variant without using an attempt, then fails with the reason if the variant fails', async () => {
  const png = await upload(await photo(600, 500, { format: 'png', detail: 0.2 }), 'image/png');
  // The variant the target needs, asked for but never made (no job): the target can only wait.
  await pendingVariant(png);
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `waits ${Date.now()}`, platforms: ['instagram'], media_ids: [png], publish_now: true },
  });
  assert.equal(res.statusCode, 201, res.body);
  const postId = res.json().data.post.id;
  const target = async () =>
    (
      await t.container.pool.query<{ id: string; status: string; attempt_count: number; claimed: boolean }>(
        `SELECT id, status, attempt_count, first_claimed_at IS NOT NULL AND claimed_by IS NULL AS claimed
           FROM post_targets WHERE post_id = $1`,
        [postId],
      )
    ).rows[0]!;
  // Claimed, then given back: the claim's attempt was withdrawn, so the count is 0 again.
  const waiting = await pollFor('the target deferred', async () => {
    const row = await target();
    return row.claimed && row.attempt_count === 0 ? row : undefined;
  });
  assert.equal(waiting.status, 'publishing');
  const finished = async () =>
    (
      await t.container.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM target_attempts WHERE target_id = $1 AND finished_at IS NOT NULL',
        [waiting.id],
      )
    ).rows[0]!.n;
  assert.equal(await finished(), 0, 'waiting is not an attempt');

  await t.container.pool.query("UPDATE media_variants SET status = 'failed', error = $2 WHERE media_id = $1", [
    png,
    `Media ${png} could not be fitted to instagram's rules: the test says no.`,
  ]);
  const post = await settle(postId, 'the waiting target failed');
  assert.equal(post.status, 'failed');
  assert.equal(post.targets[0].error.code, 'PLATFORM_MEDIA_CONVERSION_FAILED');
  assert.match(post.targets[0].error.message, /the test says no/);
  assert.equal(await finished(), 1, 'one attempt: the one that failed');
});

test('a failed variant is made again for a post written later, not for the targets that already failed on it', async () => {
  const png = await upload(await photo(640, 480, { format: 'png', detail: 0.2 }), 'image/png');
  await pendingVariant(png);
  // It failed (a storage outage, say) long enough ago to be worth another try.
  await t.container.pool.query(
    `UPDATE media_variants SET status = 'failed', error = 'storage was down', updated_at = now() - interval '10 minutes'
      WHERE media_id = $1`,
    [png],
  );
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `again ${Date.now()}`, platforms: ['instagram'], media_ids: [png], publish_now: true },
  });
  assert.equal(res.statusCode, 201, res.body);
  const post = await settle(res.json().data.post.id, 'the post with the re-made variant settled');
  assert.equal(post.status, 'published', JSON.stringify(post.targets[0]?.error));
  const rows = await variantRows(png);
  assert.equal(rows.length, 1, 'the same variant row, made again');
  assert.equal(rows[0]!.status, 'ready');
});

test('a variant finished after its media was deleted is not recorded, and leaves no bytes in storage', async () => {
  const png = await upload(await photo(400, 500, { format: 'png', detail: 0.2 }), 'image/png');
  const { variantId, workspaceId } = await pendingVariant(png);
  // The media is deleted while the job stores the variant: between the bytes written and the row made ready.
  const storage = createMediaStorage(t.config, t.container.keyring);
  const racing: MediaStorage = {
    ...storage,
    async put(storageKey, data, contentType) {
      await storage.put(storageKey, data, contentType);
      await t.container.pool.query('UPDATE media SET deleted_at = now() WHERE id = $1', [png]);
    },
  };
  const make = variantMaker({ pool: t.container.pool, storage: racing, logger: t.container.logger, conversions: 1 });
  const result = await make({ workspace_id: workspaceId, variant_id: variantId }, { attempts: 1, maxAttempts: 5 });
  assert.equal(result, 'skipped');
  const [row] = await variantRows(png);
  assert.deepEqual([row!.status, row!.storage_key], ['pending', null], 'not made ready for a deleted media');
  const file = path.join(t.dataDir, 'media', storage.variantKey(workspaceId, png, variantId));
  await assert.rejects(access(file), /ENOENT/, 'the bytes it wrote are removed again');
});
