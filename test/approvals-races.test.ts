// Approvals under contention and abuse: two reviewers deciding one item, a decision racing an edit of the post or
// the expiry sweeper (every writer locks the post before its item, so these wait for each other instead of
// deadlocking), an automation's held output edited from a surface the policy does not review, and bad input that
// must answer in the error envelope, never with a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createUser } from '../src/features/users/users.service.ts';
import { ROLE_SCOPES } from '../src/features/workspaces/roles.ts';
import { withTransaction } from '../src/db/pool.ts';
import { expireDueApprovals } from '../src/features/approvals/approvals.sweeper.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { runContext, setApprovalPolicy } from './helpers/approvals.ts';

let t: TestApp;
let ownerKey: string;
let adminKey: string;
let memberKey: string;
let memberId: string;
let n = 0;

before(async () => {
  t = await buildTestApp();
  ownerKey = await t.key();
  for (const role of ['admin', 'member'] as const) {
    const { userId } = await createUser(t.container.pool, {
      email: `${role}@approvals-races.test`,
      workspaceId: t.owner.workspaceId,
      role,
    });
    const key = await t.key({ userId, scopes: [...ROLE_SCOPES[role]] });
    if (role === 'admin') adminKey = key;
    else [memberKey, memberId] = [key, userId];
  }
});
after(() => t.close());

const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

const setPolicy = (patch: Record<string, unknown>) => setApprovalPolicy(t, ownerKey, patch);

async function heldPost(body: Record<string, unknown> = {}) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key: memberKey,
    payload: { content: `race ${++n}`, platforms: ['x'], schedule_at: inHours(2), ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  const post = res.json().data.post;
  assert.equal(post.status, 'pending_approval');
  return { postId: post.id as string, itemId: post.approval.item_id as string };
}

const act = (itemId: string, body: Record<string, unknown>, key = adminKey) =>
  t.inject({ method: 'POST', url: `/v1/approvals/items/${itemId}/actions`, key, payload: body });
const getData = async (url: string) => (await t.inject({ url, key: ownerKey })).json().data;

/**
 * Runs `contenders` while another transaction holds the post's row, releasing it once all of them wait on a lock:
 * they then go in the order they queued, which is the interleaving a deadlock needs.
 */
async function whileLocked<T>(postId: string, contenders: Array<() => Promise<T>>): Promise<T[]> {
  const holder = await t.container.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM posts WHERE id = $1 FOR UPDATE', [postId]);
    const running: Array<Promise<T>> = [];
    for (const [index, start] of contenders.entries()) {
      running.push(start());
      await pollFor(`contender ${index + 1} waits on the post`, async () => {
        const { rows } = await t.container.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        return rows[0]!.n >= index + 1;
      });
    }
    await holder.query('COMMIT');
    return await Promise.all(running);
  } finally {
    holder.release();
  }
}

describe('races', () => {
  before(() => setPolicy({ mode: 'members', sources: ['api', 'mcp', 'automation'] }));

  test('two reviewers approve the same item at once: exactly one wins, the other is told it moved on', async () => {
    const { postId, itemId } = await heldPost();
    const [a, b] = await whileLocked(postId, [
      () => act(itemId, { action: 'approve', version: 1 }),
      () => act(itemId, { action: 'approve', version: 1 }, ownerKey),
    ]);
    assert.deepEqual([a!.statusCode, b!.statusCode].sort(), [200, 409], `${a!.body}\n${b!.body}`);
    const item = await getData(`/v1/approvals/items/${itemId}`);
    assert.deepEqual(
      item.history.map((h: { type: string }) => h.type),
      ['submit', 'approve'],
    );
    assert.equal((await getData(`/v1/posts/${postId}`)).status, 'scheduled');
  });

  test('an edit of the post queued before an approval wins; the approval then meets a 409, not a deadlock', async () => {
    const { postId, itemId } = await heldPost();
    const [edit, approve] = await whileLocked<LightMyRequestResponse>(postId, [
      () =>
        t.inject({
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          key: memberKey,
          payload: { content: 'edited in a race' },
        }),
      () => act(itemId, { action: 'approve', version: 1 }),
    ]);
    assert.equal(edit!.statusCode, 200, edit!.body);
    assert.equal(approve!.statusCode, 409, approve!.body);
    const post = await getData(`/v1/posts/${postId}`);
    assert.equal(post.status, 'pending_approval', 'the edited post waits for its own review');
    assert.notEqual(post.approval.item_id, itemId);
    assert.equal((await getData(`/v1/approvals/items/${itemId}`)).status, 'superseded');
  });

  test('the sweeper racing an approval: the approval queued first wins and the sweep leaves the item alone', async () => {
    await setPolicy({ expire_after: 3600 });
    const { postId, itemId } = await heldPost();
    await setPolicy({ expire_after: null });
    await t.container.pool.query("UPDATE approval_items SET expires_at = now() - interval '1 second' WHERE id = $1", [
      itemId,
    ]);
    const sweep = () =>
      expireDueApprovals({ pool: t.container.pool, clock: t.container.clock, approvals: t.container.approvals });
    const [approve, swept] = await whileLocked<LightMyRequestResponse | number>(postId, [
      () => act(itemId, { action: 'approve', version: 1 }),
      sweep,
    ]);
    assert.equal((approve as LightMyRequestResponse).statusCode, 200, (approve as LightMyRequestResponse).body);
    assert.equal(swept, 0);
    assert.equal((await getData(`/v1/approvals/items/${itemId}`)).status, 'approved');
    assert.equal((await getData(`/v1/posts/${postId}`)).status, 'scheduled');
  });
});

describe('no way around the gate', () => {
  test('an automation’s held post edited through the API is held again, though the policy does not review `api`', async () => {
    await setPolicy({ mode: 'members', sources: ['automation'] });
    const made = await withTransaction(t.container.pool, (tx) =>
      t.container.posts.create(
        runContext(t, tx, memberId, 'api'),
        { content: 'automation output', platforms: ['x'], schedule_at: inHours(3) },
        { source: { type: 'automation', id: 'auto_race' } },
      ),
    );
    const post = made.post as { id: string; status: string; created_via: string };
    assert.equal(post.status, 'pending_approval');
    assert.equal(post.created_via, 'automation');
    const edited = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key: memberKey,
      payload: { content: 'tweaked by a member' },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().data.status, 'pending_approval');
    const again = await getData(`/v1/approvals/items/${edited.json().data.approval.item_id}`);
    assert.equal(again.source.type, 'automation');
    // A member's own API post is not reviewed under this policy.
    const own = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: memberKey,
      payload: { content: 'plain api post', platforms: ['x'], schedule_at: inHours(3) },
    });
    assert.equal(own.json().data.post.status, 'scheduled');
    await setPolicy({ sources: ['api', 'mcp', 'automation'] });
  });

  test('edit_and_approve of a publish-now request with a new time schedules it; unscheduling in the patch is refused', async () => {
    const draft = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: memberKey,
      payload: { content: 'publish me', platforms: ['x'] },
    });
    const postId = draft.json().data.post.id;
    const held = await t.inject({ method: 'POST', url: `/v1/posts/${postId}/publish`, key: memberKey });
    const itemId = held.json().data.approval.item_id;
    const unschedule = await act(itemId, { action: 'edit_and_approve', version: 1, patch: { schedule_at: null } });
    assert.equal(unschedule.statusCode, 400, unschedule.body);
    assert.equal(unschedule.json().error.details[0].path, '/patch/schedule_at');
    const at = inHours(5);
    const done = await act(itemId, { action: 'edit_and_approve', version: 1, patch: { schedule_at: at } });
    assert.equal(done.statusCode, 200, done.body);
    const post = await getData(`/v1/posts/${postId}`);
    assert.equal(post.status, 'scheduled');
    assert.equal(post.schedule_at, at);
  });
});

describe('bad input answers in the envelope', () => {
  test('bad ids, cursors, times, actions and patches are 400 / 404 / 422, never 500', async () => {
    const { itemId } = await heldPost();
    const cases: Array<[string, Promise<LightMyRequestResponse>, number]> = [
      ['unknown item', act('apr_nope', { action: 'approve', version: 1 }), 404],
      ['NUL in an id', t.inject({ url: '/v1/approvals/items/%00bad', key: ownerKey }), 400],
      ['unknown batch', t.inject({ url: '/v1/approvals/batches/aprb_nope', key: ownerKey }), 404],
      [
        'unknown batch action',
        t.inject({
          method: 'POST',
          url: '/v1/approvals/batches/aprb_nope/actions',
          key: adminKey,
          payload: { action: 'approve_all', expected_item_ids: [itemId] },
        }),
        404,
      ],
      ['garbage cursor', t.inject({ url: '/v1/approvals/items?cursor=%%%garbage', key: ownerKey }), 400],
      ['garbage batch cursor', t.inject({ url: '/v1/approvals/batches?cursor=bm9wZQ', key: ownerKey }), 400],
      ['bad time', t.inject({ url: '/v1/approvals/items?created_from=yesterday', key: ownerKey }), 400],
      ['bad status', t.inject({ url: '/v1/approvals/items?status=maybe', key: ownerKey }), 400],
      ['unknown action', act(itemId, { action: 'bless', version: 1 }), 400],
      ['no version', act(itemId, { action: 'approve' }), 400],
      ['bad patch', act(itemId, { action: 'edit_and_approve', version: 1, patch: { content: 7 } }), 400],
      ['no patch', act(itemId, { action: 'edit_and_approve', version: 1 }), 400],
      ['past schedule_at', act(itemId, { action: 'approve', version: 1, schedule_at: '2001-01-01T00:00:00Z' }), 422],
      ['both times', act(itemId, { action: 'approve', version: 1, schedule_at: inHours(1), publish_now: true }), 400],
      ['comment without text', act(itemId, { action: 'comment', version: 1 }), 422],
      ['reject without reason', act(itemId, { action: 'reject', version: 1 }), 422],
      [
        'empty batch list',
        t.inject({
          method: 'POST',
          url: '/v1/approvals/batches/aprb_nope/actions',
          key: adminKey,
          payload: { action: 'reject_all', expected_item_ids: [] },
        }),
        400,
      ],
      [
        'bad policy',
        t.inject({
          method: 'PATCH',
          url: '/v1/approvals/policy',
          key: ownerKey,
          payload: { version: 0, mode: 'sometimes', approver_roles: ['member'] },
        }),
        400,
      ],
    ];
    for (const [label, pending, status] of cases) {
      const res = await pending;
      assert.equal(res.statusCode, status, `${label}: ${res.body}`);
      assert.equal(res.json().success, false, label);
      assert.ok(res.json().error.code.startsWith('PUBLIC_API_'), label);
    }
    assert.equal((await getData(`/v1/approvals/items/${itemId}`)).status, 'pending', 'nothing was decided');
  });
});
