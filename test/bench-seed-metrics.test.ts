// The analytics benchmark seeds snapshots and rollup rows straight into the tables (bench/lib/seed-metrics.ts); its
// comparison means something only if the rollup holds the last reading of each snapshot series and the summary
// over it answers what the floor's query over the raw snapshots answers. No timing is checked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedMetrics, WINDOW_TARGETS } from '../bench/lib/seed-metrics.ts';
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
  await seedMetrics(t.db.connectionString, ws, 1, WINDOW_TARGETS);
  await seedMetrics(t.db.connectionString, ws, WINDOW_TARGETS + 1, WINDOW_TARGETS + 20);
});
after(() => t.close());

test('the 30-day summary covers exactly the window targets and equals the floor query over raw snapshots', async () => {
  const res = await t.inject({ url: '/v1/analytics/summary', key });
  assert.equal(res.statusCode, 200, res.body);
  const { totals } = res.json().data;
  assert.equal(totals.targets, WINDOW_TARGETS);
  const now = new Date();
  const { rows } = await t.container.pool.query<{ metric: string; total: string }>(
    `SELECT metric, sum(value) AS total
       FROM (SELECT DISTINCT ON (target_id, metric) target_id, metric, value FROM metric_snapshots
              WHERE workspace_id = $1 AND captured_at >= $2 AND captured_at < $3 AND status = 'ok'
              ORDER BY target_id, metric, captured_at DESC) AS latest
      GROUP BY metric`,
    [t.owner.workspaceId, new Date(now.getTime() - 30 * 86_400_000), now],
  );
  assert.equal(rows.length, 5);
  for (const r of rows) assert.equal(totals.metrics[r.metric], Number(r.total), r.metric);
  assert.deepEqual(totals.unavailable, ['quotes', 'saves', 'clicks', 'video_views']);
});
