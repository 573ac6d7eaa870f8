// Queued posts that move (docs/queues.md "Moving and leaving"): new slots move the unpinned posts in order, a post
// given its own time is pinned, a post that leaves its slot closes the gap or leaves it, and a rejected review frees
// the slot. The clock is fixed so the slots are known.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { daily, queueRequests } from './helpers/queues.ts';

// Monday 1 March 2027, midnight UTC.
const clock = { at: new Date('2027-03-01T00:00:00Z'), now: () => new Date(clock.at) };
let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({ clock });
  key = await t.key();
});
after(() => t.close());

const { createQueue, removeQueue, add, getPost } = queueRequests(() => ({ t, key }));

describe('moving queued posts', () => {
  test('new slots move the unpinned posts in order; a post given its own time stays pinned', async () => {
    const queue = await createQueue({ slots: daily('09:00') });
    const [a, b, c] = [await add(queue.id), await add(queue.id), await add(queue.id)];
    const pin = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${b.id}`,
      key,
      payload: { schedule_at: '2027-03-02T11:11:00Z' },
    });
    assert.equal(pin.statusCode, 200, pin.body);
    assert.equal(pin.json().data.queue_slot, null);
    // The gap b left closed: c moved up to 2 March.
    assert.equal((await getPost(c.id)).schedule_at, '2027-03-02T09:00:00.000Z');
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/queues/${queue.id}`,
      key,
      payload: { slots: daily('17:30') },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await getPost(a.id)).schedule_at, '2027-03-01T17:30:00.000Z');
    assert.equal((await getPost(c.id)).schedule_at, '2027-03-02T17:30:00.000Z');
    assert.equal((await getPost(c.id)).queue_slot, '2027-03-02T17:30:00.000Z');
    assert.equal((await getPost(b.id)).schedule_at, '2027-03-02T11:11:00.000Z');
    const events = await t.inject({ url: '/v1/events?type=post.rescheduled', key });
    const moved = (events.json().data.items as Array<{ data: { id: string } }>).map((e) => e.data.id);
    assert.ok(moved.includes(a.id) && moved.includes(c.id), 'post.rescheduled for each post that moved');
    assert.ok(!moved.includes(b.id));
    await removeQueue(queue.id);
  });

  test('cancelling a queued post closes its gap when the queue says close, and leaves it when it says leave', async () => {
    const close = await createQueue({ slots: daily('09:00'), gap_policy: 'close' });
    const [a, b, c] = [await add(close.id), await add(close.id), await add(close.id)];
    await t.inject({ method: 'POST', url: `/v1/posts/${a.id}/cancel`, key });
    assert.equal((await getPost(b.id)).schedule_at, '2027-03-01T09:00:00.000Z');
    assert.equal((await getPost(c.id)).schedule_at, '2027-03-02T09:00:00.000Z');
    await removeQueue(close.id);

    const leave = await createQueue({ slots: daily('07:00'), gap_policy: 'leave' });
    const [d, e] = [await add(leave.id), await add(leave.id)];
    const deleted = await t.inject({ method: 'DELETE', url: `/v1/posts/${d.id}`, key });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal((await getPost(e.id)).schedule_at, '2027-03-02T07:00:00.000Z');
    assert.equal((await add(leave.id)).schedule_at, '2027-03-01T07:00:00.000Z');
    await removeQueue(leave.id);
  });
});

describe('approvals', () => {
  async function setPolicy(patch: Record<string, unknown>) {
    const current = (await t.inject({ url: '/v1/approvals/policy', key })).json().data as { version: number };
    const res = await t.inject({
      method: 'PATCH',
      url: '/v1/approvals/policy',
      key,
      payload: { version: current.version, ...patch },
    });
    assert.equal(res.statusCode, 200, res.body);
  }

  test('a queued post held for review keeps its slot; rejected, it leaves it and the gap closes', async () => {
    await setPolicy({ mode: 'everyone', allow_self_approval: true });
    try {
      const queue = await createQueue({ slots: daily('10:00') });
      const held = (await add(queue.id)) as Awaited<ReturnType<typeof add>> & {
        status: string;
        approval: { item_id: string };
      };
      assert.equal(held.status, 'pending_approval');
      assert.equal(held.queue_slot, '2027-03-01T10:00:00.000Z');
      const second = await add(queue.id);
      assert.equal(second.schedule_at, '2027-03-02T10:00:00.000Z');
      const item = (await t.inject({ url: `/v1/approvals/items/${held.approval.item_id}`, key })).json().data as {
        version: number;
      };
      const rejected = await t.inject({
        method: 'POST',
        url: `/v1/approvals/items/${held.approval.item_id}/actions`,
        key,
        payload: { action: 'reject', version: item.version, reason: 'Not this week.' },
      });
      assert.equal(rejected.statusCode, 200, rejected.body);
      const draft = await getPost(held.id);
      assert.equal(draft.status, 'draft');
      assert.equal(draft.queue_slot, null);
      assert.equal((await getPost(second.id)).schedule_at, '2027-03-01T10:00:00.000Z');
      await removeQueue(queue.id);
    } finally {
      await setPolicy({ mode: 'off' });
    }
  });
});
