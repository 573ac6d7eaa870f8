// The analytics API (docs/analytics.md "API"): a post's metrics with `unavailable` never shown as 0 and re-synced
// totals never summed twice, the summary's math and deltas against the previous window, its filters, and the
// CSV export with its escaping and formula guard. Metrics are seeded straight into the sync's tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createBrand } from '../src/features/workspaces/workspaces.service.ts';
import { AnalyticsSummary, PostAnalytics } from '../src/features/analytics/analytics.view.schemas.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { onePost, seedPublishedPost } from './helpers/analytics.ts';
import { assertSchema } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;
let base: { workspaceId: string; brandId: string };
const H = 3_600_000;
const window = 'from=2026-10-01T00:00:00Z&to=2026-10-31T00:00:00Z';
let p1: { postId: string; targetIds: string[] };
let p2: { postId: string; targetIds: string[] };

before(async () => {
  t = await buildTestApp();
  key = await t.key();
  base = { workspaceId: t.owner.workspaceId, brandId: t.owner.brandId };
  const at = new Date('2026-10-10T09:00:00Z');
  p1 = await seedPublishedPost(t.container.pool, {
    ...base,
    publishedAt: at,
    content: '=HYPERLINK("http://evil.test","win")',
    targets: [
      {
        platform: 'x',
        connectionId: t.connections.x,
        unavailable: ['saves', 'video_views'],
        readings: [
          { at: new Date(at.getTime() + H), metrics: { likes: 5, impressions: 100 } },
          {
            at: new Date(at.getTime() + 48 * H),
            metrics: { likes: 10, comments: 2, shares: 3, impressions: 1000, reach: 800 },
          },
        ],
      },
      {
        platform: 'linkedin',
        connectionId: t.connections.linkedin,
        readings: [{ at: new Date(at.getTime() + 48 * H), metrics: { likes: 20, comments: 5, impressions: 2000 } }],
      },
    ],
  });
  p2 = await seedPublishedPost(
    t.container.pool,
    onePost(
      base,
      'x',
      new Date('2026-10-20T12:00:00Z'),
      { likes: 50, comments: 10, shares: 0, impressions: 500 },
      {
        connectionId: t.connections.x,
      },
    ),
  );
  // The previous window (2026-09-01 to 2026-10-01), and one post outside both.
  await seedPublishedPost(
    t.container.pool,
    onePost(
      base,
      'x',
      new Date('2026-09-15T12:00:00Z'),
      { likes: 20, impressions: 400 },
      { connectionId: t.connections.x },
    ),
  );
  await seedPublishedPost(
    t.container.pool,
    onePost(
      base,
      'x',
      new Date('2026-08-01T12:00:00Z'),
      { likes: 999, impressions: 999 },
      { connectionId: t.connections.x },
    ),
  );
});
after(() => t.close());

async function get(url: string, k = key) {
  const res = await t.inject({ url, key: k });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

describe('GET /v1/analytics/posts/{id}', () => {
  test('latest values per target, series of every reading, and totals that never sum a re-synced total twice', async () => {
    const data = await get(`/v1/analytics/posts/${p1.postId}`);
    assertSchema(PostAnalytics, data);
    const [x, linkedin] = data.targets;
    assert.equal(x.platform, 'x');
    assert.deepEqual(x.metrics.likes, { value: 10, status: 'ok' });
    assert.deepEqual(
      x.series.likes.map((p: { value: number }) => p.value),
      [5, 10],
    );
    assert.equal(x.engagements, 15);
    assert.equal(x.engagement_rate, 0.0188); // 15 / reach 800
    assert.equal(linkedin.engagement_rate, 0.0125); // 25 / impressions 2000 (no reach)
    // 10 + 20, not 5 + 10 + 20: readings are totals, and only the latest counts.
    assert.equal(data.totals.metrics.likes, 30);
    assert.equal(data.totals.engagements, 40);
  });

  test('a metric the platform does not give is unavailable, never 0', async () => {
    const data = await get(`/v1/analytics/posts/${p1.postId}`);
    const [x] = data.targets;
    assert.deepEqual(x.metrics.saves, { value: null, status: 'unavailable' });
    assert.deepEqual(x.unavailable, ['saves', 'video_views']);
    assert.deepEqual(x.series.saves, []);
    assert.equal(data.totals.metrics.video_views, null);
    assert.ok(data.totals.unavailable.includes('video_views'));
    assert.equal(data.totals.reporting.reach, 1, 'reach is summed over the one target that reports it');
  });

  test('a post not published yet answers its targets as pending; an unknown post is 404', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'later', platforms: ['x'], schedule_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    const data = await get(`/v1/analytics/posts/${created.json().data.post_id}`);
    assert.equal(data.targets[0].status, 'scheduled');
    assert.deepEqual(data.targets[0].metrics.likes, { value: null, status: 'pending' });
    assert.equal(data.totals.targets, 0);
    const missing = await t.inject({ url: '/v1/analytics/posts/post_missing', key });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'PUBLIC_API_NOT_FOUND');
  });
});

describe('GET /v1/analytics/summary', () => {
  test('totals, engagement rate, breakdown, top posts and deltas of a window', async () => {
    const data = await get(`/v1/analytics/summary?${window}`);
    assertSchema(AnalyticsSummary, data);
    assert.deepEqual(data.previous_period, { from: '2026-09-01T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z' });
    const { totals } = data;
    assert.deepEqual([totals.posts, totals.targets, totals.engagements], [2, 3, 100]);
    assert.equal(totals.engagement_rate, 0.0303); // 100 / (800 + 2000 + 500)
    assert.deepEqual(
      [totals.metrics.likes, totals.metrics.shares, totals.reporting.shares, totals.metrics.impressions],
      [80, 3, 2, 3500],
    );
    assert.deepEqual(totals.unavailable, ['quotes', 'saves', 'clicks', 'video_views']);
    assert.equal(totals.metrics.saves, null);
    assert.deepEqual(data.deltas.engagements, { change: 80, percent: 400 }); // against 20
    assert.deepEqual(data.deltas.posts, { change: 1, percent: 100 });
    assert.deepEqual(data.deltas.engagement_rate, { change: -0.0197, percent: -39.4 }); // against 20 / 400
    assert.deepEqual(data.deltas.metrics.saves, { change: null, percent: null });
    assert.deepEqual(
      data.top_posts.map((p: { post_id: string; engagements: number }) => [p.post_id, p.engagements]),
      [
        [p2.postId, 60],
        [p1.postId, 40],
      ],
    );
    assert.deepEqual(data.top_posts[1].platforms, ['linkedin', 'x']);
    assert.deepEqual(
      data.platform_breakdown.map(
        (b: { platform: string; totals: { engagements: number; engagement_rate: number } }) => [
          b.platform,
          b.totals.engagements,
          b.totals.engagement_rate,
        ],
      ),
      [
        ['linkedin', 25, 0.0125],
        ['x', 75, 0.0577],
      ],
    );
  });

  test('filters by platform, account and brand', async () => {
    assert.equal((await get(`/v1/analytics/summary?${window}&platform=x`)).totals.engagements, 75);
    const byAccount = await get(`/v1/analytics/summary?${window}&connection_id=${t.connections.linkedin}`);
    assert.deepEqual([byAccount.totals.posts, byAccount.totals.engagements], [1, 25]);
    const other = await createBrand(t.container.pool, t.owner.workspaceId, 'Quiet brand');
    const empty = await get(`/v1/analytics/summary?${window}&brand_id=${other.id}`);
    assert.deepEqual([empty.totals.posts, empty.totals.engagements, empty.totals.engagement_rate], [0, null, null]);
    assert.equal(empty.totals.unavailable.length, 9, 'with no posts, every metric is unknown, not 0');
    assert.deepEqual(empty.top_posts, []);
  });

  test('defaults to the last 30 days', async () => {
    const data = await get('/v1/analytics/summary');
    const span = Date.parse(data.period.to) - Date.parse(data.period.from);
    assert.equal(span, 30 * 24 * H);
    assert.ok(Math.abs(Date.parse(data.period.to) - Date.now()) < 60_000);
  });

  test('a window ending before it starts, or longer than a year, is 422; an unknown platform is 400', async () => {
    const backwards = await t.inject({
      url: '/v1/analytics/summary?from=2026-10-02T00:00:00Z&to=2026-10-01T00:00:00Z',
      key,
    });
    assert.equal(backwards.statusCode, 422);
    assert.equal(backwards.json().error.code, 'PUBLIC_API_VALIDATION_FAILED');
    const long = await t.inject({
      url: '/v1/analytics/summary?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      key,
    });
    assert.equal(long.statusCode, 422);
    const unknown = await t.inject({ url: '/v1/analytics/summary?platform=myspace', key });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error.code, 'PUBLIC_API_QUERY_INVALID');
  });

  test('malformed dates, cursors and brands answer 4xx in the envelope, never 500', async () => {
    const cases: Array<[string, number]> = [
      ['/v1/analytics/summary?from=yesterday', 400],
      ['/v1/analytics/summary?from=2026-02-30T00:00:00Z&to=2026-03-10T00:00:00Z', 400],
      ['/v1/analytics/summary?to=2026-13-01T00:00:00Z', 400],
      ['/v1/analytics/summary?from=0001-01-01T00:00:00Z', 422],
      ['/v1/analytics/summary?from=2026-10-01T00:00:00Z&to=2026-10-01T00:00:00Z', 422],
      ['/v1/analytics/summary?top=0', 400],
      ['/v1/analytics/summary?top=51', 400],
      ['/v1/analytics/summary?brand_id=brand_nope', 200],
      ['/v1/analytics/export?from=2026-10-02T00:00:00Z&to=2026-10-01T00:00:00Z', 422],
      ['/v1/analytics/export?platform=x,myspace', 400],
      ['/v1/analytics/insights?cursor=not-a-cursor', 400],
      ['/v1/analytics/insights?status=archived', 400],
      ['/v1/analytics/insights/ins_nope', 404],
      ['/v1/analytics/posts/post_nope', 404],
    ];
    for (const [url, status] of cases) {
      const res = await t.inject({ url, key });
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      if (status >= 400) assert.match(res.json().error.code, /^PUBLIC_API_/, url);
    }
    const unknownBrand = await get(`/v1/analytics/summary?brand_id=brand_nope&${window}`);
    assert.equal(unknownBrand.totals.posts, 0, "an unknown brand has no posts, not another brand's");
  });
});

describe('GET /v1/analytics/export', () => {
  test('one CSV row per target; unavailable metrics are empty cells, named in their column', async () => {
    const res = await t.inject({ url: `/v1/analytics/export?${window}`, key });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(
      String(res.headers['content-disposition']),
      /attachment; filename="herald-analytics-2026-10-01-to-2026-10-31\.csv"/,
    );
    const lines = res.body.split('\r\n');
    assert.equal(lines.at(-1), '', 'every line ends with CRLF');
    const header = lines[0]!.split(',');
    assert.equal(lines.length, 5); // header, 3 targets, ''
    const xRow = lines.find((l) => l.includes(p1.targetIds[0]!))!;
    // The post's text starts with `=`: quoted (it holds quotes and commas) and prefixed so no spreadsheet runs it.
    assert.ok(xRow.startsWith(`${p1.postId},"'=HYPERLINK(""http://evil.test"",""win"")",`), xRow);
    const cells = xRow.replace(/^[^,]+,"(?:[^"]|"")*",/, 'post,content,').split(',');
    const cell = (name: string) => cells[header.indexOf(name)];
    assert.equal(cell('likes'), '10');
    assert.equal(cell('saves'), '', 'unavailable is empty, not 0');
    assert.equal(cell('unavailable'), 'saves video_views');
    assert.equal(cell('engagements'), '15');
  });
});
