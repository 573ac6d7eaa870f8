// Posting queues (docs/queues.md): the queue resource and its checks, the slot preview across daylight-saving
// changes, adding posts at the next or the last free slot, pauses, spacing per connection, the connection
// restriction, 50 concurrent adds, tenancy and scopes. Moving posts: queues-moves.test.ts. The clock is fixed so the
// slots are known.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { daily, queueRequests, rule, UTC } from './helpers/queues.ts';

// Monday 1 March 2027, midnight UTC.
const clock = { at: new Date('2027-03-01T00:00:00Z'), now: () => new Date(clock.at) };
let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({ clock });
  key = await t.key();
});
after(() => t.close());

const { freshKey, createQueue, removeQueue, queued, add, getPost } = queueRequests(() => ({ t, key }));

describe('the queue resource', () => {
  test('create, read, list, change and delete a queue', async () => {
    const queue = await createQueue({ slots: [UTC(1, '09:00')], pauses: ['2027-03-08'], gap_policy: 'leave' });
    assert.match(queue.id, /^que_/);
    const got = await t.inject({ url: `/v1/queues/${queue.id}`, key });
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json().data.pauses, ['2027-03-08']);
    assert.equal(got.json().data.brand_id, t.owner.brandId);
    const list = await t.inject({ url: '/v1/queues', key });
    assert.ok(list.json().data.items.some((q: { id: string }) => q.id === queue.id));
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/queues/${queue.id}`,
      key,
      payload: { name: 'renamed', min_spacing_minutes: 30 },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.name, 'renamed');
    assert.equal(patched.json().data.min_spacing_minutes, 30);
    await removeQueue(queue.id);
    assert.equal((await t.inject({ url: `/v1/queues/${queue.id}`, key })).statusCode, 404);
  });

  test('an unknown zone, a repeated slot and a connection of another brand are 422 naming the rule', async () => {
    const bad = (payload: Record<string, unknown>) =>
      t.inject({ method: 'POST', url: '/v1/queues', key, payload: { name: 'bad', slots: [], ...payload } });
    rule(await bad({ slots: [{ day_of_week: 1, time: '09:00', timezone: 'Mars/Olympus' }] }), 'timezone_unknown');
    rule(await bad({ slots: [UTC(1, '09:00'), UTC(1, '09:00')] }), 'duplicate_slot');
    const other = await t.workspace();
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const theirs = await t.inject({ url: '/v1/connections', key: otherKey });
    const connection = theirs.json().data.items[0].id as string;
    rule(await bad({ connection_ids: [connection] }), 'connection_not_in_brand');
  });

  test('a time that is not HH:mm, or a day past 6, is a 400 from the schema', async () => {
    for (const slot of [{ ...UTC(1, '9:00') }, { ...UTC(1, '24:00') }, { ...UTC(7, '09:00') }]) {
      const res = await t.inject({ method: 'POST', url: '/v1/queues', key, payload: { name: 'x', slots: [slot] } });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
    }
  });

  test('the preview lists the slots of two zones across their spring-forward nights, and pages by limit', async () => {
    const queue = await createQueue({
      slots: [
        { day_of_week: 0, time: '02:30', timezone: 'America/New_York' },
        { day_of_week: 0, time: '02:30', timezone: 'Europe/Paris' },
      ],
    });
    const res = await t.inject({
      url: `/v1/queues/${queue.id}/slots?from=2027-03-13T00:00:00Z&to=2027-03-29T00:00:00Z&limit=5`,
      key,
    });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data as {
      slots: Array<{ at: string; timezone: string }>;
      has_more: boolean;
      next_from: string;
    };
    assert.deepEqual(
      data.slots.map((s) => [s.at, s.timezone]),
      [
        ['2027-03-14T01:30:00.000Z', 'Europe/Paris'],
        ['2027-03-14T07:30:00.000Z', 'America/New_York'], // the New York gap: 03:30 EDT
        ['2027-03-21T01:30:00.000Z', 'Europe/Paris'],
        ['2027-03-21T06:30:00.000Z', 'America/New_York'],
        ['2027-03-28T01:30:00.000Z', 'Europe/Paris'], // the Paris gap: 03:30 CEST
      ],
    );
    assert.equal(data.has_more, true);
    assert.equal(data.next_from, '2027-03-28T06:30:00.000Z');
    await removeQueue(queue.id);
  });

  test('the preview window is at most 366 days', async () => {
    const queue = await createQueue({ slots: [UTC(1, '09:00')] });
    const res = await t.inject({
      url: `/v1/queues/${queue.id}/slots?from=2027-03-01T00:00:00Z&to=2028-03-05T00:00:00Z`,
      key,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'PUBLIC_API_QUERY_INVALID');
    await removeQueue(queue.id);
  });
});

describe('adding posts', () => {
  test('next takes the earliest free slot, last the one after the latest taken; the post shows its slot', async () => {
    const queue = await createQueue({ slots: daily('09:00', '15:00'), gap_policy: 'leave' });
    const first = await add(queue.id);
    assert.equal(first.schedule_at, '2027-03-01T09:00:00.000Z');
    assert.equal(first.queue_slot, first.schedule_at);
    assert.equal(first.queue_id, queue.id);
    const last = await add(queue.id, { queue: 'last' });
    assert.equal(last.schedule_at, '2027-03-01T15:00:00.000Z');
    const later = await add(queue.id, { queue: 'last' });
    assert.equal(later.schedule_at, '2027-03-02T09:00:00.000Z');
    // The publish jobs wait for the slot, whichever way the slot was found (claimed at once, or scanned for).
    for (const post of [first, later]) {
      const { rows } = await t.container.pool.query<{ run_at: Date; payload: { schedule_at: string } }>(
        `SELECT j.run_at, j.payload FROM graphile_worker._private_jobs j JOIN post_targets pt ON j.key = 'publish:' || pt.id
          WHERE pt.post_id = $1`,
        [post.id],
      );
      assert.deepEqual(
        rows.map((r) => [r.run_at.toISOString(), r.payload.schedule_at]),
        [[post.schedule_at, post.schedule_at]],
      );
    }
    // Leaving the gap: cancelling the 15:00 post frees its slot, and `next` takes it again.
    const cancel = await t.inject({ method: 'POST', url: `/v1/posts/${last.id}/cancel`, key });
    assert.equal(cancel.statusCode, 200, cancel.body);
    assert.equal(cancel.json().data.queue_slot, null);
    assert.equal((await getPost(later.id)).schedule_at, '2027-03-02T09:00:00.000Z');
    assert.equal((await add(queue.id)).schedule_at, '2027-03-01T15:00:00.000Z');
    const preview = await t.inject({
      url: `/v1/queues/${queue.id}/slots?from=2027-03-01T00:00:00Z&to=2027-03-03T00:00:00Z`,
      key,
    });
    assert.equal(preview.statusCode, 200, preview.body);
    const slots = preview.json().data.slots as Array<{ at: string; status: string; post_id: string | null }>;
    assert.deepEqual(
      slots.map((s) => [s.at.slice(5, 16), s.status]),
      [
        ['03-01T09:00', 'taken'],
        ['03-01T15:00', 'taken'],
        ['03-02T09:00', 'taken'],
        ['03-02T15:00', 'free'],
      ],
    );
    assert.equal(slots[0]!.post_id, first.id);
    // On the calendar, a queued post is a post that names its queue.
    const calendar = await t.inject({ url: '/v1/calendar/events?from=2027-03-01&to=2027-03-02&type=post', key });
    const event = (calendar.json().data.items as Array<{ id: string; queue_id: string | null }>).find(
      (e) => e.id === first.id,
    );
    assert.equal(event?.queue_id, queue.id);
    await removeQueue(queue.id);
    // Deleted, the queue lets its posts go: they keep their time.
    const kept = await getPost(first.id);
    assert.equal(kept.schedule_at, '2027-03-01T09:00:00.000Z');
    assert.equal(kept.queue_id, null);
  });

  test('queue with schedule_at, queue_id without queue, and no queue at all are 422 naming the rule', async () => {
    rule(await queued({ schedule_at: '2027-03-02T10:00:00Z' }), 'queue_with_schedule');
    const validate = await t.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key,
      payload: { content: 'x', platforms: ['x'], queue: 'next', publish_now: true },
    });
    assert.equal(validate.statusCode, 200, validate.body);
    assert.deepEqual(
      validate.json().data.issues.map((i: { rule: string }) => i.rule),
      ['queue_with_schedule'],
    );
    rule(
      await queued({ queue: undefined, queue_id: 'que_x', schedule_at: '2027-03-02T10:00:00Z' }),
      'queue_id_without_queue',
    );
    rule(await queued({}, await freshKey()), 'brand_has_no_queue');
    rule(await queued({ queue_id: 'que_unknown' }), 'queue_not_found');
  });

  test('with two queues the post must name one', async () => {
    const own = await freshKey();
    await createQueue({ slots: daily('08:00') }, own);
    const b = await createQueue({ slots: daily('20:00') }, own);
    rule(await queued({}, own), 'queue_id_required');
    assert.equal((await add(b.id, {}, own)).schedule_at, '2027-03-01T20:00:00.000Z');
  });

  test('paused dates are skipped', async () => {
    const queue = await createQueue({ slots: daily('09:00'), pauses: ['2027-03-01', '2027-03-02'] });
    assert.equal((await add(queue.id)).schedule_at, '2027-03-03T09:00:00.000Z');
    await removeQueue(queue.id);
  });

  test('minimum spacing keeps two posts on one connection apart; another connection takes the slot between', async () => {
    // Its own workspace: spacing counts every post waiting on the connection, queued or not.
    const own = await freshKey();
    const queue = await createQueue({ slots: daily('09:00', '12:00', '15:00'), min_spacing_minutes: 360 }, own);
    assert.equal((await add(queue.id, {}, own)).schedule_at, '2027-03-01T09:00:00.000Z');
    assert.equal((await add(queue.id, {}, own)).schedule_at, '2027-03-01T15:00:00.000Z');
    assert.equal((await add(queue.id, { platforms: ['bluesky'] }, own)).schedule_at, '2027-03-01T12:00:00.000Z');
  });

  test('a queue restricted to some connections refuses a post for another', async () => {
    const queue = await createQueue({ slots: daily('09:00'), connection_ids: [t.connections.x] });
    rule(await queued({ queue_id: queue.id, platforms: ['bluesky'] }), 'connection_not_in_queue');
    assert.equal((await add(queue.id, { platforms: ['x'] })).schedule_at, '2027-03-01T09:00:00.000Z');
    await removeQueue(queue.id);
  });

  test('a refused add leaves no gap: the next add takes the first free slot', async () => {
    const queue = await createQueue({ slots: daily('07:00', '19:00') });
    // Too long for X: refused by the platform rules before any slot is taken.
    const refused = await queued({ queue_id: queue.id, platforms: ['x'], content: 'a'.repeat(400) });
    rule(refused, 'text_too_long');
    assert.equal((await add(queue.id, { platforms: ['x'] })).schedule_at, '2027-03-01T07:00:00.000Z');
    assert.equal((await add(queue.id, { platforms: ['x'] })).schedule_at, '2027-03-01T19:00:00.000Z');
    await removeQueue(queue.id);
  });

  test('an add right after an edit of the slots or the restriction follows the edit, even two edits at once', async () => {
    // Adds keep a copy of the queue's slots (docs/queues.md "What the lock costs"): each edit must be seen.
    const queue = await createQueue({ slots: daily('09:00') });
    const patch = (payload: Record<string, unknown>) =>
      t.inject({ method: 'PATCH', url: `/v1/queues/${queue.id}`, key, payload });
    assert.equal((await add(queue.id, { platforms: ['x'] })).schedule_at, '2027-03-01T09:00:00.000Z');
    assert.equal((await patch({ slots: daily('10:00') })).statusCode, 200);
    // The post at 09:00 moved to 10:00 with the edit; the next add takes the day after.
    assert.equal((await add(queue.id, { platforms: ['x'] })).schedule_at, '2027-03-02T10:00:00.000Z');
    const [first, second] = await Promise.all([patch({ slots: daily('11:00') }), patch({ slots: daily('12:00') })]);
    assert.equal(first!.statusCode, 200, first!.body);
    assert.equal(second!.statusCode, 200, second!.body);
    const got = await t.inject({ url: `/v1/queues/${queue.id}`, key });
    const time = (got.json().data.slots as Array<{ time: string }>)[0]!.time;
    assert.equal((await add(queue.id, { platforms: ['x'] })).schedule_at, `2027-03-03T${time}:00.000Z`);
    assert.equal((await patch({ connection_ids: [t.connections.x] })).statusCode, 200);
    rule(await queued({ queue_id: queue.id, platforms: ['bluesky'] }), 'connection_not_in_queue');
    await removeQueue(queue.id);
  });

  test('50 concurrent adds get 50 distinct slots with no gap', async () => {
    const queue = await createQueue({ slots: daily('06:00', '10:00', '14:00', '18:00') });
    const results = await Promise.all(Array.from({ length: 50 }, () => queued({ queue_id: queue.id })));
    for (const res of results) assert.equal(res.statusCode, 201, res.body);
    const times = results.map((r) => r.json().data.post.schedule_at as string).sort();
    assert.equal(new Set(times).size, 50, 'no slot given twice');
    const preview = await t.inject({
      url: `/v1/queues/${queue.id}/slots?from=2027-03-01T00:00:00Z&to=2027-03-20T00:00:00Z&limit=50`,
      key,
    });
    const expected = (preview.json().data.slots as Array<{ at: string; status: string }>).map((s) => s.at);
    assert.deepEqual(times, expected, 'the first 50 slots, none skipped');
    assert.ok(preview.json().data.slots.every((s: { status: string }) => s.status === 'taken'));
    await removeQueue(queue.id);
  });
});

describe('tenancy and scopes', () => {
  test("another workspace's queue is a 404, and a post there cannot join it", async () => {
    const queue = await createQueue({ slots: daily('09:00') });
    const other = await t.workspace();
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    for (const url of [`/v1/queues/${queue.id}`, `/v1/queues/${queue.id}/slots`]) {
      assert.equal((await t.inject({ url, key: otherKey })).statusCode, 404);
    }
    const patch = await t.inject({
      method: 'PATCH',
      url: `/v1/queues/${queue.id}`,
      key: otherKey,
      payload: { name: 'x' },
    });
    assert.equal(patch.statusCode, 404);
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/queues/${queue.id}`, key: otherKey })).statusCode, 404);
    rule(await queued({ queue_id: queue.id }, otherKey), 'queue_not_found');
    await removeQueue(queue.id);
  });

  test('403 without queues:write to change a queue, without queues:read to read one', async () => {
    const readOnly = await t.key({ scopes: ['queues:read', 'posts:write'] });
    const res = await t.inject({
      method: 'POST',
      url: '/v1/queues',
      key: readOnly,
      payload: { name: 'nope', slots: [] },
    });
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    const none = await t.key({ scopes: ['posts:read'] });
    assert.equal((await t.inject({ url: '/v1/queues', key: none })).statusCode, 403);
  });
});
