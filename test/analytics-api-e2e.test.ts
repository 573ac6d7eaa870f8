// Analytics end to end: a post published through the API on the simulators, its metrics read by the sync pass
// (src/features/analytics/sync.ts), then read back through GET /v1/analytics/posts/{id} and the summary — every
// metric either read or marked unavailable by its platform, and totals equal to the sum of the targets' latest.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { syncDueMetrics } from '../src/features/analytics/sync.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));

interface TargetView {
  platform: string;
  last_synced_at: string | null;
  metrics: Record<string, { value: number | null; status: string }>;
  unavailable: string[];
  series: Record<string, unknown[]>;
}

test('a published post’s metrics, synced from the simulators, read back per target and in the summary', async () => {
  const post = await create({
    content: `Analytics end to end ${Date.now()}`,
    platforms: ['x', 'mastodon'],
    publish_now: true,
  });
  const done = await settled(post.id, 'published on x and mastodon');
  assert.equal(done.status, 'published');
  const deps = {
    pool: t.container.pool,
    access: t.container.platformAccess,
    logger: t.container.logger,
    clock: t.container.clock,
    maxAgeDays: 30,
    batchSize: 100,
  };
  const publishedAt = Date.parse(done.published_at!);
  // Two passes, at the first schedule points (the sync's `now` jumps ahead rather than the test sleeping).
  await syncDueMetrics(deps, { now: new Date(publishedAt + 20 * 60_000) });
  await syncDueMetrics(deps, { now: new Date(publishedAt + 2 * 3_600_000) });

  const res = await t.inject({ url: `/v1/analytics/posts/${post.id}`, key });
  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data as { targets: TargetView[]; totals: { metrics: Record<string, number | null> } };
  assert.equal(data.targets.length, 2);
  for (const target of data.targets) {
    assert.ok(target.last_synced_at, `${target.platform} was read`);
    for (const [name, metric] of Object.entries(target.metrics)) {
      assert.notEqual(metric.status, 'pending', `${target.platform} ${name} read or marked unavailable`);
      if (metric.status === 'unavailable') {
        assert.equal(metric.value, null);
        assert.ok(target.unavailable.includes(name));
      } else assert.ok(metric.value! >= 0);
    }
  }
  for (const name of Object.keys(data.totals.metrics)) {
    const values = data.targets.map((x) => x.metrics[name]!.value).filter((v): v is number => v !== null);
    assert.equal(data.totals.metrics[name], values.length ? values.reduce((a, b) => a + b, 0) : null, name);
  }

  const summary = await t.inject({ url: '/v1/analytics/summary', key });
  assert.equal(summary.statusCode, 200, summary.body);
  const s = summary.json().data;
  assert.equal(s.totals.posts, 1);
  assert.equal(s.totals.targets, 2);
  assert.deepEqual(s.totals.metrics, data.totals.metrics);
});
