// GET /v1/posts: filters, sorts and the keyset cursor — paging through 250 posts while new ones arrive yields
// each original post exactly once, in order, for every sort.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;
const original = new Map<string, { schedule_at: string | null; created_at: string; status: string }>();

before(async () => {
  t = await buildTestApp({
    env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000', HERALD_RATE_LIMIT_READ_PER_MIN: '100000' },
  });
  key = await t.key();
  const base = Date.now() + 3_600_000;
  for (let i = 0; i < 250; i++) {
    // A third are drafts (no schedule); schedules repeat so that ties on schedule_at are broken by id.
    const schedule = i % 3 === 0 ? undefined : new Date(base + (i % 40) * 60_000).toISOString();
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: `post ${i}`, platforms: i % 2 ? ['x'] : ['bluesky'], schedule_at: schedule },
    });
    const p = res.json().data.post;
    original.set(p.id, { schedule_at: p.schedule_at, created_at: p.created_at, status: p.status });
  }
});
after(() => t.close());

async function pageThrough(
  query: string,
  limit: number,
  duringEachPage?: () => Promise<void>,
): Promise<Array<{ id: string; schedule_at: string | null; created_at: string }>> {
  const seen: Array<{ id: string; schedule_at: string | null; created_at: string }> = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await t.inject({
      url: `/v1/posts?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      key,
    });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assert.ok(data.items.length <= limit);
    seen.push(...data.items);
    await duringEachPage?.();
    if (!data.has_more) {
      assert.equal(data.next_cursor, null);
      return seen;
    }
    cursor = data.next_cursor;
  }
  throw new Error('did not finish');
}

describe('keyset pagination', () => {
  test('-created_at through 250 posts while new posts are inserted: no duplicates, no gaps', async () => {
    let inserted = 0;
    const seen = await pageThrough('sort=-created_at', 7, async () => {
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: `newcomer ${inserted++}`, platforms: ['x'] },
      });
    });
    const ids = seen.map((p) => p.id).filter((id) => original.has(id));
    assert.equal(new Set(ids).size, ids.length, 'no duplicates');
    assert.equal(ids.length, 250, 'no gaps');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.created_at >= seen[i]!.created_at, 'newest first');
    console.log(`# paged 250 posts in pages of 7 while ${inserted} were inserted`);
  });

  for (const sort of ['schedule_at', '-schedule_at'] as const) {
    test(`${sort}: scheduled posts in order, unscheduled ones last, each exactly once`, async () => {
      const seen = await pageThrough(`sort=${sort}`, 9);
      const ids = seen.map((p) => p.id).filter((id) => original.has(id));
      assert.equal(new Set(ids).size, ids.length);
      assert.equal(ids.length, 250);
      const firstNull = seen.findIndex((p) => p.schedule_at === null);
      assert.ok(
        seen.slice(firstNull).every((p) => p.schedule_at === null),
        'nulls last',
      );
      const dated = seen.slice(0, firstNull).map((p) => p.schedule_at!);
      const sorted = [...dated].sort();
      assert.deepEqual(dated, sort === 'schedule_at' ? sorted : sorted.reverse());
    });
  }

  test('filters combine: status, platform and a scheduled window', async () => {
    const from = new Date(Date.now() + 3_600_000 + 10 * 60_000).toISOString();
    const to = new Date(Date.now() + 3_600_000 + 20 * 60_000).toISOString();
    const seen = await pageThrough(
      `status=scheduled&platform=x&scheduled_from=${encodeURIComponent(from)}&scheduled_to=${encodeURIComponent(to)}`,
      5,
    );
    assert.ok(seen.length > 0);
    for (const p of seen as unknown as Array<{ status: string; platforms: string[]; schedule_at: string }>) {
      assert.equal(p.status, 'scheduled');
      assert.deepEqual(p.platforms, ['x']);
      assert.ok(p.schedule_at >= from && p.schedule_at < to);
    }
    const expected = [...original.values()].filter(
      (p) => p.status === 'scheduled' && p.schedule_at! >= from && p.schedule_at! < to,
    ).length;
    assert.ok(seen.length <= expected);
  });

  test('status accepts a comma list', async () => {
    const seen = await pageThrough('status=draft,scheduled', 100);
    assert.ok(seen.length >= 250);
  });

  test('a cursor used with other filters or another sort → 400 PUBLIC_API_QUERY_INVALID', async () => {
    const first = (await t.inject({ url: '/v1/posts?status=scheduled&limit=2', key })).json().data;
    const cursor = encodeURIComponent(first.next_cursor);
    for (const query of [
      `status=draft&cursor=${cursor}`,
      `status=scheduled&sort=schedule_at&cursor=${cursor}`,
      `cursor=${cursor}`,
    ]) {
      const res = await t.inject({ url: `/v1/posts?${query}`, key });
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().error.code, 'PUBLIC_API_QUERY_INVALID');
    }
    assert.equal(
      (await t.inject({ url: `/v1/posts?status=scheduled&limit=5&cursor=${cursor}`, key })).statusCode,
      200,
      'the limit may change between pages',
    );
  });

  test('GET /v1/workspaces lists what the key reaches', async () => {
    const ws = await t.workspace('live');
    const both = await t.key({ workspaceIds: [t.owner.workspaceId, ws.workspaceId] });
    const res = await t.inject({ url: '/v1/workspaces?limit=1', key: both });
    assert.equal(res.statusCode, 200, res.body);
    const page1 = res.json().data;
    assert.equal(page1.items.length, 1);
    assert.equal(page1.has_more, true);
    const page2 = (
      await t.inject({ url: `/v1/workspaces?limit=1&cursor=${encodeURIComponent(page1.next_cursor)}`, key: both })
    ).json().data;
    assert.deepEqual([page1.items[0].id, page2.items[0].id].sort(), [t.owner.workspaceId, ws.workspaceId].sort());
    assert.equal(page2.has_more, false);
    assert.deepEqual(Object.keys(page1.items[0]).sort(), [
      'created_at',
      'default_brand_id',
      'id',
      'mode',
      'name',
      'object',
    ]);
  });
});
