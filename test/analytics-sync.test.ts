// The metrics sync against the simulators (docs/analytics.md "Sync"): a published sandbox post is enrolled and
// gains snapshots; re-synced totals add rows but are never summed; metrics a platform does not give are recorded
// unavailable once; a rate limit defers every due target of that connection until the reset; a refused token
// expires the connection and its targets wait for the reconnect; a platform without metrics is read once; two
// passes at once read a target once, and a pass slower than its lease stores nothing; a disconnected connection's
// targets are retired. Time is moved by passing `now`, not by waiting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withTransaction } from '../src/db/pool.ts';
import { CLAIM_LEASE_MS } from '../src/features/analytics/schedule.ts';
import { claimDueTargets, recordReading, type DueTarget } from '../src/features/analytics/snapshots.repo.ts';
import { syncDueMetrics, type SyncDeps } from '../src/features/analytics/sync.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;
/** How far the simulators' clock is ahead of the real one: moved with the `now` a pass is given. */
let offset = 0;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret(), now: () => Date.now() + offset });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
const MINUTE = 60_000;

function deps(batchSize = 100): SyncDeps {
  const c = t.container;
  return { pool: c.pool, access: c.platformAccess, logger: c.logger, clock: c.clock, maxAgeDays: 30, batchSize };
}

/** One sync pass at `now`, with the simulators' clock at the same moment (their metrics grow with it). */
function syncAt(now: Date) {
  offset = now.getTime() - Date.now();
  return syncDueMetrics(deps(), { now });
}

interface RollupRow {
  target_id: string;
  platform: string;
  published_at: Date;
  latest: Record<string, number>;
  unavailable: string[];
  sync_count: number;
  next_sync_at: Date | null;
  last_error: { code: string } | null;
}

async function rollup(targetId: string): Promise<RollupRow | undefined> {
  const { rows } = await t.container.pool.query<RollupRow>(`SELECT * FROM target_metrics WHERE target_id = $1`, [
    targetId,
  ]);
  return rows[0];
}

async function snapshots(targetId: string) {
  const { rows } = await t.container.pool.query<{
    metric: string;
    value: string | null;
    status: string;
    source: string;
    captured_at: Date;
  }>(`SELECT metric, value, status, source, captured_at FROM metric_snapshots WHERE target_id = $1 ORDER BY id`, [
    targetId,
  ]);
  return rows;
}

/** Publishes a post now and returns its targets by platform, with their publishing time. */
async function publish(platforms: string[], text: string) {
  offset = 0;
  const post = await settled((await create({ content: text, platforms, publish_now: true })).id, `${text} published`);
  assert.equal(post.status, 'published');
  const { rows } = await t.container.pool.query<{ id: string; platform: string; published_at: Date }>(
    `SELECT id, platform, published_at FROM post_targets WHERE post_id = $1`,
    [post.id],
  );
  return Object.fromEntries(rows.map((r) => [r.platform, r]));
}

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

describe('metrics sync', () => {
  test('a published sandbox post is enrolled, gains snapshots, and records what the platform does not give as unavailable', async () => {
    const targets = await publish(['x', 'mastodon'], `Metrics ${Date.now()}`);
    const x = targets.x!;
    const mastodon = targets.mastodon!;
    // Before the first schedule point nothing is read; the pass only enrolls.
    await syncAt(at(x.published_at, 5 * MINUTE));
    assert.equal((await rollup(x.id))?.sync_count, 0);
    assert.equal((await snapshots(x.id)).length, 0);

    await syncAt(at(x.published_at, 16 * MINUTE));
    const xRow = (await rollup(x.id))!;
    assert.equal(xRow.sync_count, 1);
    assert.deepEqual(Object.keys(xRow.latest).sort(), [
      'clicks',
      'comments',
      'impressions',
      'likes',
      'quotes',
      'saves',
      'shares',
    ]);
    assert.deepEqual([...xRow.unavailable].sort(), ['reach', 'video_views']);
    assert.equal(xRow.next_sync_at?.toISOString(), at(x.published_at, 60 * MINUTE).toISOString(), 'next: 1 h');
    const xSnaps = await snapshots(x.id);
    assert.ok(xSnaps.every((s) => s.source === 'sandbox'));
    assert.deepEqual(
      xSnaps
        .filter((s) => s.status === 'unavailable')
        .map((s) => [s.metric, s.value])
        .sort(),
      [
        ['reach', null],
        ['video_views', null],
      ],
    );

    const mRow = (await rollup(mastodon.id))!;
    assert.equal(mRow.sync_count, 1);
    assert.deepEqual(Object.keys(mRow.latest).sort(), ['comments', 'likes', 'quotes', 'shares']);
    assert.deepEqual(
      [...mRow.unavailable].sort(),
      ['clicks', 'impressions', 'reach', 'saves', 'video_views'],
      'Mastodon has no views: never estimated',
    );
  });

  test('re-synced totals add snapshots but the rollup holds the newest value, never a sum', async () => {
    const { x } = await publish(['x'], `Resync ${Date.now()}`);
    const target = x!;
    await syncAt(at(target.published_at, 16 * MINUTE));
    const first = await snapshots(target.id);
    await syncAt(at(target.published_at, 61 * MINUTE));
    const all = await snapshots(target.id);
    const ok = (rows: typeof all) => rows.filter((s) => s.status === 'ok');
    assert.equal(ok(all).length, 2 * ok(first).length, 'each reading adds a row per metric');
    assert.equal(
      all.filter((s) => s.status === 'unavailable').length,
      first.filter((s) => s.status === 'unavailable').length,
      'a metric that stays unavailable is not recorded again',
    );
    const row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 2);
    const newest: Record<string, number> = {};
    for (const s of ok(all)) newest[s.metric] = Number(s.value);
    assert.deepEqual(row.latest, newest, 'latest = the newest snapshot of each metric');
    const sums: Record<string, number> = {};
    for (const s of ok(all)) sums[s.metric] = (sums[s.metric] ?? 0) + Number(s.value);
    // Views had grown by the first reading (16 min in): the sum of the readings is more than the newest.
    assert.ok(Number(first.find((s) => s.metric === 'impressions')!.value) > 0);
    assert.ok(row.latest.impressions! < sums.impressions!, 'not the sum of the readings');
    assert.ok(row.latest.impressions! >= Number(first.find((s) => s.metric === 'impressions')!.value));
    assert.equal(row.next_sync_at?.toISOString(), at(target.published_at, 6 * 60 * MINUTE).toISOString());
  });

  test('a rate limit defers all due targets of the connection until the reset, then they are read', async () => {
    const one = (await publish(['mastodon'], `Limited one ${Date.now()}`)).mastodon!;
    const two = (await publish(['mastodon'], `Limited two ${Date.now()}`)).mastodon!;
    const now = at(two.published_at, 16 * MINUTE);
    sandbox.simulator('mastodon').faults.add({ fault: 'rate_limited', operation: 'lookup', retryAfterSeconds: 300 });
    // A pass of one target: the first is refused, and the second, due but not claimed, is deferred with it.
    await syncDueMetrics(deps(1), { now });
    for (const target of [one, two]) {
      const row = (await rollup(target.id))!;
      assert.equal(row.sync_count, 0, 'not read');
      assert.equal(row.last_error?.code, 'PLATFORM_RATE_LIMITED');
      assert.ok(row.next_sync_at!.getTime() >= now.getTime() + 300_000 - 1000, 'deferred to the reset');
      assert.equal((await snapshots(target.id)).length, 0);
    }
    // Before the reset nothing is read, even though the fault is spent.
    await syncDueMetrics(deps(), { now: at(now, 2 * MINUTE) });
    assert.equal((await rollup(one.id))!.sync_count, 0);
    await syncDueMetrics(deps(), { now: at(now, 6 * MINUTE) });
    for (const target of [one, two]) {
      const row = (await rollup(target.id))!;
      assert.equal(row.sync_count, 1);
      assert.equal(row.last_error, null);
    }
  });

  test('a platform whose adapter reads no metrics: one reading records every metric unavailable, then no more', async () => {
    const target = (await publish(['mastodon'], `No metrics ${Date.now()}`)).mastodon!;
    const base = deps();
    const registry = base.access.registry;
    const withoutMetrics: SyncDeps = {
      ...base,
      access: {
        ...base.access,
        registry: {
          ...registry,
          get: (p) => (p === 'mastodon' ? { ...registry.get(p)!, fetchMetrics: undefined } : registry.get(p)),
        },
      },
    };
    offset = 0;
    await syncDueMetrics(withoutMetrics, { now: at(target.published_at, 16 * MINUTE) });
    const row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 1);
    assert.deepEqual(row.latest, {});
    assert.equal(row.unavailable.length, 9);
    assert.equal(row.next_sync_at, null, 'never read again');
    const snaps = await snapshots(target.id);
    assert.equal(snaps.length, 9);
    assert.ok(snaps.every((s) => s.status === 'unavailable' && s.value === null));
  });

  test('a token the platform refuses even after a refresh expires the connection; its targets wait for the reconnect', async () => {
    const { x } = await publish(['x'], `Refused ${Date.now()}`);
    const target = x!;
    const now = at(target.published_at, 16 * MINUTE);
    // Refused before and after the refresh.
    sandbox.simulator('x').faults.add({ fault: 'expired_token', operation: 'read_post', times: 2 });
    await syncAt(now);
    const connection = await t.container.pool.query<{ status: string }>(
      `SELECT status FROM connections WHERE id = (SELECT connection_id FROM post_targets WHERE id = $1)`,
      [target.id],
    );
    assert.equal(connection.rows[0]!.status, 'expired');
    let row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 0);
    assert.equal(row.last_error?.code, 'PLATFORM_RECONNECT_REQUIRED');
    // While expired, passes skip it.
    await syncAt(at(now, MINUTE));
    assert.equal((await rollup(target.id))!.sync_count, 0);
    // Renewed (POST /v1/connections/{id}/refresh succeeds again): read on the next pass.
    const connectionId = t.connections.x!;
    const renewed = await t.inject({ method: 'POST', url: `/v1/connections/${connectionId}/refresh`, key });
    assert.equal(renewed.statusCode, 200, renewed.body);
    await syncAt(at(now, 2 * MINUTE));
    row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 1);
    assert.equal(row.last_error, null);
  });

  test('two passes at the same moment read a due target once: one rollup update, one snapshot per metric', async () => {
    const { x } = await publish(['x'], `Twice ${Date.now()}`);
    const target = x!;
    const now = at(target.published_at, 16 * MINUTE);
    offset = now.getTime() - Date.now();
    await Promise.all([syncDueMetrics(deps(), { now }), syncDueMetrics(deps(), { now })]);
    const row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 1);
    const snaps = await snapshots(target.id);
    assert.equal(snaps.length, 9, 'each metric once: 7 read, 2 unavailable');
    assert.equal(new Set(snaps.map((s) => s.metric)).size, 9);
  });

  test('a pass slower than its lease stores nothing once a later pass has claimed the target again', async () => {
    const { x } = await publish(['x'], `Slow ${Date.now()}`);
    const target = x!;
    await syncAt(at(target.published_at, 5 * MINUTE)); // enrolled, not due yet
    const pool = t.container.pool;
    const claim = async (now: Date) =>
      (await claimDueTargets(pool, { now, leaseUntil: at(now, CLAIM_LEASE_MS), limit: 10_000 })).find(
        (d) => d.target_id === target.id,
      );
    const now = at(target.published_at, 16 * MINUTE);
    const slow = (await claim(now))!;
    assert.ok(slow, 'claimed when due');
    assert.equal(await claim(at(now, MINUTE)), undefined, 'held while the lease lasts');
    const later = at(now, CLAIM_LEASE_MS + MINUTE);
    const fast = (await claim(later))!;
    assert.ok(fast, 'due again once the lease has ended');
    const record = (claimed: DueTarget, capturedAt: Date, likes: number) =>
      withTransaction(pool, (tx) =>
        recordReading(tx, { target: claimed, metrics: { likes }, capturedAt, nextSyncAt: null }),
      );
    assert.equal(await record(fast, later, 9), true);
    assert.equal(await record(slow, now, 5), false, 'the lapsed claim is refused');
    const row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 1);
    assert.equal(row.latest.likes, 9, 'the older reading did not replace the newer');
    assert.deepEqual(
      (await snapshots(target.id)).filter((s) => s.metric === 'likes').map((s) => Number(s.value)),
      [9],
    );
  });

  test('a disconnected connection: its due targets are retired, their values kept', async () => {
    const target = (await publish(['mastodon'], `Disconnected ${Date.now()}`)).mastodon!;
    await syncAt(at(target.published_at, 16 * MINUTE));
    assert.equal((await rollup(target.id))!.sync_count, 1);
    const removed = await t.inject({
      method: 'DELETE',
      url: `/v1/connections/${t.connections.mastodon!}?force=true`,
      key,
    });
    assert.equal(removed.statusCode, 200, removed.body);
    await syncAt(at(target.published_at, 61 * MINUTE));
    const row = (await rollup(target.id))!;
    assert.equal(row.sync_count, 1, 'not read again');
    assert.equal(row.next_sync_at, null, 'no longer due');
    assert.equal(row.last_error?.code, 'PLATFORM_CONNECTION_UNAVAILABLE');
    assert.ok(Object.keys(row.latest).length > 0, 'the latest values stay');
  });
});
