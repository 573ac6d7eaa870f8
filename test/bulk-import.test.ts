// Bulk import (docs/queues.md "Bulk import"): a CSV uploaded through the signed-URL flow as text/csv, a dry run's
// table with per-row errors and nothing created, a real run that creates exactly the valid rows' posts with
// `created_via: queue_import` and shows its progress, a retried or doubled job that creates nothing twice, the JSON
// rows path, the limits, and tenant isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Static } from 'typebox';
import { Value } from 'typebox/value';
import { runImportJob, type ImportRunDeps } from '../src/features/bulk-import/bulk-import.run.ts';
import { BulkImportDryRun, PostImport } from '../src/features/bulk-import/bulk-import.schemas.ts';
import { MAX_IMPORT_ROWS } from '../src/features/bulk-import/bulk-import.service.ts';
import { taskList } from '../src/jobs/worker.ts';
import { buildMediaTestApp, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { future } from './helpers/posts.ts';

let t: MediaTestApp;
let key: string;
let deps: ImportRunDeps;

before(async () => {
  t = await buildMediaTestApp();
  key = await t.key();
  deps = {
    pool: t.container.pool,
    posts: t.container.posts,
    media: t.container.media,
    guard: t.container.outboundGuard,
    logger: t.container.logger,
  };
});
after(() => t.close());

const quote = (cell: string) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
const csvOf = (rows: string[][]) => rows.map((r) => r.map(quote).join(',')).join('\r\n') + '\r\n';

async function uploadCsv(text: string, apiKey = key): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, apiKey, Buffer.from(text, 'utf8'), 'text/csv', {
    filename: 'posts.csv',
  });
  assert.equal(put.status, 200, put.body.toString());
  return mediaId;
}

const bulk = (payload: Record<string, unknown>, options: { key?: string; idem?: string } = {}) =>
  t.inject({ method: 'POST', url: '/v1/posts/bulk', key: options.key ?? key, payload, idem: options.idem });

async function importedPosts(importId: string) {
  const { rows } = await t.container.pool.query<{
    id: string;
    content: string;
    created_via: string;
    platforms: string[];
    platform_options: Record<string, Record<string, unknown>>;
    status: string;
  }>(
    `SELECT p.id, p.content, p.created_via, p.platforms, p.platform_options, p.status FROM posts p
      JOIN post_import_rows r ON r.post_id = p.id WHERE r.import_id = $1 ORDER BY r.row`,
    [importId],
  );
  return rows;
}
const countImported = async () =>
  Number(
    (await t.container.pool.query(`SELECT count(*) AS n FROM posts WHERE created_via = 'queue_import'`)).rows[0].n,
  );

/** Every post of this content, whichever row result names it (a post created twice would count twice). */
const postsLike = async (pattern: string) =>
  Number((await t.container.pool.query('SELECT count(*) AS n FROM posts WHERE content LIKE $1', [pattern])).rows[0].n);

async function getImport(id: string, apiKey = key) {
  const res = await t.inject({ url: `/v1/posts/bulk/${id}`, key: apiKey });
  assert.equal(res.statusCode, 200, res.body);
  const data: Static<typeof PostImport> = res.json().data;
  assert.ok(Value.Check(PostImport, data), JSON.stringify([...Value.Errors(PostImport, data)].slice(0, 3)));
  return data;
}

const at = future(120);
const HEADER = ['content', 'platforms', 'schedule_at', 'mastodon.visibility', 'mastodon.first_comment', 'colour'];
const SAMPLE = csvOf([
  HEADER,
  ['Hello, from the import\nwith a second line', 'x', at, '', '', ''],
  ['Bad platform', 'myspace', at, '', '', ''],
  ['y'.repeat(300), 'x', at, '', '', ''],
  ['Bad date', 'x', 'next tuesday', '', '', ''],
  ['Unknown column', 'x', at, '', '', 'blue'],
  ['Two platforms', 'mastodon, bluesky', at, 'unlisted', 'More in the thread', ''],
]);

describe('text/csv uploads', () => {
  test('a CSV uploads through the signed URL and is ready, a document no platform takes', async () => {
    const id = await uploadCsv(SAMPLE);
    const media = (await t.inject({ url: `/v1/media/${id}`, key })).json().data;
    assert.equal(media.status, 'ready');
    assert.equal(media.content_type, 'text/csv');
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'with a csv', platforms: ['x'], media_ids: [id] },
    });
    assert.equal(post.statusCode, 422, post.body);
  });

  test('binary bytes declared text/csv are refused, and the CSV cap is its own', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    const { put } = await uploadBytes(t, key, png, 'text/csv', { filename: 'fake.csv' });
    assert.equal(put.status, 422, put.body.toString());
    assert.match(put.json().error.message, /not text\/csv|image\/png/);
    const big = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      payload: { filename: 'big.csv', content_type: 'text/csv', size_bytes: 11 * 1024 * 1024 },
    });
    assert.equal(big.statusCode, 413, big.body);
  });
});

describe('a dry run', () => {
  test('reports each row, with per-row errors, and creates nothing', async () => {
    const mediaId = await uploadCsv(SAMPLE);
    const before = await countImported();
    const res = await bulk({ media_id: mediaId, dry_run: true });
    assert.equal(res.statusCode, 200, res.body);
    const table: Static<typeof BulkImportDryRun> = res.json().data;
    assert.ok(Value.Check(BulkImportDryRun, table), JSON.stringify([...Value.Errors(BulkImportDryRun, table)][0]));
    assert.deepEqual(
      table.rows.map((r) => r.status),
      ['ok', 'error', 'error', 'error', 'error', 'ok'],
    );
    assert.equal(table.valid, 2);
    const errors = (row: number) => table.rows[row - 1]!.errors;
    const pairs = (row: number) => errors(row).map((e) => [e.code, e.field]);
    assert.deepEqual(pairs(2), [['platform_unknown', 'platforms']]);
    assert.ok(
      errors(3).some((e) => e.code === 'text_too_long' && e.platform === 'x' && e.field === 'content'),
      JSON.stringify(errors(3)),
    );
    assert.deepEqual(pairs(4), [['schedule_invalid', 'schedule_at']]);
    assert.deepEqual(pairs(5), [['unknown_column', 'colour']]);
    assert.equal(table.rows[0]!.preview!.platforms[0]!.text, 'Hello, from the import\nwith a second line');
    assert.equal(await countImported(), before);
    const stored = await t.container.pool.query('SELECT 1 FROM post_imports WHERE media_id = $1', [mediaId]);
    assert.equal(stored.rowCount, 0);
  });

  test('queue rows take the queue’s next free slots, in order; the queue rules are the posts API’s', async () => {
    const slots = [0, 1, 2, 3, 4, 5, 6].flatMap((day) =>
      ['09:00', '17:00'].map((time) => ({ day_of_week: day, time, timezone: 'UTC' })),
    );
    const made = await t.inject({ method: 'POST', url: '/v1/queues', key, payload: { name: 'Import queue', slots } });
    assert.equal(made.statusCode, 201, made.body);
    const queueId: string = made.json().data.id;
    const mediaId = await uploadCsv(
      csvOf([
        ['content', 'platforms', 'queue', 'queue_id', 'schedule_at'],
        ['First queued', 'x', 'next', queueId, ''],
        ['Second queued', 'x', 'next', queueId, ''],
        ['Both', 'x', 'next', queueId, at],
      ]),
    );
    const dry = await bulk({ media_id: mediaId, dry_run: true });
    assert.equal(dry.statusCode, 200, dry.body);
    const table: Static<typeof BulkImportDryRun> = dry.json().data;
    assert.deepEqual(
      table.rows.map((r) => [r.status, r.errors.map((e) => e.code)]),
      [
        ['ok', []],
        ['ok', []],
        ['error', ['queue_with_schedule']],
      ],
    );
    const res = await bulk({ media_id: mediaId });
    assert.equal(res.statusCode, 202, res.body);
    await runImportJob(deps, { workspace_id: t.owner.workspaceId, import_id: res.json().data.id }, false);
    const views = [];
    for (const post of await importedPosts(res.json().data.id))
      views.push((await t.inject({ url: `/v1/posts/${post.id}`, key })).json().data);
    assert.deepEqual(
      views.map((v) => [v.content, v.queue_id, v.status]),
      [
        ['First queued', queueId, 'scheduled'],
        ['Second queued', queueId, 'scheduled'],
      ],
    );
    assert.ok(Date.parse(views[0].schedule_at) < Date.parse(views[1].schedule_at), JSON.stringify(views));
  });
});

describe('a real run', () => {
  test('creates exactly the valid rows’ posts, with queue_import, and shows progress and row results', async () => {
    const mediaId = await uploadCsv(SAMPLE);
    const res = await bulk({ media_id: mediaId });
    assert.equal(res.statusCode, 202, res.body);
    const queued = res.json().data;
    assert.equal(queued.status, 'queued');
    assert.deepEqual([queued.total, queued.done, queued.created], [6, 0, 0]);
    const job = await t.container.pool.query(
      `SELECT 1 FROM graphile_worker.jobs WHERE task_identifier = 'import_posts' AND key = $1`,
      [`import_posts:${queued.id}`],
    );
    assert.equal(job.rowCount, 1);
    assert.equal(typeof taskList(t.container).import_posts, 'function', 'the worker runs import_posts');

    await runImportJob(deps, { workspace_id: t.owner.workspaceId, import_id: queued.id }, false);
    const done = await getImport(queued.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.total, done.done, done.created, done.failed], [6, 6, 2, 4]);
    assert.deepEqual(
      done.rows.map((r: { row: number; status: string }) => [r.row, r.status]),
      [
        [1, 'ok'],
        [2, 'error'],
        [3, 'error'],
        [4, 'error'],
        [5, 'error'],
        [6, 'ok'],
      ],
    );
    const posts = await importedPosts(queued.id);
    assert.deepEqual(
      posts.map((p) => p.id),
      [done.rows[0]!.post_id, done.rows[5]!.post_id],
    );
    assert.ok(posts.every((p) => p.created_via === 'queue_import' && p.status === 'scheduled'));
    assert.deepEqual(posts[1]!.platforms, ['mastodon', 'bluesky']);
    assert.equal(posts[1]!.platform_options.mastodon!.visibility, 'unlisted');
    assert.deepEqual(posts[1]!.platform_options.mastodon!.first_comment, { text: 'More in the thread' });
    const view = (await t.inject({ url: `/v1/posts/${posts[0]!.id}`, key })).json().data;
    assert.equal(view.created_via, 'queue_import');

    // The same file again, under another Idempotency-Key: the same import, nothing new.
    const again = await bulk({ media_id: mediaId });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().data.id, queued.id);
    assert.equal((await importedPosts(queued.id)).length, 2);
  });

  test('a retried job and two runs at once create each row’s post once', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({
      content: `Retried row ${i + 1}`,
      platforms: ['x'],
      schedule_at: at,
    }));
    const res = await bulk({ rows });
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json().data.id;
    const payload = { workspace_id: t.owner.workspaceId, import_id: id };
    await Promise.all([runImportJob(deps, payload, false), runImportJob(deps, payload, false)]);
    assert.equal(await postsLike('Retried row %'), 12);
    // A retry after a crash before the import was marked completed: every row is recorded, nothing is created.
    await t.container.pool.query(`UPDATE post_imports SET status = 'running' WHERE id = $1`, [id]);
    await runImportJob(deps, payload, false);
    const done = await getImport(id);
    assert.deepEqual([done.status, done.done, done.created], ['completed', 12, 12]);
    assert.equal(await postsLike('Retried row %'), 12);
    // The same request repeated with its Idempotency-Key answers the first import.
    const repeat = await bulk({ rows }, { idem: 'bulk-repeat' });
    const replay = await bulk({ rows }, { idem: 'bulk-repeat' });
    assert.equal(repeat.json().data.id, replay.json().data.id);
    assert.equal(done.approval_batch_id, null, 'nothing was held: no batch is left behind');
  });

  test('the posts an approval policy holds join one batch, which a reviewer approves at once', async () => {
    const policy = (payload: Record<string, unknown>) =>
      t.inject({ method: 'PATCH', url: '/v1/approvals/policy', key, payload });
    const current = (await t.inject({ url: '/v1/approvals/policy', key })).json().data;
    const held = await policy({
      version: current.version,
      mode: 'everyone',
      sources: ['queue_import'],
      allow_self_approval: true,
    });
    assert.equal(held.statusCode, 200, held.body);
    try {
      const rows = ['One', 'Two', 'Three'].map((n) => ({
        content: `Held row ${n}`,
        platforms: ['x'],
        schedule_at: at,
      }));
      const res = await bulk({ rows });
      assert.equal(res.statusCode, 202, res.body);
      const id = res.json().data.id;
      await runImportJob(deps, { workspace_id: t.owner.workspaceId, import_id: id }, false);
      const done = await getImport(id);
      assert.equal(done.created, 3);
      assert.match(done.approval_batch_id ?? '', /^aprb_/);
      const { rows: items } = await t.container.pool.query<{ id: string }>(
        `SELECT id FROM approval_items WHERE batch_id = $1 AND status = 'pending' ORDER BY id`,
        [done.approval_batch_id],
      );
      assert.equal(items.length, 3, 'each held post is an item of the batch');
      const batch = (await t.inject({ url: `/v1/approvals/batches/${done.approval_batch_id}`, key })).json().data;
      assert.equal(batch.status, 'completed', 'the batch closed with the import');
      const approved = await t.inject({
        method: 'POST',
        url: `/v1/approvals/batches/${done.approval_batch_id}/actions`,
        key,
        payload: { action: 'approve_all', expected_item_ids: items.map((i) => i.id) },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      const statuses = (await importedPosts(id)).map((p) => p.status);
      assert.deepEqual(statuses, ['scheduled', 'scheduled', 'scheduled']);
    } finally {
      const after = (await t.inject({ url: '/v1/approvals/policy', key })).json().data;
      await policy({ version: after.version, mode: 'off' });
    }
  });
});

describe('JSON rows', () => {
  test('rows take the posts fields, connections name the platforms, and bad rows are reported', async () => {
    const rows = [
      { content: 'By platform', platforms: ['x'], schedule_at: at, metadata: { campaign: 'q4' } },
      { content: 'By connection', connection_ids: [t.connections.bluesky], schedule_at: at },
      { content: 'Nowhere' },
      { content: 'Extra', platforms: ['x'], colour: 'blue' },
      { content: 'Blocked media', platforms: ['x'], media_urls: ['https://127.0.0.1/a.png'] },
    ];
    const dry = await bulk({ rows, dry_run: true });
    assert.equal(dry.statusCode, 200, dry.body);
    const table = dry.json().data;
    assert.deepEqual(
      table.rows.map((r: { status: string; errors: { code: string }[] }) => [r.status, r.errors.map((e) => e.code)]),
      [
        ['ok', []],
        ['ok', []],
        ['error', ['field_required']],
        ['error', ['unknown_field']],
        ['error', ['url_address_blocked']],
      ],
    );
    const res = await bulk({ rows });
    assert.equal(res.statusCode, 202, res.body);
    await runImportJob(deps, { workspace_id: t.owner.workspaceId, import_id: res.json().data.id }, false);
    const posts = await importedPosts(res.json().data.id);
    assert.deepEqual(
      posts.map((p) => [p.content, p.platforms]),
      [
        ['By platform', ['x']],
        ['By connection', ['bluesky']],
      ],
    );
  });
});

describe('limits', () => {
  test(`more than ${MAX_IMPORT_ROWS} rows, no rows, or both sources are refused clearly`, async () => {
    const many = Array.from({ length: MAX_IMPORT_ROWS + 1 }, () => ({ content: 'x', platforms: ['x'] }));
    const over = await bulk({ rows: many, dry_run: true });
    assert.equal(over.statusCode, 422, over.body);
    assert.equal(over.json().error.details[0].rule, 'import_too_many_rows');
    const lines = [['content', 'platforms'], ...Array.from({ length: MAX_IMPORT_ROWS + 1 }, () => ['x', 'x'])];
    const file = await bulk({ media_id: await uploadCsv(csvOf(lines)) });
    assert.equal(file.statusCode, 422, file.body);
    assert.equal(file.json().error.details[0].rule, 'import_too_many_rows');
    const empty = await bulk({ rows: [] });
    assert.equal(empty.statusCode, 422, empty.body);
    assert.equal(empty.json().error.details[0].rule, 'import_empty');
    const both = await bulk({ rows: [{ content: 'x' }], media_id: 'med_x' });
    assert.equal(both.statusCode, 400, both.body);
    const broken = await bulk({ media_id: await uploadCsv('content,platforms\n"unclosed,x\n') });
    assert.equal(broken.statusCode, 422, broken.body);
    assert.equal(broken.json().error.details[0].rule, 'csv_invalid');
    const png = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      payload: { filename: 'a.png', content_type: 'image/png' },
    });
    const notCsv = await bulk({ media_id: png.json().data.media_id });
    assert.equal(notCsv.statusCode, 422, notCsv.body);
    assert.equal(notCsv.json().error.details[0].rule, 'media_not_csv');
  });
});

describe('tenancy', () => {
  test('another workspace reaches neither the import nor the file; a key of another brand sees no import', async () => {
    const res = await bulk({ rows: [{ content: 'Mine', platforms: ['x'], schedule_at: at }] });
    const id = res.json().data.id;
    const mediaId = await uploadCsv(SAMPLE);
    const other = await t.workspace();
    const theirs = await t.key({ workspaceIds: [other.workspaceId] });
    const headers = { 'x-herald-workspace-id': other.workspaceId };
    const read = await t.inject({ url: `/v1/posts/bulk/${id}`, key: theirs, headers });
    assert.equal(read.statusCode, 404, read.body);
    const file = await t.inject({
      method: 'POST',
      url: '/v1/posts/bulk',
      key: theirs,
      headers,
      payload: { media_id: mediaId, dry_run: true },
    });
    assert.equal(file.statusCode, 404, file.body);
    const brand = await t.inject({
      method: 'POST',
      url: '/v1/brands',
      key,
      payload: { name: 'Other brand' },
    });
    assert.equal(brand.statusCode, 201, brand.body);
    const limited = await t.key({ brandIds: [brand.json().data.id] });
    const hidden = await t.inject({ url: `/v1/posts/bulk/${id}`, key: limited });
    assert.equal(hidden.statusCode, 404, hidden.body);
    assert.equal((await getImport(id)).id, id);
  });
});
