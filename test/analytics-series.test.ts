// The summary's series (docs/analytics.md "API", its series): buckets on a zone's calendar across the night Paris sets its
// clocks back (2026-10-25, 03:00 CEST becomes 02:00 CET at 01:00 UTC), empty buckets, partial first and last
// buckets, filters, the cap on buckets and unknown zones. Metrics are seeded straight into the rollup.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AnalyticsSummary } from '../src/features/analytics/analytics.view.schemas.ts';
import { SUMMARY_MAX_BUCKETS } from '../src/features/analytics/analytics.schemas.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { onePost, seedPublishedPost } from './helpers/analytics.ts';
import { assertSchema } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;

interface Bucket {
  from: string;
  to: string;
  totals: { posts: number; engagements: number | null; metrics: { likes: number | null } };
}

before(async () => {
  t = await buildTestApp();
  key = await t.key();
  const base = { workspaceId: t.owner.workspaceId, brandId: t.owner.brandId };
  const x = { connectionId: t.connections.x };
  const seed = (at: string, platform: string, likes: number, options = x) =>
    seedPublishedPost(t.container.pool, onePost(base, platform, new Date(at), { likes }, options));
  await seed('2026-10-24T22:30:00Z', 'x', 1); // 25 Oct 00:30 CEST: the 25th in Paris, the 24th in UTC
  await seed('2026-10-25T00:30:00Z', 'x', 2); // 02:30 CEST, the first of the two 02:00 hours
  await seed('2026-10-25T01:30:00Z', 'x', 4); // 02:30 CET, the second one
  await seed('2026-10-25T22:30:00Z', 'x', 8); // 23:30 CET: still the 25th, a day of 25 hours
  await seed('2026-10-27T08:00:00Z', 'linkedin', 16, { connectionId: t.connections.linkedin });
});
after(() => t.close());

async function summary(query: string) {
  const res = await t.inject({ url: `/v1/analytics/summary?${query}`, key });
  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data;
  assertSchema(AnalyticsSummary, data);
  return data as { totals: { posts: number }; series?: Bucket[] };
}

const shape = (series: Bucket[] | undefined) =>
  (series ?? []).map((b) => [b.from, b.to, b.totals.posts, b.totals.metrics.likes]);

describe('GET /v1/analytics/summary?interval', () => {
  test('days in Europe/Paris follow its clock across the change: the 25th lasts 25 hours; first and last are partial', async () => {
    const data = await summary('from=2026-10-24T10:00:00Z&to=2026-10-27T12:00:00Z&interval=day&tz=Europe/Paris');
    assert.deepEqual(shape(data.series), [
      ['2026-10-24T10:00:00.000Z', '2026-10-24T22:00:00.000Z', 0, null],
      ['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z', 4, 15],
      ['2026-10-25T23:00:00.000Z', '2026-10-26T23:00:00.000Z', 0, null],
      ['2026-10-26T23:00:00.000Z', '2026-10-27T12:00:00.000Z', 1, 16],
    ]);
    const empty = data.series![0]!.totals;
    assert.equal(empty.engagements, null, 'an empty bucket has no figures, not zeros');
    const sum = data.series!.reduce((n, b) => n + b.totals.posts, 0);
    assert.equal(sum, data.totals.posts);
    assert.equal(sum, 5);
  });

  test('in UTC the same posts fall on other days', async () => {
    const data = await summary('from=2026-10-24T00:00:00Z&to=2026-10-28T00:00:00Z&interval=day');
    assert.deepEqual(
      data.series!.map((b) => b.totals.posts),
      [1, 3, 0, 1],
    );
  });

  test('the hour the clocks repeat is two buckets, one per real hour', async () => {
    const data = await summary('from=2026-10-24T23:00:00Z&to=2026-10-25T03:00:00Z&interval=hour&tz=Europe/Paris');
    assert.deepEqual(shape(data.series), [
      ['2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z', 0, null],
      ['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', 1, 2],
      ['2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', 1, 4],
      ['2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z', 0, null],
    ]);
  });

  test('weeks start on Monday at midnight in the zone; months on the first', async () => {
    const weeks = await summary('from=2026-10-14T00:00:00Z&to=2026-11-03T00:00:00Z&interval=week&tz=Europe/Paris');
    assert.deepEqual(
      weeks.series!.map((b) => [b.from, b.totals.posts]),
      [
        ['2026-10-14T00:00:00.000Z', 0],
        ['2026-10-18T22:00:00.000Z', 4], // Monday 19 October, CEST
        ['2026-10-25T23:00:00.000Z', 1], // Monday 26 October, CET
        ['2026-11-01T23:00:00.000Z', 0],
      ],
    );
    const months = await summary('from=2026-09-15T00:00:00Z&to=2026-11-15T00:00:00Z&interval=month&tz=Europe/Paris');
    assert.deepEqual(
      months.series!.map((b) => [b.from, b.to, b.totals.posts]),
      [
        ['2026-09-15T00:00:00.000Z', '2026-09-30T22:00:00.000Z', 0],
        ['2026-09-30T22:00:00.000Z', '2026-10-31T23:00:00.000Z', 5],
        ['2026-10-31T23:00:00.000Z', '2026-11-15T00:00:00.000Z', 0],
      ],
    );
  });

  test('filters narrow the series as they narrow the totals', async () => {
    const data = await summary(
      'from=2026-10-24T10:00:00Z&to=2026-10-27T12:00:00Z&interval=day&tz=Europe/Paris&platform=linkedin',
    );
    assert.deepEqual(
      data.series!.map((b) => b.totals.posts),
      [0, 0, 0, 1],
    );
    assert.equal(data.totals.posts, 1);
  });

  test('without interval there is no series', async () => {
    const data = await summary('from=2026-10-24T10:00:00Z&to=2026-10-27T12:00:00Z&tz=Europe/Paris');
    assert.equal('series' in data, false);
  });

  test(`more than ${SUMMARY_MAX_BUCKETS} buckets is 422 series_too_long; exactly that many is answered`, async () => {
    const from = Date.parse('2026-10-01T00:00:00Z');
    const at = (hours: number) => new Date(from + hours * 3_600_000).toISOString();
    const full = await summary(`from=${at(0)}&to=${at(SUMMARY_MAX_BUCKETS)}&interval=hour`);
    assert.equal(full.series!.length, SUMMARY_MAX_BUCKETS);
    const res = await t.inject({
      url: `/v1/analytics/summary?from=${at(0)}&to=${at(SUMMARY_MAX_BUCKETS + 1)}&interval=hour`,
      key,
    });
    assert.equal(res.statusCode, 422, res.body);
    const error = res.json().error;
    assert.equal(error.code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.equal(error.details[0].rule, 'series_too_long');
    assert.match(error.message, /at most 1,000/);
  });

  test('an unknown zone or a bare offset is 422 timezone_unknown; an unknown interval is 400', async () => {
    for (const tz of ['Mars/Olympus_Mons', '+05:00']) {
      const res = await t.inject({
        url: `/v1/analytics/summary?interval=day&tz=${encodeURIComponent(tz)}`,
        key,
      });
      assert.equal(res.statusCode, 422, `${tz}: ${res.body}`);
      assert.equal(res.json().error.details[0].rule, 'timezone_unknown');
      assert.equal(res.json().error.details[0].path, '/tz');
    }
    const res = await t.inject({ url: '/v1/analytics/summary?interval=fortnight', key });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'PUBLIC_API_QUERY_INVALID');
  });
});
