// Best-time suggestions (docs/queues.md "Best times"): POST /v1/queues/{id}/suggest-slots scores weekday-hours of
// the queue's zone from seeded engagement, ranks them with their confidence, fills the rest with defaults marked as
// such, groups by the queue's zone, stays inside its workspace and brand, and refuses bad input by name; the MCP
// tool suggest_queue_slots answers the same.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../src/lib/ids.ts';
import type { MetricName } from '../src/platforms/types.ts';
import { SlotSuggestions } from '../src/features/queues/best-times.schemas.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onePost, seedPublishedPost } from './helpers/analytics.ts';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';
import { assertSchema } from './helpers/webhooks-api.ts';

let t: ListeningApp;
let key: string;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Sunday 00:00 UTC of the week three weeks back: every seeded post is settled and inside the 90-day window. */
const SUNDAY = (() => {
  const d = new Date(Date.now() - 21 * DAY);
  d.setUTCHours(0, 0, 0, 0);
  return new Date(d.getTime() - d.getUTCDay() * DAY);
})();

/** A UTC instant `weeksBack` weeks before SUNDAY's week, on `dow` (0 = Sunday) at `hour`:`minute`. */
const at = (dow: number, hour: number, minute: number, weeksBack = 0) =>
  new Date(SUNDAY.getTime() - weeksBack * 7 * DAY + dow * DAY + hour * HOUR + minute * 60_000);

async function seed(
  platform: string,
  connectionId: string,
  publishedAt: Date,
  metrics: Partial<Record<MetricName, number>>,
) {
  await seedPublishedPost(
    t.container.pool,
    onePost({ workspaceId: t.owner.workspaceId, brandId: t.owner.brandId }, platform, publishedAt, metrics, {
      connectionId,
    }),
  );
}

async function makeQueue(
  workspaceId: string,
  brandId: string,
  connectionIds: string[] | null,
  zones: string[] = ['UTC'],
): Promise<string> {
  const id = newId('que');
  const slots = zones.map((timezone) => ({ day_of_week: 1, time: '09:00', timezone }));
  await t.container.pool.query(
    `INSERT INTO queues (id, workspace_id, brand_id, name, connection_ids, slots) VALUES ($1, $2, $3, 'q', $4, $5)`,
    [id, workspaceId, brandId, connectionIds, JSON.stringify(slots)],
  );
  return id;
}

function suggest(queueId: string, body: Record<string, unknown> = {}, k = key, headers: Record<string, string> = {}) {
  return t.inject({ method: 'POST', url: `/v1/queues/${queueId}/suggest-slots`, key: k, payload: body, headers });
}

interface Slot {
  day_of_week: number;
  time: string;
  timezone: string;
  score: number | null;
  confidence: number | null;
  sample_size: number;
  source: string;
}
const brief = (s: Slot) => [s.day_of_week, s.time, s.source, s.score, s.confidence, s.sample_size];

let xQueue: string;

before(async () => {
  t = await listenTestApp();
  key = await t.key();
  // X posts, 1,000 impressions each, so each is measured by its rate and its index is likes ÷ the mean 25:
  // Tuesday 09:xx 40, 40, 40 (index 1.6 each); Wednesday 13:xx 20, 30, 40 (0.8, 1.2, 1.6: mean 1.2, s = 0.4);
  // Thursday 09:xx 10 × 4 (0.4, below the average); Monday 09:xx 25, 25 (1.0, but only two posts).
  const x = t.connections.x!;
  const plan: Array<[number, number, number[]]> = [
    [2, 9, [40, 40, 40]],
    [3, 13, [20, 30, 40]],
    [4, 9, [10, 10, 10, 10]],
    [1, 9, [25, 25]],
  ];
  for (const [dow, hour, likes] of plan)
    for (const [week, value] of likes.entries())
      await seed('x', x, at(dow, hour, 5 + week * 10, week), {
        likes: value,
        impressions: 1000,
      });
  xQueue = await makeQueue(t.owner.workspaceId, t.owner.brandId, [x]);
});
after(() => t.close());

describe('POST /v1/queues/{id}/suggest-slots', () => {
  test('ranks the weekday-hours by engagement index with their confidence, then fills the count with defaults', async () => {
    const res = await suggest(xQueue);
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assertSchema(SlotSuggestions, data);
    assert.deepEqual((data.slots as Slot[]).map(brief), [
      // 1.6 with no spread; 1.2 with s = 0.4 over 3 posts: 1 − (0.4 ÷ √3) ÷ 1.2 = 0.8075.
      [2, '09:00', 'history', 1.6, 1, 3],
      [3, '13:00', 'history', 1.2, 0.81, 3],
      // Defaults: Tuesday 09:00 is already proposed, Thursday 09:00 was measured below average; Monday 09:00 had two.
      [1, '09:00', 'default', null, null, 2],
      [3, '09:00', 'default', null, null, 0],
      [5, '09:00', 'default', null, null, 0],
      [1, '12:00', 'default', null, null, 0],
      [2, '12:00', 'default', null, null, 0],
    ]);
    assert.ok((data.slots as Slot[]).every((s) => s.timezone === 'UTC'));
    const { window, ...basis } = data.basis;
    assert.deepEqual(basis, {
      measure: 'engagement_index',
      brand_id: t.owner.brandId,
      connection_ids: [t.connections.x],
      timezone: 'UTC',
      min_sample: 3,
      samples: 12,
      samples_by_rate: 12,
      slots_measured: 3,
      history: 2,
      defaults: 5,
    });
    assert.equal(new Date(window.to).getTime() - new Date(window.from).getTime(), 90 * DAY);
  });

  test('count limits the answer; min_sample 2 lets the two-post hour be scored', async () => {
    const two = (await suggest(xQueue, { count: 2 })).json().data;
    assert.deepEqual(
      (two.slots as Slot[]).map((s) => [s.day_of_week, s.time]),
      [
        [2, '09:00'],
        [3, '13:00'],
      ],
    );
    const loose = (await suggest(xQueue, { count: 3, min_sample: 2 })).json().data;
    // Monday 09:00: both posts at the account's average, index 1.0, no spread.
    assert.deepEqual((loose.slots as Slot[]).map(brief)[2], [1, '09:00', 'history', 1, 1, 2]);
    assert.equal(loose.basis.slots_measured, 4);
  });

  test('below the minimum sample everywhere, every slot is a default with no score and no confidence', async () => {
    const m = t.connections.mastodon!;
    // Two posts in one hour, one in another: not enough anywhere.
    await seed('mastodon', m, at(2, 10, 0), { likes: 5 });
    await seed('mastodon', m, at(2, 10, 30, 1), { likes: 9 });
    await seed('mastodon', m, at(4, 15, 0), { likes: 7 });
    const queue = await makeQueue(t.owner.workspaceId, t.owner.brandId, [m]);
    const data = (await suggest(queue)).json().data;
    assert.deepEqual(
      (data.slots as Slot[]).map((s) => [s.day_of_week, s.time, s.source, s.score, s.confidence]),
      [
        [1, '09:00', 'default', null, null],
        [2, '09:00', 'default', null, null],
        [3, '09:00', 'default', null, null],
        [4, '09:00', 'default', null, null],
        [5, '09:00', 'default', null, null],
        [1, '12:00', 'default', null, null],
        [2, '12:00', 'default', null, null],
      ],
    );
    assert.equal(data.basis.samples, 3);
    assert.equal(data.basis.samples_by_rate, 0);
    assert.equal(data.basis.history, 0);
  });

  test("groups by the queue's zone: a post at 23:30 UTC on Sunday counts for Monday 08:00 in Asia/Tokyo", async () => {
    const b = t.connections.bluesky!;
    for (const week of [0, 1, 2]) await seed('bluesky', b, at(0, 23, 30, week), { likes: 10 });
    const queue = await makeQueue(t.owner.workspaceId, t.owner.brandId, [b], ['Asia/Tokyo', 'Asia/Tokyo', 'UTC']);
    const tokyo = (await suggest(queue, { count: 1 })).json().data;
    assert.deepEqual((tokyo.slots as Slot[]).map(brief), [[1, '08:00', 'history', 1, 1, 3]]);
    assert.equal(tokyo.slots[0].timezone, 'Asia/Tokyo');
    assert.equal(tokyo.basis.samples_by_rate, 0, 'Bluesky counts no views: engagements per post');
    const utc = (await suggest(queue, { count: 1, timezone: 'utc' })).json().data;
    assert.deepEqual((utc.slots as Slot[]).map(brief), [[0, '23:00', 'history', 1, 1, 3]]);
  });

  test('a queue without connections reads every post of its brand; connection_ids narrows it', async () => {
    const queue = await makeQueue(t.owner.workspaceId, t.owner.brandId, null);
    const all = (await suggest(queue)).json().data;
    assert.equal(all.basis.connection_ids, null);
    assert.ok(all.basis.samples >= 12 + 3, JSON.stringify(all.basis));
    const onlyX = (await suggest(queue, { connection_ids: [t.connections.x] })).json().data;
    assert.equal(onlyX.basis.samples, 12);
    assert.deepEqual(onlyX.slots[0].time, '09:00');
  });

  test('another workspace neither reaches the queue nor counts in its own suggestions', async () => {
    const other = await t.workspace();
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const refused = await suggest(xQueue, {}, otherKey);
    assert.equal(refused.statusCode, 404, refused.body);
    assert.equal(refused.json().error.code, 'PUBLIC_API_NOT_FOUND');
    const theirs = await makeQueue(other.workspaceId, other.brandId, null);
    const data = (await suggest(theirs, {}, otherKey)).json().data;
    assert.equal(data.basis.samples, 0);
    assert.ok((data.slots as Slot[]).every((s) => s.source === 'default'));
    // Our connection named in their queue: not a connection of their brand.
    const named = await suggest(theirs, { connection_ids: [t.connections.x] }, otherKey);
    assert.equal(named.statusCode, 422, named.body);
  });

  test('a key limited to another brand does not reach the queue', async () => {
    const brand = await t.inject({ method: 'POST', url: '/v1/brands', key, payload: { name: 'Elsewhere' } });
    assert.equal(brand.statusCode, 201, brand.body);
    const limited = await t.key({ brandIds: [brand.json().data.id] });
    const res = await suggest(xQueue, {}, limited);
    assert.equal(res.statusCode, 404, res.body);
  });

  test('a key without queues:read gets 403', async () => {
    const res = await suggest(xQueue, {}, await t.key({ scopes: ['posts:read'] }));
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
  });

  test('bad input is refused by name', async () => {
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ count: 51 }, 400, 'PUBLIC_API_BODY_INVALID', '/count'],
      [{ count: 0 }, 400, 'PUBLIC_API_BODY_INVALID', '/count'],
      [{ min_sample: 1 }, 400, 'PUBLIC_API_BODY_INVALID', '/min_sample'],
      [{ slots: 3 }, 400, 'PUBLIC_API_BODY_INVALID', ''],
      [{ timezone: 'Mars/Olympus' }, 422, 'PUBLIC_API_VALIDATION_FAILED', '/timezone'],
      [{ connection_ids: [t.connections.bluesky] }, 422, 'PUBLIC_API_VALIDATION_FAILED', '/connection_ids/0'],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await suggest(xQueue, body);
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      const error = res.json().error;
      assert.equal(error.code, code, JSON.stringify(body));
      if (path)
        assert.ok(
          error.details.some((d: { path: string }) => d.path === path),
          JSON.stringify(error),
        );
    }
    const slotless = await makeQueue(t.owner.workspaceId, t.owner.brandId, null, []);
    const noZone = await suggest(slotless);
    assert.equal(noZone.statusCode, 422, noZone.body);
    assert.equal(noZone.json().error.details[0].rule, 'timezone_required');
    assert.equal((await suggest(slotless, { timezone: 'Europe/Paris' })).statusCode, 200);
    const missing = await suggest('que_missing');
    assert.equal(missing.statusCode, 404, missing.body);
  });
});

describe('POST /v1/queues with queue_slots_from: "best_times"', () => {
  const create = (body: Record<string, unknown>) => t.inject({ method: 'POST', url: '/v1/queues', key, payload: body });

  test("makes the queue's slots the suggestions, in week order, in the zone given", async () => {
    const res = await create({
      name: 'From history',
      connection_ids: [t.connections.x],
      queue_slots_from: 'best_times',
      timezone: 'UTC',
    });
    assert.equal(res.statusCode, 201, res.body);
    const expected = (await suggest(xQueue)).json().data.slots as Slot[];
    const asSlots = expected
      .map((s) => ({ day_of_week: s.day_of_week, time: s.time, timezone: s.timezone }))
      .toSorted((a, b) => a.day_of_week - b.day_of_week || a.time.localeCompare(b.time));
    assert.deepEqual(res.json().data.slots, asSlots);
    assert.equal(asSlots.length, 7);
  });

  test('needs a zone, and either slots or queue_slots_from', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'q', queue_slots_from: 'best_times' }, 'timezone_required'],
      [{ name: 'q', queue_slots_from: 'best_times', timezone: 'Nowhere/Land' }, 'timezone_unknown'],
      [{ name: 'q' }, 'slots_required'],
      [
        {
          name: 'q',
          queue_slots_from: 'best_times',
          timezone: 'UTC',
          slots: [{ day_of_week: 1, time: '09:00', timezone: 'UTC' }],
        },
        'slots_or_best_times',
      ],
    ];
    for (const [body, rule] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().error.details[0].rule, rule, res.body);
    }
    const bad = await create({ name: 'q', queue_slots_from: 'worst_times', timezone: 'UTC' });
    assert.equal(bad.statusCode, 400, bad.body);
  });
});

describe('MCP suggest_queue_slots', () => {
  test('answers what the REST endpoint answers, and names the defaults as such', async () => {
    const mcp = new Client({ name: 'herald-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const result = await mcp.callTool({ name: 'suggest_queue_slots', arguments: { queue_id: xQueue, count: 3 } });
      assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
      const rest = (await suggest(xQueue, { count: 3 })).json().data;
      assert.deepEqual((result.structuredContent as { slots: Slot[] }).slots, rest.slots);
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      assert.match(text, /Tuesday 09:00: score 1\.6/);
      assert.match(text, /Monday 09:00: default \(no evidence/);
      const missing = await mcp.callTool({ name: 'suggest_queue_slots', arguments: { queue_id: 'que_missing' } });
      assert.equal(missing.isError, true);
    } finally {
      await mcp.close();
    }
  });
});
