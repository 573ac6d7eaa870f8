// Approvals (docs/approvals.md) through the API: the policy and who may change it, the gate on every way a post is
// scheduled or published (REST and MCP), decisions with their versions, rejection back to draft with the reason on
// the post, the past-schedule rule, self-approval, batches whose items change mid-review, and the history.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createUser } from '../src/features/users/users.service.ts';
import { ROLE_SCOPES } from '../src/features/workspaces/roles.ts';
import type { MemberRole } from '../src/features/workspaces/workspaces.repo.ts';
import { withTransaction } from '../src/db/pool.ts';
import { openBatch } from '../src/features/approvals/approvals.submit.ts';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';
import { runContext } from './helpers/approvals.ts';

let t: ListeningApp;
let ownerKey: string;
let people: Record<MemberRole, { userId: string; key: string }>;
let n = 0;

async function person(role: MemberRole) {
  const { userId } = await createUser(t.container.pool, {
    email: `${role}-${++n}@approvals.test`,
    workspaceId: t.owner.workspaceId,
    role,
  });
  return { userId, key: await t.key({ userId, scopes: [...ROLE_SCOPES[role]] }) };
}

before(async () => {
  t = await listenTestApp({});
  ownerKey = await t.key();
  people = { owner: await person('owner'), admin: await person('admin'), member: await person('member') };
});
after(() => t.close());

const inHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function policy(patch: Record<string, unknown>, key = ownerKey) {
  const current = (await t.inject({ url: '/v1/approvals/policy', key: ownerKey })).json().data;
  return t.inject({
    method: 'PATCH',
    url: '/v1/approvals/policy',
    key,
    payload: { version: current.version, ...patch },
  });
}

async function setPolicy(patch: Record<string, unknown>) {
  const res = await policy(patch);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

async function createPost(key: string, body: Record<string, unknown> = {}) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `approval ${++n}`, platforms: ['x'], schedule_at: inHour(), ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post as { id: string; status: string; approval: { item_id: string; status: string } | null };
}

async function item(id: string) {
  const res = await t.inject({ url: `/v1/approvals/items/${id}`, key: ownerKey });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

async function act(id: string, body: Record<string, unknown>, key = people.admin.key) {
  return t.inject({ method: 'POST', url: `/v1/approvals/items/${id}/actions`, key, payload: body });
}

describe('policy', () => {
  test('reads the defaults before any change, and only owners and admins change it, with the version they read', async () => {
    const first = (await t.inject({ url: '/v1/approvals/policy', key: people.member.key })).json().data;
    assert.equal(first.mode, 'off');
    assert.equal(first.allow_self_approval, false);
    assert.equal(first.require_reject_reason, true);
    const byMember = await policy({ mode: 'members' }, people.member.key);
    assert.equal(byMember.statusCode, 403);
    assert.equal(byMember.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    const stale = await t.inject({
      method: 'PATCH',
      url: '/v1/approvals/policy',
      key: people.admin.key,
      payload: { version: first.version + 5, mode: 'members' },
    });
    assert.equal(stale.statusCode, 409);
    assert.equal(stale.json().error.code, 'PUBLIC_API_VERSION_CONFLICT');
    const unknownBrand = await policy({ brand_overrides: { brand_nope: { mode: 'everyone' } } });
    assert.equal(unknownBrand.statusCode, 422);
    assert.equal(unknownBrand.json().error.details[0].rule, 'unknown_brand');
    const changed = await setPolicy({ mode: 'off', expire_after: 3600 });
    assert.equal(changed.version, first.version + 1);
    assert.equal(changed.expire_after, 3600);
  });
});

describe('the gate', () => {
  test('members mode holds a member’s scheduled post, lets owners and admins through, and leaves drafts alone', async () => {
    await setPolicy({ mode: 'members', expire_after: null, brand_overrides: {} });
    const held = await createPost(people.member.key);
    assert.equal(held.status, 'pending_approval');
    assert.equal(held.approval?.status, 'pending');
    const got = (await t.inject({ url: `/v1/posts/${held.id}`, key: ownerKey })).json().data;
    assert.deepEqual(
      got.targets.map((x: { status: string }) => x.status),
      ['pending'],
    );
    assert.equal((await createPost(people.admin.key)).status, 'scheduled');
    assert.equal((await createPost(people.owner.key)).status, 'scheduled');
    assert.equal((await createPost(people.member.key, { schedule_at: undefined })).status, 'draft');
    const pending = await item(held.approval!.item_id);
    assert.equal(pending.subject.id, held.id);
    assert.equal(pending.source.type, 'api');
    assert.equal(pending.proposed_action.type, 'schedule');
    assert.deepEqual(
      pending.history.map((h: { type: string }) => h.type),
      ['submit'],
    );
  });

  test('everyone mode holds owners too; a source outside the list is not held; a brand override wins', async () => {
    await setPolicy({ mode: 'everyone', sources: ['mcp'] });
    assert.equal((await createPost(people.owner.key)).status, 'scheduled');
    await setPolicy({ sources: ['api', 'mcp'] });
    assert.equal((await createPost(people.owner.key)).status, 'pending_approval');
    await setPolicy({ brand_overrides: { [t.owner.brandId]: { mode: 'off' } } });
    assert.equal((await createPost(people.owner.key)).status, 'scheduled');
    await setPolicy({ mode: 'members', sources: ['api', 'mcp'], brand_overrides: { [t.owner.brandId]: null } });
  });

  test('publish-now and a reschedule of a draft go through the gate too', async () => {
    const draft = await createPost(people.member.key, { schedule_at: undefined });
    const published = await t.inject({
      method: 'POST',
      url: `/v1/posts/${draft.id}/publish`,
      key: people.member.key,
    });
    assert.equal(published.statusCode, 200, published.body);
    assert.equal(published.json().data.status, 'pending_approval');
    const request = await item(published.json().data.approval.item_id);
    assert.equal(request.proposed_action.type, 'publish_now');

    const other = await createPost(people.member.key, { schedule_at: undefined });
    const rescheduled = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${other.id}`,
      key: people.member.key,
      payload: { schedule_at: inHour() },
    });
    assert.equal(rescheduled.json().data.status, 'pending_approval');
  });

  test('MCP create_post is held like REST, and an MCP source can be left out of review', async () => {
    const c = new Client({ name: 'approvals-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${people.member.key}` } },
      }),
    );
    const made = await c.callTool({
      name: 'create_post',
      arguments: { content: 'from mcp', platforms: ['x'], schedule_at: inHour() },
    });
    const post = (
      made.structuredContent as { post: { status: string; created_via: string; approval: { item_id: string } } }
    ).post;
    assert.equal(post.status, 'pending_approval');
    assert.equal(post.created_via, 'mcp');
    assert.equal((await item(post.approval.item_id)).source.type, 'mcp');
    await setPolicy({ sources: ['api'] });
    const free = await c.callTool({
      name: 'create_post',
      arguments: { content: 'from mcp, not reviewed', platforms: ['x'], schedule_at: inHour() },
    });
    assert.equal((free.structuredContent as { post: { status: string } }).post.status, 'scheduled');
    await setPolicy({ sources: ['api', 'mcp'] });
    const tools = (await c.listTools()).tools.map((x) => x.name);
    assert.ok(tools.includes('list_approvals') && tools.includes('decide_approval'));
    await c.close();
  });
});

describe('decisions', () => {
  test('approve keeps the original schedule; a stale version is a 409; a decided item is a 409', async () => {
    const at = new Date(Date.now() + 7_200_000).toISOString();
    const post = await createPost(people.member.key, { schedule_at: at });
    const pending = await item(post.approval!.item_id);
    const stale = await act(pending.id, { action: 'approve', version: pending.version + 1 });
    assert.equal(stale.statusCode, 409);
    assert.equal(stale.json().error.code, 'PUBLIC_API_VERSION_CONFLICT');
    const approved = await act(pending.id, { action: 'approve', version: pending.version });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(approved.json().data.status, 'approved');
    const after = (await t.inject({ url: `/v1/posts/${post.id}`, key: ownerKey })).json().data;
    assert.equal(after.status, 'scheduled');
    assert.equal(after.schedule_at, at);
    assert.equal(after.approval.status, 'approved');
    assert.equal(after.targets[0].status, 'scheduled');
    const again = await act(pending.id, { action: 'approve', version: pending.version });
    assert.equal(again.statusCode, 409);
    const twice = await act(pending.id, { action: 'reject', version: pending.version + 1, reason: 'late' });
    assert.equal(twice.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
  });

  test('reject needs a reason, then returns the post to draft with the reason on it', async () => {
    const post = await createPost(people.member.key);
    const pending = await item(post.approval!.item_id);
    const bare = await act(pending.id, { action: 'reject', version: pending.version });
    assert.equal(bare.statusCode, 422);
    assert.equal(bare.json().error.details[0].rule, 'reason_required');
    const rejected = await act(pending.id, { action: 'reject', version: pending.version, reason: 'Wrong date.' });
    assert.equal(rejected.statusCode, 200, rejected.body);
    const after = (await t.inject({ url: `/v1/posts/${post.id}`, key: ownerKey })).json().data;
    assert.equal(after.status, 'draft');
    assert.equal(after.approval.status, 'rejected');
    assert.equal(after.approval.reason, 'Wrong date.');
    const events = (await t.inject({ url: '/v1/events?type=approval.rejected&limit=5', key: ownerKey })).json().data;
    assert.ok(events.items.some((e: { data: { id: string } }) => e.data.id === pending.id));
  });

  test('members cannot decide; self-approval is refused unless the policy allows it', async () => {
    const mine = await createPost(people.member.key);
    const pending = await item(mine.approval!.item_id);
    const byMember = await act(pending.id, { action: 'approve', version: 1 }, people.member.key);
    assert.equal(byMember.statusCode, 403);
    assert.equal(byMember.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');

    await setPolicy({ mode: 'everyone' });
    const adminsOwn = await createPost(people.admin.key);
    const own = await item(adminsOwn.approval!.item_id);
    const self = await act(own.id, { action: 'approve', version: own.version }, people.admin.key);
    assert.equal(self.statusCode, 403);
    assert.equal(self.json().error.code, 'PUBLIC_API_APPROVAL_FORBIDDEN');
    assert.equal(self.json().error.details[0].rule, 'self_approval');
    await setPolicy({ allow_self_approval: true });
    assert.equal((await act(own.id, { action: 'approve', version: own.version }, people.admin.key)).statusCode, 200);
    await setPolicy({ allow_self_approval: false, approver_roles: ['owner'] });
    const byAdmin = await act(pending.id, { action: 'approve', version: pending.version }, people.admin.key);
    assert.equal(byAdmin.json().error.details[0].rule, 'role_not_approver');
    await setPolicy({ mode: 'members', approver_roles: ['owner', 'admin'] });
  });

  test('a passed schedule needs schedule_at or publish_now (422 naming the rule)', async () => {
    const post = await createPost(people.member.key);
    const pending = await item(post.approval!.item_id);
    // The request was for a time now gone: move the post's clock back in the database, as waiting would.
    await t.container.pool.query("UPDATE posts SET schedule_at = now() - interval '1 hour' WHERE id = $1", [post.id]);
    const refused = await act(pending.id, { action: 'approve', version: pending.version });
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.details[0].rule, 'approval_schedule_passed');
    const later = new Date(Date.now() + 10_800_000).toISOString();
    const ok = await act(pending.id, { action: 'approve', version: pending.version, schedule_at: later });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal((await t.inject({ url: `/v1/posts/${post.id}`, key: ownerKey })).json().data.schedule_at, later);
  });

  test('editing a held post supersedes its item and opens a new one; edit_and_approve applies the patch', async () => {
    const post = await createPost(people.member.key);
    const first = await item(post.approval!.item_id);
    const edited = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key: people.member.key,
      payload: { content: 'edited while pending' },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    const second = edited.json().data.approval.item_id;
    assert.notEqual(second, first.id);
    const old = await item(first.id);
    assert.equal(old.status, 'superseded');
    assert.deepEqual(
      old.history.map((h: { type: string }) => h.type),
      ['submit', 'supersede'],
    );
    const stale = await act(first.id, { action: 'approve', version: first.version });
    assert.equal(stale.statusCode, 409);

    const fresh = await item(second);
    const done = await act(fresh.id, {
      action: 'edit_and_approve',
      version: fresh.version,
      patch: { content: 'fixed by the reviewer' },
    });
    assert.equal(done.statusCode, 200, done.body);
    const after = (await t.inject({ url: `/v1/posts/${post.id}`, key: ownerKey })).json().data;
    assert.equal(after.content, 'fixed by the reviewer');
    assert.equal(after.status, 'scheduled');
    assert.deepEqual(
      (await item(second)).history.map((h: { type: string }) => h.type),
      ['submit', 'edit', 'approve'],
    );
  });

  test('unscheduling a held post makes it a draft and supersedes its item, without a new one', async () => {
    const post = await createPost(people.member.key);
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key: people.member.key,
      payload: { schedule_at: null },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'draft');
    assert.equal(res.json().data.approval.status, 'superseded');
    assert.equal((await item(post.approval!.item_id)).status, 'superseded');
  });

  test('comments are added to the history; cancelling a held post cancels its item', async () => {
    const post = await createPost(people.member.key);
    const pending = await item(post.approval!.item_id);
    const commented = await act(pending.id, { action: 'comment', version: pending.version, reason: 'Looks fine?' });
    assert.equal(commented.statusCode, 200, commented.body);
    const cancelled = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key: people.member.key });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const settled = await item(pending.id);
    assert.equal(settled.status, 'cancelled');
    assert.deepEqual(
      settled.history.map((h: { type: string }) => h.type),
      ['submit', 'comment', 'cancel'],
    );
  });

  test('the list filters by status, source and platform, and pages with a cursor', async () => {
    for (let i = 0; i < 3; i++) await createPost(people.member.key, { platforms: ['bluesky'] });
    const page = await t.inject({
      url: '/v1/approvals/items?status=pending&platform=bluesky&source=api&limit=2',
      key: ownerKey,
    });
    assert.equal(page.statusCode, 200, page.body);
    const first = page.json().data;
    assert.equal(first.items.length, 2);
    assert.ok(first.has_more);
    const next = await t.inject({
      url: `/v1/approvals/items?status=pending&platform=bluesky&source=api&limit=2&cursor=${first.next_cursor}`,
      key: ownerKey,
    });
    const ids = [...first.items, ...next.json().data.items].map((i: { id: string }) => i.id);
    assert.equal(new Set(ids).size, ids.length);
    const wrong = await t.inject({
      url: `/v1/approvals/items?status=approved&cursor=${first.next_cursor}`,
      key: ownerKey,
    });
    assert.equal(wrong.statusCode, 400);
  });
});

describe('batches', () => {
  test('approve_all decides only the expected items: one superseded mid-review and one added after are left alone', async () => {
    const { pool } = t.container;
    await setPolicy({ sources: ['api', 'mcp', 'automation'] });
    const batch = await withTransaction(pool, (tx) =>
      openBatch(runContext(t, tx, people.member.userId, 'automation'), { type: 'automation', id: 'auto_test' }),
    );
    const posts: Array<{ id: string; approval: { item_id: string } }> = [];
    const runOutput = async (i: number) => {
      const made = await withTransaction(pool, (tx) =>
        t.container.posts.create(
          runContext(t, tx, people.member.userId, 'automation'),
          { content: `run output ${i}`, platforms: ['x'], schedule_at: inHour() },
          { source: { type: 'automation', id: 'auto_test' }, batchId: batch.id },
        ),
      );
      posts.push(made.post as { id: string; approval: { item_id: string } });
    };
    for (let i = 0; i < 3; i++) await runOutput(i);
    const loaded = (await t.inject({ url: `/v1/approvals/items?batch_id=${batch.id}`, key: ownerKey })).json().data;
    const expected = loaded.items.map((i: { id: string }) => i.id);
    assert.equal(expected.length, 3);
    // Mid-review: the run adds one more item, and the member edits one post (its item is superseded by a new one outside the batch).
    const edited = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${posts[0]!.id}`,
      key: people.member.key,
      payload: { content: 'changed after the reviewer loaded the batch' },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    await runOutput(3);
    const res = await t.inject({
      method: 'POST',
      url: `/v1/approvals/batches/${batch.id}/actions`,
      key: people.admin.key,
      payload: { action: 'approve_all', expected_item_ids: expected },
    });
    assert.equal(res.statusCode, 200, res.body);
    const results = res.json().data.results as Array<{
      item_id: string;
      outcome: string;
      error: { code: string } | null;
    }>;
    const byId = new Map(results.map((r) => [r.item_id, r]));
    assert.equal(byId.get(posts[0]!.approval.item_id)!.outcome, 'skipped');
    assert.equal(byId.get(posts[0]!.approval.item_id)!.error!.code, 'PUBLIC_API_STATE_CONFLICT');
    assert.equal(byId.get(posts[1]!.approval.item_id)!.outcome, 'approved');
    assert.equal(byId.get(posts[2]!.approval.item_id)!.outcome, 'approved');
    const edit = (await t.inject({ url: `/v1/posts/${posts[0]!.id}`, key: ownerKey })).json().data;
    assert.equal(edit.status, 'pending_approval', 'the edited post still waits for its own review');
    const counts = (await t.inject({ url: `/v1/approvals/batches/${batch.id}`, key: ownerKey })).json().data;
    assert.equal(results.length, 3, 'one result per expected item');
    assert.equal((await item(posts[3]!.approval.item_id)).status, 'pending', 'the item added later is untouched');
    assert.equal(counts.item_counts.approved, 2);
    assert.equal(counts.item_counts.pending, 1);
    assert.equal(counts.item_counts.superseded, 1);
    const listed = (await t.inject({ url: '/v1/approvals/batches', key: ownerKey })).json().data;
    assert.ok(listed.items.some((b: { id: string }) => b.id === batch.id));
  });
});
