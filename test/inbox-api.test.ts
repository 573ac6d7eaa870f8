// The inbox API: list with filters and cursor, brand-limited keys, an item with its thread, triage, drafts (text,
// template, generated offline), and respond: sent, a platform rule as a 422, the same Idempotency-Key twice posting
// once, a missing key refused; another workspace's items are invisible.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { runContext } from './helpers/approvals.ts';
import { fakePlatform, seedItems } from './helpers/inbox.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

describe('GET /v1/inbox', () => {
  test('filters by status, kind, label and text; pages with a cursor', async () => {
    const base = Date.now() - 60_000;
    const items = await seedItems(t, [
      { text: 'What is the price?', receivedAt: new Date(base + 1000) },
      { text: 'Love it', kind: 'mention', receivedAt: new Date(base + 2000) },
      { text: 'Done already', status: 'resolved', receivedAt: new Date(base + 3000) },
    ]);
    const open = (await t.inject({ url: '/v1/inbox?status=open&limit=1', key })).json();
    assert.equal(open.data.items.length, 1);
    assert.equal(open.data.items[0].object, 'inbox_item');
    assert.equal(open.data.items[0].id, items[1]!.id);
    assert.equal(open.data.has_more, true);
    const next = (await t.inject({ url: `/v1/inbox?status=open&limit=1&cursor=${open.data.next_cursor}`, key })).json();
    assert.equal(next.data.items[0].id, items[0]!.id);
    const q = (await t.inject({ url: '/v1/inbox?q=PRICE', key })).json();
    assert.deepEqual(
      q.data.items.map((i: { id: string }) => i.id),
      [items[0]!.id],
    );
    const kind = (await t.inject({ url: '/v1/inbox?kind=mention', key })).json();
    assert.ok(kind.data.items.every((i: { kind: string }) => i.kind === 'mention'));
    const bad = await t.inject({ url: `/v1/inbox?status=resolved&cursor=${open.data.next_cursor}`, key });
    assert.equal(bad.statusCode, 400);
    const inverted = await t.inject({
      url: '/v1/inbox?received_from=2026-01-02T00:00:00Z&received_to=2026-01-01T00:00:00Z',
      key,
    });
    assert.equal(inverted.statusCode, 422, inverted.body);
    assert.equal(inverted.json().error.details[0].rule, 'window_order');
  });

  test('a key limited to another brand sees nothing; another workspace sees nothing', async () => {
    const [item] = await seedItems(t, [{ text: 'brand scoped' }]);
    const other = await t.workspace('test');
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const list = (await t.inject({ url: '/v1/inbox', key: otherKey })).json();
    assert.ok(!list.data.items.some((i: { id: string }) => i.id === item!.id));
    assert.equal((await t.inject({ url: `/v1/inbox/${item!.id}`, key: otherKey })).statusCode, 404);
    const limited = await t.key({ brandIds: [other.brandId], workspaceIds: [t.owner.workspaceId, other.workspaceId] });
    const res = await t.inject({
      url: `/v1/inbox/${item!.id}`,
      key: limited,
      headers: { 'x-herald-workspace-id': t.owner.workspaceId },
    });
    assert.ok([403, 404].includes(res.statusCode), res.body);
  });
});

describe('an item', () => {
  test('comes with its thread; PATCH changes status, assignee and labels', async () => {
    const [root, reply] = await seedItems(t, [
      { text: 'root', threadId: 'th-1' },
      { text: 'reply in thread', threadId: 'th-1', kind: 'reply' },
    ]);
    const got = (await t.inject({ url: `/v1/inbox/${reply!.id}`, key })).json().data;
    assert.deepEqual(
      got.thread.map((i: { id: string }) => i.id),
      [root!.id, reply!.id],
    );
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/inbox/${root!.id}`,
      key,
      payload: { status: 'resolved', assignee_id: t.owner.userId, labels: ['vip', 'billing'] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.status, 'resolved');
    assert.deepEqual(patched.json().data.labels, ['billing', 'vip']);
    const stranger = await t.inject({
      method: 'PATCH',
      url: `/v1/inbox/${root!.id}`,
      key,
      payload: { assignee_id: 'usr_nobody' },
    });
    assert.equal(stranger.statusCode, 422);
    assert.equal(stranger.json().error.details[0].rule, 'assignee_not_member');
  });

  test('drafts: text, template (unknown placeholder refused), generated offline', async () => {
    const [item] = await seedItems(t, [{ text: 'Do you ship to Canada?' }]);
    const url = `/v1/inbox/${item!.id}/draft`;
    const text = await t.inject({ method: 'POST', url, key, payload: { text: 'Yes we do.' } });
    assert.equal(text.json().data.draft.text, 'Yes we do.');
    const tpl = await t.inject({ method: 'POST', url, key, payload: { template: 'Hi {{author}}!' } });
    assert.equal(tpl.json().data.draft.text, 'Hi Ada!');
    const unknown = await t.inject({ method: 'POST', url, key, payload: { template: 'Hi {{nope}}' } });
    assert.equal(unknown.statusCode, 422);
    assert.equal(unknown.json().error.details[0].rule, 'template_placeholder_unknown');
    const gen = await t.inject({ method: 'POST', url, key, payload: { generate: true } });
    assert.equal(gen.statusCode, 200, gen.body);
    assert.equal(gen.json().data.draft.source, 'generated');
    assert.match(gen.json().data.draft.text, /Ada/);
    const both = await t.inject({ method: 'POST', url, key, payload: { text: 'a', generate: true } });
    assert.equal(both.statusCode, 400);
  });
});

describe('POST /v1/inbox/{id}/respond', () => {
  test('the same Idempotency-Key twice posts once; the thread is paused for automations', async () => {
    const sent = fakePlatform(t);
    const [item] = await seedItems(t, [{ text: 'Hello?' }]);
    const req = {
      method: 'POST' as const,
      url: `/v1/inbox/${item!.id}/respond`,
      key,
      idem: 'reply-1',
      payload: { text: 'Hi!' },
    };
    const first = await t.inject(req);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().data.status, 'sent');
    assert.ok(first.json().data.platform_reply_id);
    const second = await t.inject(req);
    assert.equal(second.json().data.platform_reply_id, first.json().data.platform_reply_id);
    assert.equal(sent.length, 1);
    const got = (await t.inject({ url: `/v1/inbox/${item!.id}`, key })).json().data;
    assert.equal(got.status, 'replied');
    assert.equal(got.automation_paused, true);
    assert.equal(got.responses.length, 1);
  });

  test('use_draft sends the draft; none stored is a 422', async () => {
    const sent = fakePlatform(t);
    const [item] = await seedItems(t, [{}]);
    const none = await t.inject({
      method: 'POST',
      url: `/v1/inbox/${item!.id}/respond`,
      key,
      payload: { use_draft: true },
    });
    assert.equal(none.statusCode, 422);
    assert.equal(none.json().error.details[0].rule, 'draft_missing');
    await t.inject({ method: 'POST', url: `/v1/inbox/${item!.id}/draft`, key, payload: { text: 'From the draft' } });
    const res = await t.inject({
      method: 'POST',
      url: `/v1/inbox/${item!.id}/respond`,
      key,
      payload: { use_draft: true },
    });
    assert.equal(res.json().data.status, 'sent');
    assert.equal(sent.at(-1)!.text, 'From the draft');
  });

  test('a platform rule is a 422 naming it; a retryable fault answers failed', async () => {
    fakePlatform(t, () => ({
      ok: false,
      code: 'PLATFORM_REPLY_WINDOW_CLOSED',
      rule: 'reply_window_closed',
      message: 'The 7-day window to answer this message has closed.',
      retryable: false,
    }));
    const [item] = await seedItems(t, [{ kind: 'dm' }]);
    const res = await t.inject({
      method: 'POST',
      url: `/v1/inbox/${item!.id}/respond`,
      key,
      payload: { text: 'late' },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.details[0].rule, 'reply_window_closed');
    fakePlatform(t, () => ({ ok: false, code: 'PLATFORM_RATE_LIMITED', message: 'Slow down.', retryable: true }));
    const failed = await t.inject({
      method: 'POST',
      url: `/v1/inbox/${item!.id}/respond`,
      key,
      payload: { text: 'again' },
    });
    assert.equal(failed.statusCode, 200);
    assert.equal(failed.json().data.status, 'failed');
    assert.equal(failed.json().data.error.code, 'PLATFORM_RATE_LIMITED');
  });

  test('two racing calls with the same key post once (only the one that wrote the key calls the platform)', async () => {
    const sent = fakePlatform(t);
    // A platform that takes a while: the second call finds the reply still `sending` and waits for its answer.
    const send = t.container.inboxSender.send;
    t.container.inboxSender.send = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return send(...args);
    };
    const [item] = await seedItems(t, [{}]);
    const ctx = runContext(t, t.container.pool, t.owner.userId, 'api');
    const pool = t.container.pool;
    const both = await Promise.all([
      t.container.inbox.respond(ctx, pool, item!.id, { text: 'Once' }, 'race-key'),
      t.container.inbox.respond(ctx, pool, item!.id, { text: 'Once' }, 'race-key'),
    ]);
    assert.equal(sent.length, 1);
    assert.equal(both[0].response.id, both[1].response.id);
    assert.deepEqual(
      both.map((r) => r.status),
      ['sent', 'sent'],
      'the second call answers the first one’s outcome, not an unknown one',
    );
  });

  test('without an Idempotency-Key: 400', async () => {
    const [item] = await seedItems(t, [{}]);
    const res = await t.inject({
      method: 'POST',
      url: `/v1/inbox/${item!.id}/respond`,
      key,
      idem: false,
      payload: { text: 'x' },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
  });
});
