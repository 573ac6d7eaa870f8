// The media cleanup job: uploads that never completed, media no post refers to after the retention period,
// purges that did not happen, and temporary files a crash left behind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { taskList } from '../src/jobs/worker.ts';
import { buildMediaTestApp, requestUpload, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { png } from './helpers/media-fixtures.ts';

let t: MediaTestApp;
let key: string;

before(async () => {
  t = await buildMediaTestApp({ env: { HERALD_MEDIA_RETENTION_DAYS: '7' } });
  key = await t.key();
});
after(() => t.close());

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
const fileOf = (id: string) => path.join(t.dataDir, 'media', t.owner.workspaceId, id);
const rowOf = async (id: string) =>
  (await t.container.pool.query('SELECT status, deleted_at FROM media WHERE id = $1', [id])).rows[0];
const age = (id: string, column: 'created_at' | 'upload_expires_at' | 'deleted_at', interval: string) =>
  t.container.pool.query(`UPDATE media SET ${column} = now() - $2::interval WHERE id = $1`, [id, interval]);

test('the worker runs the media tasks', () => {
  const tasks = taskList(t.container);
  assert.equal(typeof tasks.media_cleanup, 'function');
  assert.equal(typeof tasks.purge_media, 'function');
});

test('an upload URL expired over a day ago without an upload is removed; a recent one stays', async () => {
  const abandoned = (await requestUpload(t, key, { filename: 'a.png', content_type: 'image/png' })).json().data
    .media_id;
  const waiting = (await requestUpload(t, key, { filename: 'b.png', content_type: 'image/png' })).json().data.media_id;
  await age(abandoned, 'upload_expires_at', '25 hours');
  await age(waiting, 'upload_expires_at', '23 hours');
  const report = await t.container.media.sweep();
  assert.ok(report.abandoned >= 1);
  assert.equal(await rowOf(abandoned), undefined);
  assert.equal((await rowOf(waiting)).status, 'pending_upload');
});

test('media older than the retention period go unless a post refers to them', async () => {
  const unused = (await uploadBytes(t, key, png(1, 1), 'image/png')).mediaId;
  const used = (await uploadBytes(t, key, png(2, 2), 'image/png')).mediaId;
  const recent = (await uploadBytes(t, key, png(3, 3), 'image/png')).mediaId;
  const draft = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: 'keeps its media', platforms: ['x'], media_ids: [used] },
  });
  assert.equal(draft.statusCode, 201);
  await age(unused, 'created_at', '8 days');
  await age(used, 'created_at', '8 days');
  const report = await t.container.media.sweep();
  assert.ok(report.expired >= 1);
  assert.equal(await rowOf(unused), undefined);
  assert.equal(await exists(fileOf(unused)), false);
  assert.equal((await rowOf(used)).status, 'ready');
  assert.ok(await exists(fileOf(used)));
  assert.ok(await exists(fileOf(recent)));
  // Once the post is deleted, nothing refers to the media any more.
  await t.inject({ method: 'DELETE', url: `/v1/posts/${draft.json().data.post_id}`, key });
  await t.container.media.sweep();
  assert.equal(await rowOf(used), undefined);
});

test('a deleted media whose purge job never ran is purged by the sweep', async () => {
  const id = (await uploadBytes(t, key, png(), 'image/png')).mediaId;
  await t.inject({ method: 'DELETE', url: `/v1/media/${id}`, key });
  await t.container.media.sweep();
  assert.ok(await exists(fileOf(id)), 'a fresh deletion is left to its purge job');
  await age(id, 'deleted_at', '2 hours');
  await t.container.media.sweep();
  assert.equal(await rowOf(id), undefined);
  assert.equal(await exists(fileOf(id)), false);
});

test('temporary upload files untouched for hours are removed; a live one is not', async () => {
  const incoming = path.join(t.dataDir, 'media', '.incoming');
  await mkdir(incoming, { recursive: true });
  const stale = path.join(incoming, 'stale.part');
  const live = path.join(incoming, 'live.part');
  await writeFile(stale, 'half an upload');
  await writeFile(live, 'an upload in progress');
  const old = new Date(Date.now() - 7 * 3600_000);
  await utimes(stale, old, old);
  const report = await t.container.media.sweep();
  assert.equal(report.temporaryFiles, 1);
  assert.equal(await exists(stale), false);
  assert.ok(await exists(live));
});
