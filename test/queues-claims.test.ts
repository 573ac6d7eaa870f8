// Queue slots given by group commit (docs/queues.md "What the lock costs"): a claim transaction gives many adds
// their slots at once, claims of two queues stay apart, and the claim of an add that never wrote its post holds its
// slot until it expires, then the next add takes it. An add whose transaction failed after its claim is stood for by
// a claim made directly (claimSlots), which no post ever consumes. The clock is fixed so the slots are known.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { daily, queueRequests } from './helpers/queues.ts';
import type { ClaimRequest } from '../src/features/queues/queues.assign.ts';
import { claimSlots, createQueueClaims } from '../src/features/queues/queues.claims.ts';
import { findQueue } from '../src/features/queues/queues.repo.ts';

// Monday 1 March 2027, midnight UTC.
const clock = { at: new Date('2027-03-01T00:00:00Z'), now: () => new Date(clock.at) };
let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({ clock });
  key = await t.key();
});
after(() => t.close());

const { createQueue, removeQueue, add } = queueRequests(() => ({ t, key }));

const request = (queueId: string, position: ClaimRequest['position'] = 'next'): Omit<ClaimRequest, 'queue'> => ({
  workspaceId: t.owner.workspaceId,
  queueId,
  position,
  now: clock.now(),
});

/** The queue's slots from the clock on, as the preview gives them. */
async function firstSlots(queueId: string, limit: number): Promise<string[]> {
  const res = await t.inject({
    url: `/v1/queues/${queueId}/slots?from=2027-03-01T00:00:00Z&to=2027-06-01T00:00:00Z&limit=${limit}`,
    key,
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data.slots as Array<{ at: string }>).map((s) => s.at);
}

async function claimsOf(queueId: string): Promise<string[]> {
  const { rows } = await t.container.pool.query<{ slot: Date }>(
    `SELECT slot FROM queue_claims WHERE queue_id = $1 ORDER BY slot`,
    [queueId],
  );
  return rows.map((r) => r.slot.toISOString());
}

describe('claims', () => {
  test('one claim transaction gives many adds consecutive slots: next ones first, then last ones', async () => {
    const queue = await createQueue({ slots: daily('06:00', '10:00', '14:00', '18:00') });
    const slots = await firstSlots(queue.id, 120);
    const requests = [
      ...Array.from({ length: 90 }, () => request(queue.id)),
      ...Array.from({ length: 30 }, () => request(queue.id, 'last')),
    ];
    const claims = await claimSlots(t.container.pool, requests);
    assert.ok(claims.every((c) => c !== null));
    assert.deepEqual(
      claims.map((c) => c!.slot.toISOString()),
      slots,
      'the first 120 slots, in order',
    );
    assert.equal(new Set(claims.map((c) => c!.claimId)).size, 120);
    assert.deepEqual(await claimsOf(queue.id), slots);
    // The adds' own transactions write their posts at those slots; an add arriving next takes the slot after them.
    const next = await add(queue.id);
    assert.equal(next.schedule_at, (await firstSlots(queue.id, 121))[120]);
    await removeQueue(queue.id);
    assert.deepEqual(await claimsOf(queue.id), [], 'deleting the queue drops its claims');
  });

  test('the claimer gives concurrent adds of one queue consecutive slots, in one statement or from the locked row', async () => {
    const queue = await createQueue({ slots: daily('06:00', '10:00', '14:00', '18:00') });
    const slots = await firstSlots(queue.id, 200);
    const row = (await findQueue(t.container.pool, t.owner.workspaceId, queue.id))!;
    const claims = createQueueClaims(t.container.pool);
    // 150 at once (one or a few batches), then 50 more, one of them `last`, read from the row as it was before.
    const first = await Promise.all(Array.from({ length: 150 }, () => claims({ ...request(queue.id), queue: row })));
    const more = await Promise.all(
      Array.from({ length: 50 }, (_, i) => claims({ ...request(queue.id, i === 49 ? 'last' : 'next'), queue: row })),
    );
    const got = [...first, ...more].map((c) => c!.slot.toISOString());
    assert.deepEqual(got.slice(0, 150), slots.slice(0, 150), 'the first batch in arrival order');
    assert.deepEqual(got.toSorted(), slots, 'no slot twice, none skipped');
    assert.deepEqual(await claimsOf(queue.id), slots);
    await removeQueue(queue.id);
  });

  test('a claim whose add never wrote its post keeps its slot until it expires; then the next add takes it', async () => {
    const queue = await createQueue({ slots: daily('09:00'), gap_policy: 'leave' });
    const [first, second, third] = await firstSlots(queue.id, 3);
    const [lost] = await claimSlots(t.container.pool, [request(queue.id)]);
    assert.equal(lost!.slot.toISOString(), first);
    // While the claim lives its slot is taken: the next add goes after it.
    assert.equal((await add(queue.id)).schedule_at, second);
    // Its add failed: past its expiry, the slot is free again and the next add fills it (the gap left meanwhile).
    await t.container.pool.query(
      `UPDATE queue_claims SET expires_at = now() - interval '1 second' WHERE claim_id = $1`,
      [lost!.claimId],
    );
    const filled = await add(queue.id);
    assert.equal(filled.schedule_at, first);
    assert.equal(filled.queue_slot, first);
    assert.deepEqual(await claimsOf(queue.id), [], 'the expired claim is gone, and no add left one behind');
    assert.equal((await add(queue.id)).schedule_at, third);
    await removeQueue(queue.id);
  });

  test("a change of the queue's rules drops its claims; the adds after it take the slots the new rules give", async () => {
    const queue = await createQueue({ slots: daily('09:00') });
    const [first, second] = await firstSlots(queue.id, 2);
    const [claim] = await claimSlots(t.container.pool, [request(queue.id)]);
    // A change of the queue's rules drops its claims: the claimed slot may not be a slot any more.
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/queues/${queue.id}`,
      key,
      payload: { pauses: ['2027-03-20'] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(await claimsOf(queue.id), []);
    assert.equal(claim!.slot.toISOString(), first);
    assert.equal((await add(queue.id)).schedule_at, first);
    assert.equal((await add(queue.id)).schedule_at, second);
    await removeQueue(queue.id);
  });

  test('claims of two queues do not interfere, and another workspace cannot claim', async () => {
    const a = await createQueue({ slots: daily('09:00', '17:00') });
    const b = await createQueue({ slots: daily('09:00', '17:00') });
    const slots = await firstSlots(a.id, 20);
    const [held] = await claimSlots(t.container.pool, [request(a.id)]);
    assert.equal(held!.slot.toISOString(), slots[0]);
    // Queue a's claim holds a's first slot only: b's adds start at b's first slot.
    const [toA, toB] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => add(a.id))),
      Promise.all(Array.from({ length: 10 }, () => add(b.id))),
    ]);
    assert.deepEqual(toA.map((p) => p.schedule_at).sort(), slots.slice(1, 11));
    assert.deepEqual(toB.map((p) => p.schedule_at).sort(), slots.slice(0, 10));
    const other = await t.workspace();
    assert.deepEqual(await claimSlots(t.container.pool, [{ ...request(a.id), workspaceId: other.workspaceId }]), [
      null,
    ]);
    assert.deepEqual(await claimsOf(b.id), []);
    assert.deepEqual(await claimsOf(a.id), [slots[0]]);
    await removeQueue(a.id);
    await removeQueue(b.id);
  });

  test('a queue with a minimum spacing gives no claim: its adds take the locked path', async () => {
    const queue = await createQueue({ slots: daily('09:00'), min_spacing_minutes: 60 });
    assert.deepEqual(await claimSlots(t.container.pool, [request(queue.id)]), [null]);
    await removeQueue(queue.id);
  });
});
