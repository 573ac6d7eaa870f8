// The posts API as docs/api.md "Posts" describes it, after creation: read, edit (merge-patch), cancel and delete.
// Creating and validating: posts-create.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { future, postRequests } from './helpers/posts.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

const { create } = postRequests(() => ({ t, key }));

describe('GET /v1/posts/{id}', () => {
  test('returns the post with targets and attempts', async () => {
    const id = (await create({ content: 'read me', platforms: ['threads'] })).json().data.post.id;
    const res = await t.inject({ url: `/v1/posts/${id}`, key });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.id, id);
    assert.deepEqual(res.json().data.targets[0].attempts, []);
  });

  test('an unknown id is a 404 PUBLIC_API_NOT_FOUND', async () => {
    const res = await t.inject({ url: '/v1/posts/post_doesnotexist', key });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'PUBLIC_API_NOT_FOUND');
  });
});

describe('PATCH /v1/posts/{id}', () => {
  test('merge-patches content and reschedules the jobs', async () => {
    const post = (await create({ content: 'v1', platforms: ['x'], schedule_at: future(60) })).json().data.post;
    const when = future(120);
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ content: 'v2', schedule_at: when }),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.content, 'v2');
    assert.equal(res.json().data.schedule_at, when);
    const { rows } = await t.container.pool.query('SELECT run_at FROM graphile_worker.jobs WHERE key = $1', [
      `publish:${post.targets[0].id}`,
    ]);
    assert.equal(new Date(rows[0].run_at).toISOString(), when);
  });

  test('schedule_at: null turns a scheduled post back into a draft and removes its jobs', async () => {
    const post = (await create({ content: 'v1', platforms: ['x'], schedule_at: future() })).json().data.post;
    const res = await t.inject({ method: 'PATCH', url: `/v1/posts/${post.id}`, key, payload: { schedule_at: null } });
    assert.equal(res.json().data.status, 'draft');
    assert.equal(res.json().data.targets[0].status, 'pending');
    const { rows } = await t.container.pool.query('SELECT 1 FROM graphile_worker.jobs WHERE key = $1', [
      `publish:${post.targets[0].id}`,
    ]);
    assert.equal(rows.length, 0);
  });

  test('changing platforms replaces the targets', async () => {
    const post = (await create({ content: 'v1', platforms: ['x'], schedule_at: future() })).json().data.post;
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { platforms: ['bluesky', 'mastodon'] },
    });
    assert.deepEqual(
      res.json().data.targets.map((x: { platform: string }) => x.platform),
      ['bluesky', 'mastodon'],
    );
    const { rows } = await t.container.pool.query('SELECT key FROM graphile_worker.jobs WHERE key = ANY($1)', [
      [`publish:${post.targets[0].id}`, ...res.json().data.targets.map((x: { id: string }) => `publish:${x.id}`)],
    ]);
    assert.equal(rows.length, 2);
  });

  test('platform_options merge: null removes a key, other keys stay', async () => {
    const post = (
      await create({
        content: 'v1',
        platforms: ['mastodon'],
        platform_options: { mastodon: { visibility: 'unlisted', spoiler_text: 'cw' } },
      })
    ).json().data.post;
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { platform_options: { mastodon: { spoiler_text: null } } },
    });
    assert.deepEqual(res.json().data.platform_options, { mastodon: { visibility: 'unlisted' } });
    const bad = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { platform_options: { mastodon: { visibility: 'everyone' } } },
    });
    assert.equal(bad.statusCode, 400);
    // Checked against the options' schema after the merge (TypeBox's value checker, loaded on this first use).
    assert.equal(bad.json().error.code, 'PUBLIC_API_BODY_INVALID');
    assert.ok(
      bad.json().error.details.some((d: { path: string }) => d.path.startsWith('/platform_options/mastodon')),
      JSON.stringify(bad.json().error.details),
    );
  });

  test('the patched post is re-validated against the limits', async () => {
    const post = (await create({ content: 'v1', platforms: ['x'] })).json().data.post;
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { content: 'z'.repeat(281) },
    });
    assert.equal(res.statusCode, 422);
  });

  test('a cancelled post cannot be edited: 409 PUBLIC_API_STATE_CONFLICT', async () => {
    const post = (await create({ content: 'v1', platforms: ['x'] })).json().data.post;
    await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    const res = await t.inject({ method: 'PATCH', url: `/v1/posts/${post.id}`, key, payload: { content: 'v2' } });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
  });

  // Cancelling a post being published: test/publishing-control.test.ts.
  test('a post being published cannot be edited or deleted', async () => {
    const post = (await create({ content: 'busy', platforms: ['x'], schedule_at: future() })).json().data.post;
    await t.container.pool.query(`UPDATE posts SET status = 'publishing' WHERE id = $1`, [post.id]);
    for (const [method, url] of [
      ['PATCH', `/v1/posts/${post.id}`],
      ['DELETE', `/v1/posts/${post.id}`],
    ] as const) {
      const res = await t.inject({ method, url, key, payload: method === 'PATCH' ? { content: 'x' } : undefined });
      assert.equal(res.statusCode, 409, `${method} ${url}`);
    }
  });
});

describe('cancel and delete', () => {
  test('cancel removes the jobs, marks targets cancelled and emits post.cancelled', async () => {
    const post = (await create({ content: 'c', platforms: ['x'], schedule_at: future() })).json().data.post;
    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.status, 'cancelled');
    assert.equal(res.json().data.targets[0].status, 'cancelled');
    const jobs = await t.container.pool.query('SELECT 1 FROM graphile_worker.jobs WHERE key = $1', [
      `publish:${post.targets[0].id}`,
    ]);
    assert.equal(jobs.rows.length, 0);
    const again = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(again.statusCode, 409);
  });

  test('action POSTs accept {} with or without a Content-Type', async () => {
    for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/json' }]) {
      const post = (await create({ content: 'c', platforms: ['x'] })).json().data.post;
      const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key, headers, payload: '{}' });
      assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
    }
  });

  test('delete soft-deletes: the post is gone from the API and post.deleted is emitted', async () => {
    const post = (await create({ content: 'd', platforms: ['x'], schedule_at: future() })).json().data.post;
    const res = await t.inject({ method: 'DELETE', url: `/v1/posts/${post.id}`, key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, { id: post.id, object: 'post', deleted: true });
    assert.equal((await t.inject({ url: `/v1/posts/${post.id}`, key })).statusCode, 404);
    const { rows } = await t.container.pool.query(
      `SELECT type FROM events WHERE data->>'id' = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [post.id],
    );
    assert.equal(rows[0].type, 'post.deleted');
  });
});
