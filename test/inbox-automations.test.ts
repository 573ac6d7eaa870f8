// Inbox automations: creation rules (unknown placeholders), evaluation order (first match wins, `any` last), every
// guardrail's skip reason (dedup window per author, daily cap, blocked term, closed window, human take-over),
// conditions (first interaction, language), quiet hours holding a reply, approval mode making an `inbox_reply`
// approval item that sends on approval and is discarded on rejection, and the send job posting once.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sendQueuedResponse } from '../src/features/inbox/replies.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { fakePlatform, ingest, runsOf } from './helpers/inbox.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());
beforeEach(async () => {
  await t.container.pool.query('DELETE FROM inbox_automations WHERE workspace_id = $1', [t.owner.workspaceId]);
});

async function create(body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/v1/inbox/automations', key, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string };
}

const reply = (template = 'Hi {{author}}, see our prices.') => [{ type: 'reply_public', template }];

async function responses(itemId: string) {
  const { rows } = await t.container.pool.query<{ id: string; status: string; text: string }>(
    'SELECT id, status, text FROM inbox_responses WHERE item_id = $1',
    [itemId],
  );
  return rows;
}

describe('creating', () => {
  test('unknown placeholders, missing keywords and bad quiet hours are 422s naming the rule', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/inbox/automations',
      key,
      payload: {
        name: 'x',
        trigger: { type: 'keyword' },
        actions: reply('Hi {{customer}}'),
        guardrails: { quiet_hours: { start: '25:00', end: '07:00', timezone: 'Mars/Base' } },
      },
    });
    assert.equal(res.statusCode, 422);
    const rules = res
      .json()
      .error.details.map((d: { rule: string }) => d.rule)
      .sort();
    assert.deepEqual(rules, ['keywords_required', 'quiet_hours_invalid', 'template_placeholder_unknown']);
  });

  test('CRUD and stats', async () => {
    const a = await create({ name: 'A', trigger: { type: 'any' }, actions: reply() });
    const got = (await t.inject({ url: `/v1/inbox/automations/${a.id}`, key })).json().data;
    assert.equal(got.guardrails.dedup_window_minutes, 10080);
    assert.equal(got.stats.runs, 0);
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/inbox/automations/${a.id}`,
      key,
      payload: { enabled: false },
    });
    assert.equal(patched.json().data.enabled, false);
    const list = (await t.inject({ url: '/v1/inbox/automations', key })).json().data;
    assert.equal(list.items.length, 1);
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/inbox/automations/${a.id}`, key })).statusCode, 200);
    assert.equal((await t.inject({ url: `/v1/inbox/automations/${a.id}`, key })).statusCode, 404);
  });
});

describe('evaluation', () => {
  test('first match wins; `any` only when nothing else matched; no_match rows for those passed over', async () => {
    fakePlatform(t);
    const catchAll = await create({ name: 'any', position: 1, trigger: { type: 'any' }, actions: reply('Thanks!') });
    const price = await create({
      name: 'price',
      position: 5,
      trigger: { type: 'keyword', keywords: ['price'] },
      actions: reply(),
    });
    const [priced, other] = await ingest(t, [
      { text: 'What is the price?', authorId: 'a1' },
      { text: 'Nice photo', authorId: 'a2' },
    ]);
    assert.deepEqual(await runsOf(t, price.id), [
      { item_id: priced!.id, outcome: 'sent', reason: null },
      { item_id: other!.id, outcome: 'skipped', reason: 'no_match' },
    ]);
    assert.deepEqual(await runsOf(t, catchAll.id), [{ item_id: other!.id, outcome: 'sent', reason: null }]);
    assert.equal((await responses(priced!.id))[0]!.text, 'Hi Ada, see our prices.');
  });

  test('dedup window per author, then the daily cap', async () => {
    fakePlatform(t);
    const a = await create({
      name: 'cap',
      trigger: { type: 'keyword', keywords: ['help'] },
      actions: reply(),
      guardrails: { daily_cap: 2 },
    });
    await ingest(t, [
      { text: 'help', authorId: 'd1' },
      { text: 'help again', authorId: 'd1' },
      { text: 'help', authorId: 'd2' },
      { text: 'help', authorId: 'd3' },
    ]);
    assert.deepEqual(
      (await runsOf(t, a.id)).map((r) => r.reason ?? r.outcome),
      ['sent', 'dedup', 'sent', 'cap'],
    );
  });

  test('blocked terms, a closed reply window and a human take-over skip', async () => {
    fakePlatform(t);
    const a = await create({
      name: 'g',
      trigger: { type: 'any' },
      actions: reply(),
      guardrails: { blocked_terms: ['lawyer'], dedup_window_minutes: 0 },
    });
    const [blocked, late] = await ingest(t, [
      { text: 'My lawyer will call', authorId: 'b1' },
      { text: 'hello', authorId: 'b2', kind: 'dm', replyWindowEndsAt: new Date(Date.now() - 1000) },
    ]);
    await ingest(t, [{ text: 'we answered by hand', threadId: 'th-h', fromAccount: true, authorId: 'me' }]);
    const [afterHuman] = await ingest(t, [{ text: 'thanks!', threadId: 'th-h', authorId: 'b3' }]);
    const runs = await runsOf(t, a.id);
    const reasonOf = (id: string) => runs.find((r) => r.item_id === id)?.reason;
    assert.equal(reasonOf(blocked!.id), 'blocked_term');
    assert.equal(reasonOf(late!.id), 'window_closed');
    assert.equal(reasonOf(afterHuman!.id), 'human_takeover');
  });

  test('conditions: first interaction only, languages', async () => {
    fakePlatform(t);
    const a = await create({
      name: 'c',
      trigger: { type: 'any' },
      conditions: { first_interaction_only: true, languages: ['es'] },
      actions: reply(),
      guardrails: { dedup_window_minutes: 0 },
    });
    const [es, en] = await ingest(t, [
      { text: 'Hola, ¿cuál es el precio de la camiseta?', authorId: 'c1' },
      { text: 'What is the price of this shirt?', authorId: 'c2' },
    ]);
    const [again] = await ingest(t, [{ text: 'Hola, gracias por la respuesta de ayer', authorId: 'c1' }]);
    const runs = await runsOf(t, a.id);
    assert.equal(runs.find((r) => r.item_id === es!.id)?.outcome, 'sent');
    assert.equal(runs.find((r) => r.item_id === en!.id)?.reason, 'no_match');
    assert.equal(runs.find((r) => r.item_id === again!.id)?.reason, 'no_match');
  });

  test('quiet hours hold the reply until they end', async () => {
    fakePlatform(t);
    await create({
      name: 'q',
      trigger: { type: 'any' },
      actions: reply(),
      guardrails: { quiet_hours: { start: '00:00', end: '23:59', timezone: 'UTC' }, dedup_window_minutes: 0 },
    });
    const [item] = await ingest(t, [{ text: 'late night', authorId: 'q1' }]);
    const { rows } = await t.container.pool.query<{ send_after: Date | null }>(
      'SELECT send_after FROM inbox_responses WHERE item_id = $1',
      [item!.id],
    );
    const now = new Date();
    if (now.getUTCHours() * 60 + now.getUTCMinutes() < 23 * 60 + 59) assert.ok(rows[0]!.send_after! > now);
  });

  test('auto mode: the job posts once, even run twice', async () => {
    const sent = fakePlatform(t);
    await create({ name: 'auto', trigger: { type: 'any' }, actions: reply(), guardrails: { dedup_window_minutes: 0 } });
    const [item] = await ingest(t, [{ text: 'hi', authorId: 'j1' }]);
    const [r] = await responses(item!.id);
    assert.equal(r!.status, 'queued');
    const deps = { pool: t.container.pool, sendReply: t.container.inboxSender.send };
    const payload = { workspace_id: t.owner.workspaceId, response_id: r!.id };
    assert.equal(await sendQueuedResponse(deps, payload, false), 'sent');
    assert.equal(await sendQueuedResponse(deps, payload, false), 'nothing');
    assert.equal(sent.length, 1);
    assert.equal((await responses(item!.id))[0]!.status, 'sent');
  });

  test('approval mode: an inbox_reply approval item; approving queues the send, rejecting discards', async () => {
    fakePlatform(t);
    const a = await create({
      name: 'appr',
      trigger: { type: 'any' },
      actions: reply(),
      response_mode: 'approval',
      guardrails: { dedup_window_minutes: 0 },
    });
    const [one, two] = await ingest(t, [
      { text: 'first', authorId: 'p1' },
      { text: 'second', authorId: 'p2' },
    ]);
    assert.deepEqual(
      (await runsOf(t, a.id)).map((r) => r.outcome),
      ['queued_for_approval', 'queued_for_approval'],
    );
    const items = (await t.inject({ url: '/v1/approvals/items?kind=inbox_reply&status=pending', key })).json().data
      .items;
    const [r1] = await responses(one!.id);
    const [r2] = await responses(two!.id);
    assert.equal(r1!.status, 'pending_approval');
    const item1 = items.find((i: { subject: { id: string } }) => i.subject.id === r1!.id);
    const item2 = items.find((i: { subject: { id: string } }) => i.subject.id === r2!.id);
    const approve = await t.inject({
      method: 'POST',
      url: `/v1/approvals/items/${item1.id}/actions`,
      key,
      payload: { action: 'approve', version: item1.version },
    });
    assert.equal(approve.statusCode, 200, approve.body);
    assert.equal((await responses(one!.id))[0]!.status, 'queued');
    const reject = await t.inject({
      method: 'POST',
      url: `/v1/approvals/items/${item2.id}/actions`,
      key,
      payload: { action: 'reject', version: item2.version, reason: 'no' },
    });
    assert.equal(reject.statusCode, 200, reject.body);
    assert.equal((await responses(two!.id))[0]!.status, 'discarded');
  });
});
