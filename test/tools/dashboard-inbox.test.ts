// The dashboard's Inbox (docs/dashboard/inbox.md) in Debian's Chromium against a running `herald serve`: an
// automation made with the form; a post published on the X simulator, comments injected through the simulator's
// control switch and ingested by the server's own `ingest_inbox` job; the list with its filters; an item assigned
// and labelled; a reply from a generated draft, edited, sent with a double click, and seen once on the simulator;
// automations paused and resumed, and their runs with the reason each was skipped; a phone-width pass. Every page
// passes the shared audit (axe-core, layout shift, screenshot).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { sidewaysOverflow } from '../helpers/dashboard-browser.ts';
import { handleOf } from '../helpers/inbox-ingest.ts';
import { pollFor } from '../helpers/poll.ts';

let session: DashboardSession;
let t: TestApp;
let url: string;
let page: Page;
let key: string;
let priceItem = '';
let praiseItem = '';
let priceAutomation = '';

const audit = (p: Page, name: string) => session.audit(p, name);

/** A call to the running server with the test key; the body is always read (an unread one holds its socket). */
async function api<T = unknown>(
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; data: T; raw: string }> {
  const res = await fetch(`${url}/v1${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'GET' ? {} : { 'idempotency-key': crypto.randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const raw = await res.text();
  const parsed = raw ? (JSON.parse(raw) as { data?: T }) : {};
  return { status: res.status, data: parsed.data as T, raw };
}

interface Item {
  id: string;
  text: string;
  status: string;
  platform_item_id: string;
  assignee_id: string | null;
  labels: string[];
  responses: Array<{ status: string; text: string; platform_reply_id: string | null; source: string }>;
}

async function injectComment(account: string, postId: string, text: string, author: string): Promise<string> {
  const res = await fetch(`${url}/sandbox/x/_sandbox/inbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account, kind: 'comment', post_id: postId, text, author }),
  });
  const raw = await res.text();
  assert.equal(res.status, 200, raw);
  return (JSON.parse(raw) as { ids: string[] }).ids[0]!;
}

/** Makes the X sources due and queues one ingestion pass on the server's worker (one pending job at most). */
async function queueIngest(): Promise<void> {
  await t.container.pool.query(`UPDATE inbox_sources SET next_poll_at = now() WHERE connection_id = $1`, [
    t.connections.x,
  ]);
  await t.container.pool.query(
    `SELECT graphile_worker.add_job('ingest_inbox', '{}'::json, job_key := 'dashboard-inbox-ingest')`,
  );
}

describe('the Inbox area of the dashboard', { skip }, () => {
  before(async () => {
    session = await startDashboard({
      name: 'dashboard-inbox',
      // The control switch injects chosen comments; the trickle stays off so the items are exactly those.
      env: { HERALD_SANDBOX_CONTROL: 'on', HERALD_SANDBOX_INBOX_EVERY_SECONDS: '0' },
    });
    ({ t, url, page } = session);
    key = await t.key();
  });

  after(async () => {
    await session?.stop();
  });

  test('an empty inbox, then an automation made with the form', async () => {
    await session.signIn(page);
    await page.goto(`${url}/app/inbox`);
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    await page.getByText('No inbox items yet.').waitFor();
    await audit(page, 'inbox-empty');

    await page.getByRole('link', { name: 'Inbox automations' }).click();
    await page.getByRole('heading', { name: 'Inbox automations' }).waitFor();
    await page.getByText('No inbox automations yet.').waitFor();
    await page.getByRole('link', { name: 'New automation' }).click();
    await page.getByRole('heading', { name: 'New inbox automation' }).waitFor();
    await page.getByLabel('Name').fill('Refunds');
    await page.getByLabel('Keywords (comma separated)').fill('refund, money back');
    await page.getByLabel('Match').selectOption('contains');
    await page.getByLabel('Reply template of action 1').fill('Sorry to hear it, {{author}}. We will DM you.');
    await page.getByRole('button', { name: 'Add an action' }).click();
    await page.getByLabel('Labels of action 2 (comma separated)').fill('refund');
    // The number field first: Chromium scrolls back to a focused number field as it commits on blur, which would
    // move the submit button out from under the click.
    await page.getByLabel('Daily cap of answers (empty: none)').fill('20');
    await page.getByLabel('Wait for approval (an approval item per reply)').check();
    await audit(page, 'automation-form');
    await page.getByRole('button', { name: 'Create the automation' }).click();
    await page.getByRole('heading', { name: 'Inbox automations' }).waitFor();
    const card = page.locator('[data-automation]').filter({ hasText: 'Refunds' });
    await card.waitFor();
    assert.match(await card.innerText(), /keywords \(contains\): refund, money back/);

    const listed = await api<{
      items: Array<{
        name: string;
        trigger: unknown;
        actions: unknown[];
        response_mode: string;
        guardrails: { daily_cap: number };
      }>;
    }>('GET', '/inbox/automations');
    const made = listed.data.items.find((a) => a.name === 'Refunds')!;
    assert.deepEqual(made.trigger, { type: 'keyword', keywords: ['refund', 'money back'], match: 'contains' });
    assert.equal(made.actions.length, 2);
    assert.equal(made.response_mode, 'approval');
    assert.equal(made.guardrails.daily_cap, 20);
  });

  test('comments on a published X post are ingested and listed, with filters', async () => {
    // A second automation, made through the API: it matches the price question but a blocked term stops it, so
    // its runs show a skip with a reason and nothing is sent by an automation.
    const created = await api<{ id: string }>('POST', '/inbox/automations', {
      name: 'Prices',
      trigger: { type: 'keyword', keywords: ['price'] },
      actions: [{ type: 'reply_public', template: 'Hi {{author}}, prices are on our site.' }],
      response_mode: 'approval',
      guardrails: { dedup_window_minutes: 10080, blocked_terms: ['blue'] },
    });
    assert.equal(created.status, 201, created.raw);
    priceAutomation = created.data.id;

    const made = await api<{ post: { id: string } }>('POST', '/posts', {
      content: 'Our new shirts are here',
      platforms: ['x'],
      publish_now: true,
    });
    assert.equal(made.status, 201, made.raw);
    const post = await pollFor(
      'the post published on the X simulator',
      async () => {
        const got = await api<{ status: string; targets: Array<{ platform_post_id: string | null }> }>(
          'GET',
          `/posts/${made.data.post.id}`,
        );
        return got.data.status === 'published' ? got.data : undefined;
      },
      WAIT_MS,
      250,
    );
    const postId = post.targets[0]!.platform_post_id!;
    const account = await handleOf(t, t.connections.x!);
    const priceId = await injectComment(account, postId, 'What is the price of the blue shirt?', 'ana_lima');
    const praiseId = await injectComment(account, postId, 'Love these shirts, great colours', 'pedro_s');

    const items = await pollFor(
      'both comments ingested by the server',
      async () => {
        await queueIngest();
        const listed = await api<{ items: Item[] }>('GET', '/inbox?limit=50');
        const ids = listed.data.items.map((i) => i.platform_item_id);
        return ids.includes(priceId) && ids.includes(praiseId) ? listed.data.items : undefined;
      },
      WAIT_MS,
      1000,
    );
    priceItem = items.find((i) => i.platform_item_id === priceId)!.id;
    praiseItem = items.find((i) => i.platform_item_id === praiseId)!.id;

    await page.goto(`${url}/app/inbox`);
    const rows = page.getByRole('list', { name: 'Inbox items' }).locator('li.inbox-row');
    await rows.filter({ hasText: 'Love these shirts' }).waitFor();
    assert.equal(await rows.count(), 2);
    const row = await rows.filter({ hasText: 'blue shirt' }).innerText();
    for (const part of [/Comment/, /\bx\b/, /ana_lima/, /open/, /Assigned to nobody/]) assert.match(row, part);
    await audit(page, 'inbox-list');

    await page.getByLabel('Text contains').fill('PRICE');
    await page.getByRole('button', { name: 'Search' }).click();
    await pollFor('the text filter applied', async () => (await rows.count()) === 1, WAIT_MS, 100);
    assert.match(await rows.first().innerText(), /blue shirt/);
    await page.getByLabel('Kind').selectOption('review');
    await page.getByText('No item matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await pollFor('the filters cleared', async () => (await rows.count()) === 2, WAIT_MS, 100);
  });

  test('an item assigned and labelled in its thread view, seen through the API', async () => {
    await page.goto(`${url}/app/inbox`);
    await page.getByRole('link', { name: /Love these shirts/ }).click();
    await page.getByRole('heading', { name: /^Comment from/, level: 1 }).waitFor();
    assert.match(await page.getByRole('region', { name: 'Conversation' }).innerText(), /Love these shirts/);
    await audit(page, 'inbox-thread');

    const assign = page.getByRole('form', { name: 'Assign' });
    await assign.getByLabel('Assignee').selectOption(t.owner.userId);
    await assign.getByRole('button', { name: 'Assign' }).click();
    await pollFor(
      'assigned on the page',
      async () => (await page.getByTestId('assignee').innerText()) === 'you',
      WAIT_MS,
      100,
    );
    const labels = page.getByRole('form', { name: 'Add a label' });
    await labels.getByLabel('New label').fill('vip');
    await labels.getByRole('button', { name: 'Add label' }).click();
    await page.getByRole('button', { name: 'Remove the label vip' }).waitFor();
    await labels.getByLabel('New label').fill('shirts');
    await labels.getByRole('button', { name: 'Add label' }).click();
    await page.getByRole('button', { name: 'Remove the label shirts' }).waitFor();
    await page.getByRole('button', { name: 'Remove the label shirts' }).click();
    await page.getByRole('button', { name: 'Remove the label shirts' }).waitFor({ state: 'detached' });

    const got = await api<Item>('GET', `/inbox/${praiseItem}`);
    assert.equal(got.data.assignee_id, t.owner.userId);
    assert.deepEqual(got.data.labels, ['vip']);

    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    assert.equal((await api<Item>('GET', `/inbox/${praiseItem}`)).data.status, 'resolved');
    await page.getByRole('button', { name: 'Reopen' }).click();
    await page.getByRole('button', { name: 'Resolve' }).waitFor();
    assert.equal((await api<Item>('GET', `/inbox/${praiseItem}`)).data.status, 'open');

    const filtered = await api<{ items: Item[] }>('GET', `/inbox?label=vip&assignee_id=${t.owner.userId}`);
    assert.deepEqual(
      filtered.data.items.map((i) => i.id),
      [praiseItem],
    );
  });

  test('a reply from a generated draft, edited, double-clicked, posted once on the simulator', async () => {
    await page.goto(`${url}/app/inbox/${praiseItem}`);
    await page.getByRole('heading', { name: 'Reply' }).waitFor();
    await page.getByRole('button', { name: 'Generate a draft in the brand’s voice' }).click();
    const text = page.getByLabel('Reply text');
    await pollFor(
      'the generated draft in the text area',
      async () => (await text.inputValue()).length > 0,
      WAIT_MS,
      100,
    );
    assert.match(await page.locator('#reply-source').innerText(), /generated in the brand’s voice/);
    const drafted = await api<Item & { draft: { source: string; text: string } }>('GET', `/inbox/${praiseItem}`);
    assert.equal(drafted.data.draft.source, 'generated');
    const reply = `${(await text.inputValue()).trim()} See you soon!`;
    await text.fill(reply);
    await audit(page, 'inbox-reply-draft');

    await page.getByRole('button', { name: 'Send the reply' }).dblclick();
    const outcome = page.getByTestId('reply-outcome');
    await outcome.waitFor();
    assert.match(await outcome.innerText(), /^Sent\./);
    await page.locator('[data-response]').filter({ hasText: 'See you soon!' }).waitFor();
    await audit(page, 'inbox-reply-sent');

    const item = await api<Item>('GET', `/inbox/${praiseItem}`);
    assert.equal(item.data.status, 'replied');
    assert.equal(item.data.responses.length, 1, 'a double click replies once');
    const [response] = item.data.responses;
    assert.equal(response!.status, 'sent');
    assert.equal(response!.text, reply);
    assert.ok(response!.platform_reply_id);
    assert.match(await outcome.innerText(), new RegExp(response!.platform_reply_id!));

    const sim = await fetch(`${url}/sandbox/x/_sandbox/posts`);
    const { posts } = (await sim.json()) as { posts: Array<{ id: string; text: string; replyTo?: string | null }> };
    const replies = posts.filter((p) => p.replyTo === item.data.platform_item_id);
    assert.equal(replies.length, 1, 'one reply on the simulator');
    assert.equal(replies[0]!.id, response!.platform_reply_id);
    assert.equal(replies[0]!.text, reply);
  });

  test('a platform rule (a closed reply window) is shown in words, and nothing is posted', async () => {
    const fault = await fetch(`${url}/sandbox/x/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fault: 'reply_window_closed', operation: 'create_post' }),
    });
    assert.equal(fault.status, 200, await fault.text());
    await page.goto(`${url}/app/inbox/${priceItem}`);
    await page.getByLabel('Reply text').fill('It is 25 euros.');
    await page.getByRole('button', { name: 'Send the reply' }).click();
    const rule = page.getByTestId('reply-rule');
    await rule.waitFor();
    assert.match(await rule.innerText(), /reply window has closed/);
    assert.match(await page.getByRole('alert').innerText(), /Code PUBLIC_API_VALIDATION_FAILED/);
    const failed = page.locator('[data-response]').filter({ hasText: 'It is 25 euros.' });
    await failed.waitFor();
    assert.match(await failed.innerText(), /failed[\s\S]*reply window has closed[\s\S]*PLATFORM_REPLY_WINDOW_CLOSED/);
    await audit(page, 'inbox-reply-refused');
    const item = await api<Item>('GET', `/inbox/${priceItem}`);
    assert.deepEqual(
      item.data.responses.map((r) => r.status),
      ['failed'],
    );
    assert.notEqual(item.data.status, 'replied');
  });

  test('automations paused and resumed, edited, and their runs with the reasons they skipped', async () => {
    await page.goto(`${url}/app/inbox/automations`);
    const card = page.locator(`[data-automation="${priceAutomation}"]`);
    await card.waitFor();
    assert.match(await card.innerText(), /2 runs: 0 sent, 0 for approval, 2 skipped/);
    await audit(page, 'inbox-automations');
    await card.getByRole('button', { name: 'Pause Prices' }).click();
    await card.getByRole('button', { name: 'Resume Prices' }).waitFor();
    assert.equal((await api<{ enabled: boolean }>('GET', `/inbox/automations/${priceAutomation}`)).data.enabled, false);
    await card.getByRole('button', { name: 'Resume Prices' }).click();
    await card.getByRole('button', { name: 'Pause Prices' }).waitFor();
    assert.equal((await api<{ enabled: boolean }>('GET', `/inbox/automations/${priceAutomation}`)).data.enabled, true);

    await card.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs of Prices' }).waitFor();
    const table = await page.locator('table').innerText();
    assert.match(table, /a blocked term was in the message or the reply/);
    assert.match(table, /blocked_term/);
    assert.match(table, /its trigger or conditions did not match/);
    await audit(page, 'inbox-automation-runs');

    await page.goto(`${url}/app/inbox/automations/${priceAutomation}/edit`);
    await page.getByRole('heading', { name: 'Edit the automation Prices' }).waitFor();
    assert.equal(await page.getByLabel('Blocked terms', { exact: false }).inputValue(), 'blue');
    await page.getByLabel('Keywords (comma separated)').fill('price, cost');
    await audit(page, 'automation-edit');
    await page.getByRole('button', { name: 'Save the automation' }).click();
    await page.getByRole('heading', { name: 'Inbox automations' }).waitFor();
    const saved = await api<{ trigger: { keywords: string[] }; guardrails: { blocked_terms: string[] } }>(
      'GET',
      `/inbox/automations/${priceAutomation}`,
    );
    assert.deepEqual(saved.data.trigger.keywords, ['price', 'cost']);
    assert.deepEqual(saved.data.guardrails.blocked_terms, ['blue']);
  });

  test('at phone width (390 × 844) the list, a thread and the automations fit', async () => {
    const phone = await session.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const [where, heading, name] of [
      ['/app/inbox', 'Inbox', 'inbox-list-phone'],
      [`/app/inbox/${priceItem}`, /^Comment from/, 'inbox-thread-phone'],
      ['/app/inbox/automations', 'Inbox automations', 'inbox-automations-phone'],
      ['/app/inbox/automations/new', 'New inbox automation', 'automation-form-phone'],
    ] as const) {
      await phone.goto(`${url}${where}`);
      await phone.getByRole('heading', { name: heading, level: 1 }).waitFor();
      if (where === '/app/inbox') await phone.locator('li.inbox-row').first().waitFor();
      if (where.startsWith('/app/inbox/inb_')) await phone.getByRole('heading', { name: 'Reply' }).waitFor();
      const overflow = await sidewaysOverflow(phone);
      assert.ok(overflow <= 0, `${where}: no sideways scrolling at phone width (${overflow} px too wide)`);
      await audit(phone, name);
    }
    await phone.close();
  });
});
