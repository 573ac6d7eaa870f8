// Reading and managing media (docs/api.md "Media"): list, get with a fresh signed URL, complete, delete — with
// scopes and tenant isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { Value } from 'typebox/value';
import { Media, UploadUrlResult } from '../src/features/media/media.schemas.ts';
import {
  buildMediaTestApp,
  mediaRecord,
  readAll,
  requestUpload,
  send,
  uploadBytes,
  type MediaTestApp,
} from './helpers/media.ts';
import { jpeg, mp4, png } from './helpers/media-fixtures.ts';

let t: MediaTestApp;
let key: string;

before(async () => {
  t = await buildMediaTestApp();
  key = await t.key();
});
after(() => t.close());

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('POST /v1/media/upload-url and idempotency', () => {
  test('a retry with the same Idempotency-Key answers the same media and upload URL; nothing new is created', async () => {
    const body = { filename: 'same.png', content_type: 'image/png', size_bytes: png().length };
    const first = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      idem: 'upload-once',
      payload: body,
    });
    const again = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      idem: 'upload-once',
      payload: body,
    });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json().data, first.json().data);
    const { rows } = await t.container.pool.query(`SELECT count(*)::int AS n FROM media WHERE filename = 'same.png'`);
    assert.equal(rows[0].n, 1);
  });
});

describe('what the publishing engine reads media through', () => {
  test('mediaForPost in order, openMediaStream (whole or a range) and signedReadUrl with its own lifetime', async () => {
    const bytes = mp4({ mdatBytes: 2000 });
    const { mediaId } = await uploadBytes(t, key, bytes, 'video/mp4');
    const { media } = t.container;
    const [row, missing] = await media.mediaForPost(t.container.pool, t.owner.workspaceId, [mediaId, 'med_gone']);
    assert.equal(missing, undefined);
    assert.equal(row!.status, 'ready');
    assert.ok((await readAll(await media.openMediaStream(row!.storage_key!))).equals(bytes));
    assert.ok(
      (await readAll(await media.openMediaStream(row!.storage_key!, { start: 100, end: 199 }))).equals(
        bytes.subarray(100, 200),
      ),
    );
    const signed = await media.signedReadUrl(row!, 3600);
    const lifetime = signed.expiresAt.getTime() - Date.now();
    assert.ok(lifetime > 3590_000 && lifetime <= 3600_000, `valid for ${lifetime} ms`);
    assert.ok((await send(signed.url, { method: 'GET', origin: t.origin })).body.equals(bytes));
  });
});

describe('GET /v1/media', () => {
  test('lists newest first, pages with a cursor bound to the filters, and filters by status and kind', async () => {
    // A workspace of its own, so other tests' media do not appear.
    const own = await t.workspace('test');
    const key = await t.key({ workspaceIds: [own.workspaceId] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await uploadBytes(t, key, png(i + 1, 1), 'image/png')).mediaId);
    ids.push((await uploadBytes(t, key, mp4(), 'video/mp4')).mediaId);
    const pending = (await requestUpload(t, key, { filename: 'later.jpg', content_type: 'image/jpeg' })).json().data
      .media_id;

    const first = (await t.inject({ url: '/v1/media?limit=2', key })).json().data;
    assert.deepEqual(
      first.items.map((m: { id: string }) => m.id),
      [pending, ids[3]],
    );
    assert.equal(first.has_more, true);
    const second = (await t.inject({ url: `/v1/media?limit=2&cursor=${first.next_cursor}`, key })).json().data;
    assert.deepEqual(
      second.items.map((m: { id: string }) => m.id),
      [ids[2], ids[1]],
    );

    const videos = (await t.inject({ url: '/v1/media?kind=video', key })).json().data.items;
    assert.deepEqual(
      videos.map((m: { id: string }) => m.id),
      [ids[3]],
    );
    const waiting = (await t.inject({ url: '/v1/media?status=pending_upload', key })).json().data.items;
    assert.ok(waiting.every((m: { status: string }) => m.status === 'pending_upload'));
    assert.ok(waiting.some((m: { id: string }) => m.id === pending));

    const reused = await t.inject({ url: `/v1/media?limit=2&status=ready&cursor=${first.next_cursor}`, key });
    assert.equal(reused.statusCode, 400);
    assert.equal(reused.json().error.code, 'PUBLIC_API_QUERY_INVALID');
    const badLimit = await t.inject({ url: '/v1/media?limit=101', key });
    assert.equal(badLimit.statusCode, 400);
  });
});

describe('the documented shapes', () => {
  test('upload-url answers and media records (pending, ready, failed) match their OpenAPI schemas', async () => {
    const created = await requestUpload(t, key, { filename: 'a.png', content_type: 'image/png' });
    assert.ok(
      Value.Check(UploadUrlResult, created.json().data),
      JSON.stringify([...Value.Errors(UploadUrlResult, created.json().data)]),
    );
    const pending = (await t.inject({ url: `/v1/media/${created.json().data.media_id}`, key })).json().data;
    const ready = (await uploadBytes(t, key, mp4(), 'video/mp4')).put.json().data;
    const failed = await mediaRecord(t, key, (await uploadBytes(t, key, png(), 'image/jpeg')).mediaId);
    for (const media of [pending, ready, failed])
      assert.ok(Value.Check(Media, media), JSON.stringify([...Value.Errors(Media, media)]));
  });
});

describe('GET /v1/media/{id}', () => {
  test('a ready media has a fresh short-lived url each time it is read', async () => {
    const { mediaId } = await uploadBytes(t, key, jpeg(), 'image/jpeg');
    const media = (await t.inject({ url: `/v1/media/${mediaId}`, key })).json().data;
    assert.equal(media.object, 'media');
    assert.equal(media.status, 'ready');
    const ttl = Date.parse(media.url_expires_at) - Date.now();
    assert.ok(ttl > 800_000 && ttl <= 900_000, `url valid for ${ttl} ms`);
    const download = await send(media.url, { method: 'GET', origin: t.origin });
    assert.ok(download.body.equals(jpeg()));
  });

  test('is readable with posts:read as well as media:write, and not with other scopes', async () => {
    const { mediaId } = await uploadBytes(t, key, png(), 'image/png');
    const reader = await t.key({ scopes: ['posts:read'] });
    assert.equal((await t.inject({ url: `/v1/media/${mediaId}`, key: reader })).statusCode, 200);
    assert.equal((await t.inject({ url: '/v1/media', key: reader })).statusCode, 200);
    const other = await t.key({ scopes: ['connections:read'] });
    const res = await t.inject({ url: `/v1/media/${mediaId}`, key: other });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().error.message, /media:write.*posts:read/);
    const deleter = await t.inject({ method: 'DELETE', url: `/v1/media/${mediaId}`, key: reader });
    assert.equal(deleter.statusCode, 403);
  });

  test('media of another workspace are a 404, from every endpoint', async () => {
    const { mediaId } = await uploadBytes(t, key, png(), 'image/png');
    const other = await t.workspace('test');
    const foreign = await t.key({ workspaceIds: [other.workspaceId] });
    for (const [method, url] of [
      ['GET', `/v1/media/${mediaId}`],
      ['POST', `/v1/media/${mediaId}/complete`],
      ['DELETE', `/v1/media/${mediaId}`],
    ] as const) {
      const res = await t.inject({ method, url, key: foreign });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_NOT_FOUND');
    }
    assert.deepEqual((await t.inject({ url: '/v1/media', key: foreign })).json().data.items, []);
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: foreign,
      payload: { content: 'x', platforms: ['x'], media_ids: [mediaId] },
    });
    assert.equal(post.json().error.details[0].rule, 'media_not_found');
  });
});

describe('POST /v1/media/{id}/complete (local storage)', () => {
  test('a completed media is answered as it is; a pending one is a 409 telling the client to PUT', async () => {
    const { mediaId } = await uploadBytes(t, key, png(), 'image/png');
    const done = await t.inject({ method: 'POST', url: `/v1/media/${mediaId}/complete`, key });
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().data.status, 'ready');
    const pending = (await requestUpload(t, key, { filename: 'p.png', content_type: 'image/png' })).json().data
      .media_id;
    const res = await t.inject({ method: 'POST', url: `/v1/media/${pending}/complete`, key });
    assert.equal(res.statusCode, 409);
    assert.match(res.json().error.message, /PUT/);
  });
});

describe('DELETE /v1/media/{id}', () => {
  test('deletes the media at once and its bytes through the purge job', async () => {
    const { mediaId, put } = await uploadBytes(t, key, png(), 'image/png');
    const url = put.json().data.url;
    const file = path.join(t.dataDir, 'media', t.owner.workspaceId, mediaId);
    assert.ok(await exists(file));
    const res = await t.inject({ method: 'DELETE', url: `/v1/media/${mediaId}`, key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, { id: mediaId, object: 'media', deleted: true });
    assert.equal((await t.inject({ url: `/v1/media/${mediaId}`, key })).statusCode, 404);
    assert.equal((await send(url, { method: 'GET', origin: t.origin })).status, 403);
    const { rows } = await t.container.pool.query(`SELECT task_identifier FROM graphile_worker.jobs WHERE key = $1`, [
      `purge_media:${mediaId}`,
    ]);
    assert.deepEqual(rows, [{ task_identifier: 'purge_media' }]);
    await t.container.media.tasks().purge_media({ workspace_id: t.owner.workspaceId, media_id: mediaId });
    assert.equal(await exists(file), false);
    assert.equal((await t.container.pool.query('SELECT 1 FROM media WHERE id = $1', [mediaId])).rowCount, 0);
  });

  test('is refused with 409 while a scheduled post uses the media; allowed once the post is cancelled', async () => {
    const { mediaId } = await uploadBytes(t, key, png(), 'image/png');
    const post = (
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: {
          content: 'with media',
          platforms: ['x'],
          media_ids: [mediaId],
          schedule_at: new Date(Date.now() + 3600_000).toISOString(),
        },
      })
    ).json().data.post;
    const refused = await t.inject({ method: 'DELETE', url: `/v1/media/${mediaId}`, key });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
    assert.match(refused.json().error.message, new RegExp(post.id));
    await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/media/${mediaId}`, key })).statusCode, 200);
  });

  test('a draft that listed a deleted media shows it as deleted, and cannot be scheduled with it', async () => {
    const { mediaId } = await uploadBytes(t, key, png(), 'image/png');
    const draft = (
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'draft', platforms: ['x'], media_ids: [mediaId] },
      })
    ).json().data.post;
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/media/${mediaId}`, key })).statusCode, 200);
    const read = (await t.inject({ url: `/v1/posts/${draft.id}`, key })).json().data;
    assert.deepEqual(read.media, [{ id: mediaId, object: 'media', deleted: true }]);
    const schedule = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${draft.id}`,
      key,
      payload: { schedule_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    assert.equal(schedule.statusCode, 422);
    assert.equal(schedule.json().error.details[0].rule, 'media_not_found');
  });
});
