// The posts API as docs/api.md "Posts" describes it, creating: POST /v1/posts with every rule it checks, and
// POST /v1/posts/validate. Reading, editing, cancelling and deleting: posts-lifecycle.test.ts.
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

describe('POST /v1/posts', () => {
  test('a post with neither schedule_at nor publish_now is a draft with pending targets', async () => {
    const res = await create({ content: 'Hello', platforms: ['x', 'mastodon'] });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.equal(body.success, true);
    assert.match(body.request_id, /^req_/);
    assert.equal(body.data.post_id, body.data.post.id);
    const post = body.data.post;
    assert.equal(post.object, 'post');
    assert.equal(post.status, 'draft');
    assert.equal(post.brand_id, t.owner.brandId);
    assert.equal(post.created_via, 'api');
    assert.deepEqual(
      post.targets.map((x: { platform: string; status: string; sandbox: boolean }) => [
        x.platform,
        x.status,
        x.sandbox,
      ]),
      [
        ['x', 'pending', true],
        ['mastodon', 'pending', true],
      ],
    );
  });

  test('a scheduled post queues one publish job per target, keyed by target', async () => {
    const res = await create({ content: 'Later', platforms: ['x', 'bluesky'], schedule_at: future() });
    assert.equal(res.statusCode, 201);
    const post = res.json().data.post;
    assert.equal(post.status, 'scheduled');
    const { rows } = await t.container.pool.query(`SELECT key, run_at FROM graphile_worker.jobs WHERE key = ANY($1)`, [
      post.targets.map((x: { id: string }) => `publish:${x.id}`),
    ]);
    assert.equal(rows.length, 2);
    for (const row of rows) assert.equal(new Date(row.run_at).toISOString(), post.schedule_at);
  });

  test('schedule_at with an offset is stored and returned in UTC', async () => {
    const res = await create({ content: 'tz', platforms: ['x'], schedule_at: '2030-06-01T09:30:00+05:30' });
    assert.equal(res.json().data.post.schedule_at, '2030-06-01T04:00:00.000Z');
  });

  test('schedule_at without a zone is a 400 PUBLIC_API_BODY_INVALID', async () => {
    const res = await create({ content: 'tz', platforms: ['x'], schedule_at: '2030-06-01T09:30:00' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
    assert.equal(res.json().error.details[0].path, '/schedule_at');
  });

  test('schedule_at more than 60 s in the past is a 422 naming the rule', async () => {
    const res = await create({
      content: 'late',
      platforms: ['x'],
      schedule_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.details[0].rule, 'schedule_in_past');
  });

  test('a schedule a few seconds in the past is accepted', async () => {
    const res = await create({
      content: 'just now',
      platforms: ['x'],
      schedule_at: new Date(Date.now() - 10_000).toISOString(),
    });
    assert.equal(res.statusCode, 201);
  });

  test('publish_now together with schedule_at is a 400', async () => {
    const res = await create({ content: 'x', platforms: ['x'], publish_now: true, schedule_at: future() });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
  });

  test('text over a platform limit is a 422 naming platform and rule, for each platform it breaks', async () => {
    const res = await create({ content: 'a'.repeat(301), platforms: ['x', 'bluesky', 'linkedin'] });
    assert.equal(res.statusCode, 422);
    const details = res.json().error.details;
    assert.deepEqual(details.map((d: { platform: string; rule: string }) => `${d.platform}:${d.rule}`).sort(), [
      'bluesky:text_too_long',
      'x:text_too_long',
    ]);
    assert.equal(details[0].path, '/content');
  });

  test('a per-platform content override is checked instead of the content', async () => {
    const ok = await create({
      content: 'a'.repeat(400),
      platforms: ['x'],
      platform_options: { x: { content: 'short for X' } },
    });
    assert.equal(ok.statusCode, 201);
    const bad = await create({
      content: 'fine',
      platforms: ['x'],
      platform_options: { x: { content: 'b'.repeat(281) } },
    });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().error.details[0].path, '/platform_options/x/content');
  });

  test('X counts a long URL as 23 characters', async () => {
    const res = await create({
      content: `${'a'.repeat(250)} https://example.com/${'p'.repeat(200)}`,
      platforms: ['x'],
    });
    assert.equal(res.statusCode, 201);
  });

  test('thread parts are checked one by one, and refused where threads do not exist', async () => {
    const bad = await create({
      content: 'one',
      platforms: ['x'],
      platform_options: { x: { thread: ['two', 'c'.repeat(300)] } },
    });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().error.details[0].path, '/platform_options/x/thread/1');
    const li = await create({
      content: 'one',
      platforms: ['linkedin'],
      platform_options: { linkedin: { visibility: 'PUBLIC' } },
    });
    assert.equal(li.statusCode, 201);
  });

  test('options for a platform that is not listed are a 422', async () => {
    const res = await create({ content: 'x', platforms: ['x'], platform_options: { bluesky: { content: 'y' } } });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.details[0].rule, 'options_for_unlisted_platform');
  });

  test('unknown platforms, duplicate platforms and unknown fields are 400s with details', async () => {
    for (const body of [
      { content: 'x', platforms: ['myspace'] },
      { content: 'x', platforms: ['x', 'x'] },
      { content: 'x', platforms: [] },
      { content: 'x', platforms: ['x'], colour: 'red' },
      { platforms: ['x'] },
    ]) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
      assert.ok(res.json().error.details.length > 0);
    }
  });

  test('empty text with no media is refused per platform', async () => {
    const res = await create({ content: '   ', platforms: ['x'] });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.details[0].rule, 'content_required');
  });

  test('Instagram needs media', async () => {
    const res = await create({ content: 'pic', platforms: ['instagram'] });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.details[0].rule, 'media_required');
  });

  test('a publish_now post is returned as publishing, its targets handed to the engine at once', async () => {
    const res = await create({ content: 'now', platforms: ['x'], publish_now: true });
    assert.equal(res.statusCode, 201);
    const post = res.json().data.post;
    assert.equal(post.status, 'publishing');
    assert.equal(post.publish_now, true);
    assert.deepEqual(
      post.targets.map((x: { status: string; connection_id: string }) => [x.status, x.connection_id]),
      [['publishing', t.connections.x]],
    );
  });

  test('a brand_id in the body that differs from the brand header is a 400 naming both', async () => {
    const other = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      headers: { 'x-herald-brand-id': t.owner.brandId },
      payload: { content: 'x', platforms: ['x'], brand_id: 'brand_other' },
    });
    assert.equal(other.statusCode, 400);
    assert.match(other.json().error.message, /brand_other.*x-herald-brand-id/);
  });

  test('an unknown brand_id in the body is a 403 PUBLIC_API_BRAND_FORBIDDEN', async () => {
    const res = await create({ content: 'x', platforms: ['x'], brand_id: 'brand_nope' });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'PUBLIC_API_BRAND_FORBIDDEN');
  });

  test('media and connection ids that do not exist are 422s', async () => {
    const res = await create({ content: 'x', platforms: ['x'], media_ids: ['med_1'], connection_ids: ['conn_1'] });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(
      res
        .json()
        .error.details.map((d: { rule: string }) => d.rule)
        .sort(),
      ['connection_not_found', 'media_not_found'],
    );
  });

  test('every change is recorded in the events outbox in the same transaction', async () => {
    const res = await create({ content: 'evented', platforms: ['x'], schedule_at: future() });
    const id = res.json().data.post.id;
    const { rows } = await t.container.pool.query(
      `SELECT type, data FROM events WHERE data->>'id' = $1 ORDER BY created_at, id`,
      [id],
    );
    assert.deepEqual(
      rows.map((r) => r.type),
      ['post.created', 'post.scheduled'],
    );
    assert.equal(rows[0].data.status, 'scheduled');
  });
});

describe('POST /v1/posts/validate', () => {
  test('reports the issues and stores nothing, without an Idempotency-Key', async () => {
    const before = (await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n;
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key,
      idem: false,
      payload: { content: 'a'.repeat(301), platforms: ['bluesky', 'mastodon'] },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.valid, false);
    assert.deepEqual(
      res.json().data.issues.map((i: { platform: string }) => i.platform),
      ['bluesky'],
    );
    const good = await t.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key,
      idem: false,
      payload: { content: 'ok', platforms: ['x'] },
    });
    assert.deepEqual(good.json().data, {
      valid: true,
      issues: [],
      warnings: [],
      applied: [{ platform: 'x', additions: [], text: 'ok' }],
      media: [],
    });
    assert.equal((await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n, before);
  });
});
