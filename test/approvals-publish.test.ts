// Approvals end to end with a worker and the sandbox: an approved post goes out at the time it was asked for, and
// the expiry sweeper settles items nobody decided (back to draft, or cancelled, as the policy says).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { createUser } from '../src/features/users/users.service.ts';
import { ROLE_SCOPES } from '../src/features/workspaces/roles.ts';
import { expireDueApprovals } from '../src/features/approvals/approvals.sweeper.ts';
import { taskList } from '../src/jobs/worker.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';
import { setApprovalPolicy } from './helpers/approvals.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let ownerKey: string;
let memberKey: string;
let adminKey: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  ownerKey = await t.key();
  const member = await createUser(t.container.pool, {
    email: 'member@approvals-publish.test',
    workspaceId: t.owner.workspaceId,
    role: 'member',
  });
  memberKey = await t.key({ userId: member.userId, scopes: [...ROLE_SCOPES.member] });
  const admin = await createUser(t.container.pool, {
    email: 'admin@approvals-publish.test',
    workspaceId: t.owner.workspaceId,
    role: 'admin',
  });
  adminKey = await t.key({ userId: admin.userId, scopes: [...ROLE_SCOPES.admin] });
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { settled, held } = publishingRequests(() => ({ t, key: ownerKey, sandbox }));

const setPolicy = (patch: Record<string, unknown>) => setApprovalPolicy(t, ownerKey, patch);

async function heldPost(content: string, scheduleAt: string) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key: memberKey,
    payload: { content, platforms: ['x'], schedule_at: scheduleAt },
  });
  assert.equal(res.statusCode, 201, res.body);
  const post = res.json().data.post;
  assert.equal(post.status, 'pending_approval');
  const item = (await t.inject({ url: `/v1/approvals/items/${post.approval.item_id}`, key: ownerKey })).json().data;
  return { post, item };
}

describe('approved posts publish', () => {
  test('an approved post is published on the sandbox at its original time, not at approval', async () => {
    await setPolicy({ mode: 'members' });
    const at = new Date(Date.now() + 3_000);
    const { post, item } = await heldPost('approved, then out on time', at.toISOString());
    const approved = await t.inject({
      method: 'POST',
      url: `/v1/approvals/items/${item.id}/actions`,
      key: adminKey,
      payload: { action: 'approve', version: item.version },
    });
    assert.equal(approved.statusCode, 200, approved.body);
    const done = await settled(post.id, 'approved post published');
    assert.equal(done.status, 'published');
    assert.ok(new Date(done.published_at!).getTime() >= at.getTime(), 'not before the time asked for');
    assert.equal((await held('x', 'approved, then out on time')).length, 1);
  });
});

describe('expiry', () => {
  test('the worker runs the sweep on its crontab', () => {
    assert.equal(typeof taskList(t.container).expire_approvals, 'function');
  });

  test('the sweeper expires an undecided item: to_draft returns the post to draft, cancel cancels it', async () => {
    await setPolicy({ mode: 'members', expire_after: 3600, on_expire: 'to_draft' });
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const toDraft = await heldPost('expires to draft', later);
    assert.ok(toDraft.item.expires_at);
    await setPolicy({ on_expire: 'cancel' });
    const toCancel = await heldPost('expires to cancelled', later);
    const waiting = await heldPost('not due yet', later);
    // Their hour has passed (the items were asked for with the policy's expiry fixed on them).
    await t.container.pool.query(
      "UPDATE approval_items SET expires_at = now() - interval '1 second' WHERE id = ANY($1::text[])",
      [[toDraft.item.id, toCancel.item.id]],
    );
    const expired = await expireDueApprovals({
      pool: t.container.pool,
      clock: t.container.clock,
      approvals: t.container.approvals,
    });
    assert.ok(expired >= 2);
    const get = async (path: string) => (await t.inject({ url: path, key: ownerKey })).json().data;
    assert.equal((await get(`/v1/approvals/items/${toDraft.item.id}`)).status, 'expired');
    const draft = await get(`/v1/posts/${toDraft.post.id}`);
    assert.equal(draft.status, 'draft');
    assert.equal(draft.approval.status, 'expired');
    assert.equal((await get(`/v1/posts/${toCancel.post.id}`)).status, 'cancelled');
    assert.equal((await get(`/v1/approvals/items/${waiting.item.id}`)).status, 'pending');
    const history = (await get(`/v1/approvals/items/${toCancel.item.id}`)).history;
    assert.deepEqual(
      history.map((h: { type: string; actor_id: string | null }) => [h.type, h.actor_id]),
      [
        ['submit', toCancel.item.requested_by],
        ['expire', null],
      ],
    );
    const events = await get('/v1/events?type=approval.expired&limit=10');
    assert.ok(events.items.some((e: { data: { id: string } }) => e.data.id === toDraft.item.id));
    assert.equal(
      await expireDueApprovals({ pool: t.container.pool, clock: t.container.clock, approvals: t.container.approvals }),
      0,
    );
    await setPolicy({ mode: 'off', expire_after: null });
  });
});
