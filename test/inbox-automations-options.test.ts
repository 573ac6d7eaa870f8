// Inbox automations' options, seen through the API (docs/inbox.md "Automations"): `intent` triggers, the three
// keyword match modes, `active_until`, the `reply_private`, `assign`, `label` and `webhook` actions (the webhook
// payload delivered, signed, to a subscribed endpoint; a private reply on a platform without one failing with its
// rule), the scope filters (`connection_ids`, `kinds`, `post_ids`, empty lists meaning all) and `languages`.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDeliveryRunner, type DeliveryRunner } from '../src/jobs/deliveries.ts';
import { sendQueuedResponse, type ReplySender } from '../src/features/inbox/replies.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { RECEIVER_HOST } from './helpers/delivery-harness.ts';
import { fakePlatform, ingest } from './helpers/inbox.ts';
import { startReceiver, verify } from './helpers/receiver.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies, read field by field in assertions
type Json = Record<string, any>;

let t: TestApp;
let key: string;
let platformSender: ReplySender;
let runner: DeliveryRunner;

before(async () => {
  t = await buildTestApp({
    env: { HERALD_OUTBOUND_ALLOWLIST: RECEIVER_HOST, HERALD_WORKER_POLL_INTERVAL_MS: '100' },
  });
  key = await t.key();
  platformSender = t.container.inboxSender.send;
  runner = await startDeliveryRunner(t.container);
});
after(async () => {
  await runner.stop();
  await t.close();
});
beforeEach(async () => {
  await t.container.pool.query('DELETE FROM inbox_automations WHERE workspace_id = $1', [t.owner.workspaceId]);
  fakePlatform(t);
});

const noDedup = { dedup_window_minutes: 0 };
const reply = (template = 'Hi {{author}}!') => [{ type: 'reply_public', template }];

async function create(body: Json) {
  const res = await t.inject({ method: 'POST', url: '/v1/inbox/automations', key, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as Json;
}

/** The [path, rule] of each detail of the 422 that creating `body` gets. */
async function refused(body: Json): Promise<string[][]> {
  const res = await t.inject({ method: 'POST', url: '/v1/inbox/automations', key, payload: body });
  assert.equal(res.statusCode, 422, res.body);
  return res.json().error.details.map((d: Json) => [d.path, d.rule]);
}

/** The automation's runs from `GET /v1/inbox/automations/{id}/runs`, by item id. */
async function runs(automationId: string): Promise<Map<string, Json>> {
  const res = await t.inject({ url: `/v1/inbox/automations/${automationId}/runs?limit=100`, key });
  assert.equal(res.statusCode, 200, res.body);
  return new Map(res.json().data.items.map((r: Json) => [r.item_id, r]));
}

/** `sent`, a skip reason, or `none` when the automation left no run for the item. */
async function verdicts(automationId: string, itemIds: string[]): Promise<string[]> {
  const all = await runs(automationId);
  return itemIds.map((id) => {
    const r = all.get(id);
    return r === undefined ? 'none' : (r.reason ?? r.outcome);
  });
}

async function item(id: string): Promise<Json> {
  const res = await t.inject({ url: `/v1/inbox/${id}`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

async function listed(query: string): Promise<string[]> {
  const res = await t.inject({ url: `/v1/inbox?${query}&limit=100`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.items.map((i: Json) => i.id);
}

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe('triggers', () => {
  test('intent: a question (mark or opening word) and a complaint match; other messages do not', async () => {
    const question = await create({
      name: 'questions',
      position: 1,
      trigger: { type: 'intent', intents: ['question'] },
      actions: reply(),
      guardrails: noDedup,
    });
    const complaint = await create({
      name: 'complaints',
      position: 2,
      trigger: { type: 'intent', intents: ['complaint'] },
      actions: reply('Sorry to hear that, {{author}}.'),
      guardrails: noDedup,
    });
    const items = ids(
      await ingest(t, [
        { text: 'Do you ship to Canada', authorId: 'i1' },
        { text: 'Is this vegan?', authorId: 'i2' },
        { text: 'The zipper is broken', authorId: 'i3' },
        { text: 'whatever works for you', authorId: 'i4' },
        { text: 'An unbroken streak of sunny days', authorId: 'i5' },
      ]),
    );
    assert.deepEqual(await verdicts(question.id, items), ['sent', 'sent', 'no_match', 'no_match', 'no_match']);
    // The first match owns the item: the complaint rule is never tried on the questions.
    assert.deepEqual(await verdicts(complaint.id, items), ['none', 'none', 'sent', 'no_match', 'no_match']);
    assert.equal((await item(items[2]!)).responses[0].text, 'Sorry to hear that, Ada.');
    assert.equal((await item(items[3]!)).responses.length, 0);
  });

  test('keyword match modes: exact, word and contains each take a different set of messages', async () => {
    const texts = ['Price!', 'What is the price please', 'Priceless work'];
    const expected: Record<string, string[]> = {
      exact: ['sent', 'no_match', 'no_match'],
      word: ['sent', 'sent', 'no_match'],
      contains: ['sent', 'sent', 'sent'],
    };
    for (const [match, want] of Object.entries(expected)) {
      const a = await create({
        name: match,
        trigger: { type: 'keyword', keywords: ['PRICE'], match },
        actions: reply('{{keyword}}: see the list'),
        guardrails: noDedup,
      });
      const items = ids(
        await ingest(
          t,
          texts.map((text, i) => ({ text, authorId: `${match}-${i}` })),
        ),
      );
      assert.deepEqual(await verdicts(a.id, items), want, `match: ${match}`);
      assert.equal((await item(items[0]!)).responses[0].text, 'PRICE: see the list');
      await t.inject({ method: 'DELETE', url: `/v1/inbox/automations/${a.id}`, key });
    }
  });
});

describe('active_until', () => {
  test('an automation past active_until is not tried: no run, and the catch-all answers instead', async () => {
    const expired = await create({
      name: 'expired',
      trigger: { type: 'keyword', keywords: ['price'] },
      actions: reply('expired rule'),
      active_until: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const catchAll = await create({ name: 'any', trigger: { type: 'any' }, actions: reply('catch-all') });
    const [priced] = await ingest(t, [{ text: 'What is the price?', authorId: 'e1' }]);
    assert.deepEqual(await verdicts(expired.id, [priced!.id]), ['none']);
    assert.deepEqual(await verdicts(catchAll.id, [priced!.id]), ['sent']);
    assert.deepEqual(
      (await item(priced!.id)).responses.map((r: Json) => r.text),
      ['catch-all'],
    );
    const got = (await t.inject({ url: `/v1/inbox/automations/${expired.id}`, key })).json().data;
    assert.equal(got.stats.runs, 0);
  });

  test('an automation answers until active_until, and stops once it is moved into the past', async () => {
    const a = await create({
      name: 'campaign',
      trigger: { type: 'any' },
      actions: reply(),
      guardrails: noDedup,
      active_until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const [before] = await ingest(t, [{ text: 'hello', authorId: 'e2' }]);
    const past = new Date(Date.now() - 1000).toISOString();
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/inbox/automations/${a.id}`,
      key,
      payload: { active_until: past },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.active_until, past);
    const [afterEnd] = await ingest(t, [{ text: 'hello again', authorId: 'e3' }]);
    assert.deepEqual(await verdicts(a.id, [before!.id, afterEnd!.id]), ['sent', 'none']);
  });
});

describe('actions', () => {
  test('assign and label apply at once, even while the reply waits for approval', async () => {
    const a = await create({
      name: 'refunds',
      trigger: { type: 'keyword', keywords: ['refund'] },
      actions: [
        ...reply('We are on it.'),
        { type: 'assign', assignee_id: t.owner.userId },
        { type: 'label', labels: ['billing', 'urgent'] },
      ],
      response_mode: 'approval',
      guardrails: noDedup,
    });
    const [refund, other] = await ingest(t, [
      { text: 'I want a refund', authorId: 'l1' },
      { text: 'Lovely colours', authorId: 'l2' },
    ]);
    assert.deepEqual(await verdicts(a.id, [refund!.id, other!.id]), ['queued_for_approval', 'no_match']);
    const got = await item(refund!.id);
    assert.equal(got.assignee_id, t.owner.userId);
    assert.deepEqual(got.labels, ['billing', 'urgent']);
    assert.equal(got.responses[0].status, 'pending_approval');
    assert.deepEqual(await listed('label=urgent'), [refund!.id]);
    assert.deepEqual(await listed(`assignee_id=${t.owner.userId}`), [refund!.id]);
    const untouched = await item(other!.id);
    assert.equal(untouched.assignee_id, null);
    assert.deepEqual(untouched.labels, []);
  });

  test('an unknown assignee is refused when the automation is saved', async () => {
    const actions = [{ type: 'assign', assignee_id: 'usr_nobody' }];
    assert.deepEqual(await refused({ name: 'x', trigger: { type: 'any' }, actions }), [
      ['/actions/0/assignee_id', 'assignee_not_member'],
    ]);
  });

  test('webhook: the filled template reaches a subscribed endpoint, signed, with every reply it made', async () => {
    const receiver = await startReceiver(RECEIVER_HOST);
    const hook = await t.inject({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      payload: { url: `${receiver.origin}/inbox`, events: ['inbox.automation.triggered'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const endpoint = hook.json().data as Json;
    try {
      const sent = fakePlatform(t);
      const a = await create({
        name: 'orders',
        trigger: { type: 'keyword', keywords: ['order'] },
        actions: [
          ...reply('Thanks {{author}}, we will look.'),
          { type: 'reply_private', template: 'Send us your {{keyword}} number, please.' },
          { type: 'webhook', template: 'New {{platform}} {{keyword}} question from {{author.username}}' },
        ],
        guardrails: noDedup,
      });
      const [msg] = await ingest(t, [{ text: 'Where is my order', platform: 'mastodon', authorId: 'w1' }]);
      const [request] = await receiver.waitForRequests(1, 'inbox.automation.triggered delivery');
      const payload = verify(endpoint.secret, request!) as Json;
      assert.equal(payload.type, 'inbox.automation.triggered');
      assert.equal(payload.data.automation_id, a.id);
      assert.equal(payload.data.item_id, msg!.id);
      assert.equal(payload.data.outcome, 'sent');
      assert.deepEqual(payload.data.actions, ['reply_public', 'reply_private', 'webhook']);
      assert.equal(payload.data.webhook_payload, 'New mastodon order question from user_w1');
      const responses = (await item(msg!.id)).responses as Json[];
      assert.deepEqual(responses.map((r) => [r.private, r.text]).sort(), [
        [false, 'Thanks Ada, we will look.'],
        [true, 'Send us your order number, please.'],
      ]);
      assert.deepEqual([...payload.data.response_ids].sort(), responses.map((r) => r.id).sort());
      // The private reply goes to the platform as private (Mastodon answers it with a direct status).
      const deps = { pool: t.container.pool, sendReply: t.container.inboxSender.send };
      for (const r of responses)
        assert.equal(
          await sendQueuedResponse(deps, { workspace_id: t.owner.workspaceId, response_id: r.id }, false),
          'sent',
        );
      assert.deepEqual(sent.map((s) => s.private).sort(), [false, true]);
    } finally {
      await t.inject({ method: 'DELETE', url: `/v1/webhooks/${endpoint.id}`, key });
      await receiver.close();
    }
  });

  test('reply_private on a platform without private replies fails as private_reply_unsupported', async () => {
    t.container.inboxSender.send = platformSender;
    const a = await create({
      name: 'dm',
      trigger: { type: 'any' },
      actions: [{ type: 'reply_private', template: 'Check your messages, {{author}}.' }],
      guardrails: noDedup,
    });
    const [comment] = await ingest(t, [{ text: 'How much is shipping?', platform: 'x', authorId: 'x1' }]);
    assert.deepEqual(await verdicts(a.id, [comment!.id]), ['sent']);
    const [queued] = (await item(comment!.id)).responses as Json[];
    assert.equal(queued!.private, true);
    assert.equal(queued!.status, 'queued');
    const deps = { pool: t.container.pool, sendReply: t.container.inboxSender.send };
    const payload = { workspace_id: t.owner.workspaceId, response_id: queued!.id };
    assert.equal(await sendQueuedResponse(deps, payload, false), 'failed', 'not retried: the rule will not change');
    const [failed] = (await item(comment!.id)).responses as Json[];
    assert.equal(failed!.status, 'failed');
    assert.equal(failed!.error.code, 'PLATFORM_REJECTED');
    assert.equal(failed!.error.rule, 'private_reply_unsupported');
    assert.equal((await item(comment!.id)).status, 'open');
  });
});

describe('scope', () => {
  test('connection_ids: items of other connections are not tried; an unknown connection is a 422', async () => {
    const a = await create({
      name: 'mastodon only',
      scope: { connection_ids: [t.connections.mastodon], kinds: [] },
      trigger: { type: 'any' },
      actions: reply(),
      guardrails: noDedup,
    });
    const items = ids(
      await ingest(t, [
        { text: 'hi', platform: 'mastodon', authorId: 's1' },
        { text: 'hi', platform: 'x', authorId: 's2' },
      ]),
    );
    assert.deepEqual(await verdicts(a.id, items), ['sent', 'none']);
    const scope = { connection_ids: ['conn_nope'], kinds: [] };
    assert.deepEqual(await refused({ name: 'x', scope, trigger: { type: 'any' }, actions: reply() }), [
      ['/scope/connection_ids/0', 'connection_not_found'],
    ]);
  });

  test('kinds: only items of the listed kinds are tried', async () => {
    const a = await create({
      name: 'dms',
      scope: { connection_ids: [], kinds: ['dm', 'mention'] },
      trigger: { type: 'any' },
      actions: reply(),
      guardrails: noDedup,
    });
    const items = ids(
      await ingest(t, [
        { text: 'hi', kind: 'dm', platform: 'mastodon', authorId: 'k1' },
        { text: 'hi', kind: 'mention', authorId: 'k2' },
        { text: 'hi', kind: 'comment', authorId: 'k3' },
      ]),
    );
    assert.deepEqual(await verdicts(a.id, items), ['sent', 'sent', 'none']);
  });

  test('post_ids: only items on those posts; an empty list means every item, as for the other lists', async () => {
    const onPost = await create({
      name: 'launch post',
      position: 1,
      scope: { connection_ids: [], kinds: [], post_ids: ['post_launch'] },
      trigger: { type: 'any' },
      actions: reply('launch'),
      guardrails: noDedup,
    });
    const everyPost = await create({
      name: 'all posts',
      position: 2,
      scope: { connection_ids: [], kinds: [], post_ids: [] },
      trigger: { type: 'any' },
      actions: reply('all'),
      guardrails: noDedup,
    });
    const items = ids(
      await ingest(t, [
        { text: 'hi', postId: 'post_launch', authorId: 'p1' },
        { text: 'hi', postId: 'post_other', authorId: 'p2' },
        { text: 'hi', postId: null, authorId: 'p3' },
      ]),
    );
    assert.deepEqual(await verdicts(onPost.id, items), ['sent', 'none', 'none']);
    assert.deepEqual(await verdicts(everyPost.id, items), ['none', 'sent', 'sent']);
  });
});

describe('conditions', () => {
  test('languages: a detected language among those listed matches; another or an undetermined one does not', async () => {
    const a = await create({
      name: 'french',
      trigger: { type: 'any' },
      conditions: { languages: ['fr'] },
      actions: reply('Bonjour {{author}} !'),
      guardrails: noDedup,
    });
    const items = ids(
      await ingest(t, [
        { text: 'Bonjour, je voudrais le prix pour la livraison', authorId: 'g1' },
        { text: 'What is the price for this and the shipping', authorId: 'g2' },
        { text: 'Merci!', authorId: 'g3' },
      ]),
    );
    assert.deepEqual(await verdicts(a.id, items), ['sent', 'no_match', 'no_match']);
    const all = await runs(a.id);
    assert.match(all.get(items[1]!)!.detail, /language en is not among fr/);
    assert.match(all.get(items[2]!)!.detail, /language undetermined/);
  });
});
