// The s3 storage driver against a local S3-compatible server (s3rver, started in this process): presigned
// PUTs that sign Content-Type and Content-Length, completion on read, attach or POST /complete, the checked
// copy under an immutable key. s3rver does not verify signatures or conditional headers, so these tests assert
// Herald's own outcomes (what it records, keeps and deletes), not the store's refusals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { sha256 } from '../src/lib/crypto.ts';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import {
  buildMediaTestApp,
  readAll,
  requestUpload,
  send,
  startLocalS3,
  type LocalS3,
  type MediaTestApp,
} from './helpers/media.ts';
import { jpeg, mp4, png } from './helpers/media-fixtures.ts';

let s3: LocalS3;
let t: MediaTestApp;
let key: string;
let client: S3Client;

before(async () => {
  s3 = await startLocalS3();
  t = await buildMediaTestApp({ env: { ...s3.env, HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' } });
  key = await t.key();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});
after(async () => {
  client?.destroy();
  await t?.close();
  await s3?.close();
});

async function objectKeys(mediaId: string): Promise<string[]> {
  const { Contents } = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (Contents ?? [])
    .map((o) => o.Key!)
    .filter((k) => k.includes(mediaId))
    .sort();
}

async function presign(bytes: Buffer, contentType: string) {
  const res = await requestUpload(t, key, { filename: 'file', content_type: contentType, size_bytes: bytes.length });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as {
    media_id: string;
    upload: { signed_url: string; headers: Record<string, string>; expires_at: string; max_bytes: number };
  };
}

const putToStore = (url: string, headers: Record<string, string>, body: Buffer) =>
  send(url, { method: 'PUT', headers, body });
const getMedia = async (id: string) => {
  const body = (await t.inject({ url: `/v1/media/${id}`, key })).json();
  return body.data ?? body; // an error envelope shows up whole in an assertion message
};

describe('s3: POST /v1/media/upload-url', () => {
  test('size_bytes is required, because the presigned URL signs the exact size', async () => {
    const res = await requestUpload(t, key, { filename: 'a.png', content_type: 'image/png' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.details[0].path, '/size_bytes');
  });

  test("the URL is the store's, signs content-length and content-type, and carries no precomputed checksum", async () => {
    const { media_id: id, upload } = await presign(png(), 'image/png');
    const url = new URL(upload.signed_url);
    assert.equal(url.origin, s3.endpoint);
    assert.equal(url.pathname, `/${s3.bucket}/uploads/${t.owner.workspaceId}/${id}`);
    assert.deepEqual(url.searchParams.get('X-Amz-SignedHeaders')!.split(';'), [
      'content-length',
      'content-type',
      'host',
    ]);
    // It expires exactly when Herald says it does.
    const signedAt = url.searchParams
      .get('X-Amz-Date')!
      .replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z');
    assert.equal(
      Date.parse(signedAt) + Number(url.searchParams.get('X-Amz-Expires')) * 1000,
      Date.parse(upload.expires_at),
    );
    assert.equal(url.searchParams.get('x-amz-checksum-crc32'), null);
    assert.deepEqual(upload.headers, { 'Content-Type': 'image/png' });
    assert.equal(upload.max_bytes, png().length);
  });
});

describe('s3: completing an upload', () => {
  test('reading the media completes it: checked, copied to an immutable key, upload key deleted, url serves the bytes', async () => {
    const bytes = jpeg(64, 48);
    const { media_id: id, upload } = await presign(bytes, 'image/jpeg');
    assert.equal((await getMedia(id)).status, 'pending_upload');
    assert.equal((await putToStore(upload.signed_url, upload.headers, bytes)).status, 200);
    const media = await getMedia(id);
    assert.equal(media.status, 'ready');
    assert.deepEqual([media.width, media.height, media.size_bytes], [64, 48, bytes.length]);
    assert.equal(media.sha256, sha256(bytes).toString('hex'));
    const keys = await objectKeys(id);
    assert.equal(keys.length, 1);
    assert.match(keys[0]!, new RegExp(`^media/${t.owner.workspaceId}/${id}/[0-9a-f-]{36}$`));
    const download = await send(media.url, { method: 'GET' });
    assert.equal(download.status, 200);
    assert.ok(download.body.equals(bytes));
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [id]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['media.ready'],
    );
  });

  test('POST /complete: 409 before the bytes arrive, then the ready media, then the same answer again', async () => {
    const bytes = mp4({ durationMs: 8_000 });
    const { media_id: id, upload } = await presign(bytes, 'video/mp4');
    const early = await t.inject({ method: 'POST', url: `/v1/media/${id}/complete`, key });
    assert.equal(early.statusCode, 409);
    await putToStore(upload.signed_url, upload.headers, bytes);
    const done = await t.inject({ method: 'POST', url: `/v1/media/${id}/complete`, key });
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().data.duration_ms, 8_000);
    const again = await t.inject({ method: 'POST', url: `/v1/media/${id}/complete`, key });
    assert.equal(again.json().data.sha256, done.json().data.sha256);
  });

  test('attaching the media to a post completes it: upload-url → PUT → create post works without a GET', async () => {
    const bytes = png(12, 12);
    const { media_id: id, upload } = await presign(bytes, 'image/png');
    await putToStore(upload.signed_url, upload.headers, bytes);
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'from s3', platforms: ['x'], media_ids: [id] },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().data.post.media[0].status, 'ready');
    assert.equal(res.json().data.post.media[0].width, 12);
  });

  test('a PUT replayed after completion cannot change the checked bytes', async () => {
    const bytes = png(3, 3);
    const { media_id: id, upload } = await presign(bytes, 'image/png');
    await putToStore(upload.signed_url, upload.headers, bytes);
    const checked = await getMedia(id);
    assert.equal(checked.status, 'ready');
    const replay = await putToStore(upload.signed_url, upload.headers, png(4, 4).subarray(0, bytes.length));
    assert.equal(replay.status, 200); // the store takes it (the URL has not expired) ...
    const after = await getMedia(id);
    assert.equal(after.sha256, checked.sha256); // ... but Herald serves and publishes the checked copy
    assert.ok((await send(after.url, { method: 'GET' })).body.equals(bytes));
  });

  test('an object larger than announced is failed and deleted', async () => {
    const { media_id: id, upload } = await presign(png(), 'image/png');
    // A real store refuses this (Content-Length is signed); s3rver takes it, so Herald's own check is what is tested.
    await putToStore(upload.signed_url, upload.headers, Buffer.concat([png(), Buffer.alloc(10)]));
    const media = await getMedia(id);
    assert.equal(media.status, 'failed');
    assert.match(media.failure_reason, /more than the \d+ allowed/);
    assert.deepEqual(await objectKeys(id), []);
  });

  test('bytes that are not the declared type are failed, and no copy is kept', async () => {
    const bytes = png();
    const { media_id: id, upload } = await presign(bytes, 'video/mp4');
    await putToStore(upload.signed_url, { 'Content-Type': 'video/mp4' }, bytes);
    const media = await getMedia(id);
    assert.equal(media.status, 'failed');
    assert.match(media.failure_reason, /image\/png, not the declared video\/mp4/);
    assert.deepEqual(await objectKeys(id), []);
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [id]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['media.failed'],
    );
    // The completion call says so as the local PUT does: 422 with the reason, not a 200 with `failed` inside.
    const completion = await t.inject({ method: 'POST', url: `/v1/media/${id}/complete`, key });
    assert.equal(completion.statusCode, 422, completion.body);
    assert.equal(completion.json().error.details[0].rule, 'upload_refused');
    assert.match(completion.json().error.message, /image\/png, not the declared video\/mp4/);
  });

  test('concurrent completions record one result and leave one copy', async () => {
    const bytes = jpeg();
    const { media_id: id, upload } = await presign(bytes, 'image/jpeg');
    await putToStore(upload.signed_url, upload.headers, bytes);
    const complete = () =>
      t.inject({ method: 'POST', url: `/v1/media/${id}/complete`, key }).then((r) => r.json().data ?? r.json());
    const answers = await Promise.all([getMedia(id), complete(), getMedia(id), complete(), getMedia(id), complete()]);
    assert.deepEqual(new Set(answers.map((a) => a?.status)), new Set(['ready']), JSON.stringify(answers));
    const keys = await objectKeys(id);
    const { rows: stored } = await t.container.pool.query('SELECT storage_key FROM media WHERE id = $1', [id]);
    assert.deepEqual(keys, [stored[0].storage_key]);
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [id]);
    assert.equal(rows.length, 1);
  });
});

describe('s3: what the publishing engine reads media through', () => {
  test('mediaForPost completes an arrived upload; openMediaStream and signedReadUrl read the checked copy', async () => {
    const bytes = jpeg(30, 20);
    const { media_id: id, upload } = await presign(bytes, 'image/jpeg');
    await putToStore(upload.signed_url, upload.headers, bytes);
    const [row] = await t.container.media.mediaForPost(t.container.pool, t.owner.workspaceId, [id]);
    assert.equal(row!.status, 'ready');
    assert.match(row!.storage_key!, /^media\//);
    const stream = await t.container.media.openMediaStream(row!.storage_key!, { start: 0, end: 1 });
    assert.ok((await readAll(stream)).equals(bytes.subarray(0, 2)));
    const { url } = await t.container.media.signedReadUrl(row!, 600);
    assert.equal(new URL(url).searchParams.get('X-Amz-Expires'), '600');
    assert.ok((await send(url, { method: 'GET' })).body.equals(bytes));
  });
});

describe('s3: deletion and cleanup', () => {
  test('DELETE then the purge job removes every object of the media', async () => {
    const bytes = png();
    const { media_id: id, upload } = await presign(bytes, 'image/png');
    await putToStore(upload.signed_url, upload.headers, bytes);
    assert.equal((await getMedia(id)).status, 'ready');
    await putToStore(upload.signed_url, upload.headers, bytes); // a replay left an object at the upload key again
    assert.equal((await objectKeys(id)).length, 2);
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/media/${id}`, key })).statusCode, 200);
    await t.container.media.tasks().purge_media({ workspace_id: t.owner.workspaceId, media_id: id });
    assert.deepEqual(await objectKeys(id), []);
  });

  test('a variant is stored beside the original in the bucket, served by a signed URL, and purged with the media', async () => {
    const bytes = jpeg(64, 48);
    const { media_id: id, upload } = await presign(bytes, 'image/jpeg');
    await putToStore(upload.signed_url, upload.headers, bytes);
    // A draft for Bluesky asks for the variant (a JPEG: metadata stripped); the job runs here, without a worker.
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'variant in s3', platforms: ['bluesky'], media_ids: [id] },
    });
    assert.equal(post.statusCode, 201, post.body);
    const { rows } = await t.container.pool.query<{ id: string }>('SELECT id FROM media_variants WHERE media_id = $1', [
      id,
    ]);
    assert.equal(rows.length, 1);
    await t.container.media
      .tasks()
      .make_media_variant(
        { workspace_id: t.owner.workspaceId, variant_id: rows[0]!.id },
        { job: { attempts: 1, max_attempts: 5 } },
      );
    const variantKey = `media/${t.owner.workspaceId}/${id}/variants/${rows[0]!.id}`;
    assert.ok((await objectKeys(id)).includes(variantKey), 'beside the original');
    const media = await getMedia(id);
    assert.deepEqual(
      media.variants.map((v: { platform: string; content_type: string }) => [v.platform, v.content_type]),
      [['bluesky', 'image/jpeg']],
    );
    const [row] = await t.container.media.mediaForPost(t.container.pool, t.owner.workspaceId, [id]);
    const fitted = await t.container.media.mediaForTarget(t.container.pool, t.owner.workspaceId, [row!], {
      platform: 'bluesky',
      limits: PLATFORM_LIMITS.bluesky,
      options: undefined,
    });
    const first = fitted[0]!;
    assert.equal(first.use, 'variant');
    if (first.use !== 'variant') return;
    const { url } = await t.container.media.signedReadUrl(
      { ...row!, storage_key: first.variant.storage_key, variant_id: first.variant.id },
      60,
    );
    const served = await fetch(url);
    assert.equal(served.status, 200);
    assert.equal(sha256(Buffer.from(await served.arrayBuffer())).toString('hex'), media.variants[0].sha256);

    await t.inject({ method: 'DELETE', url: `/v1/posts/${post.json().data.post.id}`, key });
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/media/${id}`, key })).statusCode, 200);
    await t.container.media.tasks().purge_media({ workspace_id: t.owner.workspaceId, media_id: id });
    assert.deepEqual(await objectKeys(id), [], 'the variant went with the media');
  });

  test('the cleanup sweep completes an upload nobody completed instead of throwing it away', async () => {
    const bytes = jpeg();
    const { media_id: id, upload } = await presign(bytes, 'image/jpeg');
    await putToStore(upload.signed_url, upload.headers, bytes);
    await t.container.pool.query(`UPDATE media SET upload_expires_at = now() - interval '2 days' WHERE id = $1`, [id]);
    await t.container.media.sweep();
    const row = (await t.container.pool.query('SELECT status, deleted_at FROM media WHERE id = $1', [id])).rows[0];
    assert.deepEqual([row.status, row.deleted_at], ['ready', null]);
  });
});

describe('s3: media by URL', () => {
  test('the fetched bytes are checked, then stored under an immutable key, and served from there', async () => {
    const bytes = jpeg(20, 10);
    const origin = http.createServer((_request, response) => response.writeHead(200).end(bytes));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    try {
      const port = (origin.address() as AddressInfo).port;
      const res = await t.inject({
        method: 'POST',
        url: '/v1/media',
        key,
        payload: { url: `http://127.0.0.1:${port}/photo.jpg` },
      });
      assert.equal(res.statusCode, 202, res.body);
      const id = res.json().data.id;
      // The job, run here (this file has no worker).
      const tasks = t.container.media.tasks() as Record<string, (payload: unknown, helpers: unknown) => Promise<void>>;
      await tasks.fetch_media!(
        { workspace_id: t.owner.workspaceId, media_id: id },
        { job: { attempts: 1, max_attempts: 3 } },
      );
      const media = await getMedia(id);
      assert.equal(media.status, 'ready', media.failure_reason);
      assert.deepEqual(
        [media.content_type, media.width, media.height, media.filename],
        ['image/jpeg', 20, 10, 'photo.jpg'],
      );
      assert.equal(media.sha256, sha256(bytes).toString('hex'));
      const keys = await objectKeys(id);
      assert.equal(keys.length, 1);
      assert.match(keys[0]!, new RegExp(`^media/${t.owner.workspaceId}/${id}/`));
      assert.ok((await send(media.url, { method: 'GET' })).body.equals(bytes));
    } finally {
      await new Promise<void>((resolve) => origin.close(() => resolve()));
    }
  });
});
