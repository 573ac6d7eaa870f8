// The benchmarks seed posts straight into the tables (bench/lib/seed.ts); those rows must be ones the API reads
// like its own, or the list benchmark would measure something else. Sizes here are tiny; no timing is checked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedPosts } from '../bench/lib/seed.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;
before(async () => {
  t = await buildTestApp();
  key = await t.key();
  const ws = {
    secret: '',
    key,
    userId: t.owner.userId,
    workspaceId: t.owner.workspaceId,
    brandId: t.owner.brandId,
    connections: new Map(Object.entries(t.connections)),
  };
  await seedPosts(t.db.connectionString, ws, 1, 40);
  await seedPosts(t.db.connectionString, ws, 41, 80);
});
after(() => t.close());

test('seeded scheduled posts list through GET /v1/posts with their targets, newest first', async () => {
  const res = await t.inject({ method: 'GET', url: '/v1/posts?status=scheduled&limit=50', key });
  assert.equal(res.statusCode, 200, res.body);
  const items = res.json().data.items as Array<{
    id: string;
    status: string;
    schedule_at: string;
    created_at: string;
    targets: Array<{ platform: string; status: string; connection_id: string }>;
  }>;
  assert.equal(items.length, 20);
  for (const post of items) {
    assert.equal(post.status, 'scheduled');
    assert.ok(Date.parse(post.schedule_at) > Date.now(), 'scheduled in the future');
    assert.deepEqual(
      post.targets.map((x) => [x.platform, x.status, x.connection_id]),
      [['mastodon', 'scheduled', t.connections.mastodon]],
    );
  }
  const created = items.map((p) => Date.parse(p.created_at));
  assert.deepEqual(
    created,
    created.toSorted((a, b) => b - a),
  );
});

test('seeded posts page with cursors like any others', async () => {
  const seen = new Set<string>();
  let url = '/v1/posts?status=published&limit=7';
  for (let page = 0; page < 10; page++) {
    const res = await t.inject({ method: 'GET', url, key });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data as {
      items: Array<{ id: string; published_at: string | null; targets: Array<{ url: string | null }> }>;
      next_cursor: string | null;
    };
    for (const post of data.items) {
      assert.ok(post.published_at, 'a published post has published_at');
      assert.ok(post.targets[0]?.url, 'and its target a URL');
      seen.add(post.id);
    }
    if (!data.next_cursor) break;
    url = `/v1/posts?status=published&limit=7&cursor=${encodeURIComponent(data.next_cursor)}`;
  }
  assert.equal(seen.size, 20);
});
