// The Automations area of the dashboard in Debian's Chromium against a running `herald serve`: an empty list; a
// refused rule shown with its code; an automation created through the page (a schedule source, a template
// generator, a sandbox X connection, drafts) whose dry run shows the rendered post while nothing is created (checked
// through the API); a real run seen with its post in the page and through the API; pause, resume and edit; every
// page audited at desktop and at phone width (390 × 844).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  auditAtPhoneWidth,
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { getData } from '../helpers/dashboard-data.ts';
import { pollFor } from '../helpers/poll.ts';

let session: DashboardSession;
let t: TestApp;
let url: string;
let page: Page;
let key = '';
let automationId = '';

const api = <T>(pathname: string): Promise<T> => getData<T>(url, key, pathname);

interface Automation {
  id: string;
  name: string;
  status: string;
  next_run_at: string | null;
}
interface Run {
  status: string;
  trigger: string;
  posts_created: string[];
}

describe('the Automations area', { skip }, () => {
  before(async () => {
    session = await startDashboard({ name: 'dashboard-automations' });
    ({ t, url, page } = session);
    key = await t.key();
    await session.signIn(page);
  });

  after(async () => {
    await session?.stop();
  });

  test('an empty list, then a refused rule shown in words with its code', async () => {
    await page.goto(`${url}/app/automations`);
    await page.getByText('No automations yet.').waitFor();
    await session.audit(page, 'automations-empty');
    await page.getByRole('link', { name: 'New automation' }).click();
    await page.getByRole('heading', { name: 'New automation', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Morning tip');
    await page.getByLabel('RRULE', { exact: true }).fill('FREQ=SOMETIMES');
    await page
      .getByLabel('Template', { exact: true })
      .fill('Tip of the day from {{brand.name}}: schedule your posts a week ahead.');
    await page.getByRole('button', { name: 'Add a destination' }).click();
    await page.getByLabel('Account of destination 1').selectOption(t.connections.x!);
    await page.getByRole('button', { name: 'Create the automation' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    assert.match(text, /Code PUBLIC_API_VALIDATION_FAILED/);
    assert.match(text, /rrule/i, 'the refusal names the field');
    assert.match(text, /request req_/);
    await session.audit(page, 'automation-new-refused');
  });

  test('the dry run shows the next post and creates nothing; a real run creates it', async () => {
    await page.getByLabel('RRULE', { exact: true }).fill('FREQ=DAILY;BYHOUR=9;BYMINUTE=0');
    await session.audit(page, 'automation-new');
    await page.getByRole('button', { name: 'Save paused and preview' }).click();
    const preview = page.getByTestId('automation-preview');
    await preview.waitFor();
    automationId = new URL(page.url()).pathname.split('/').pop()!;
    assert.match(automationId, /^auto_/);
    const rendered = await page.getByRole('listitem', { name: 'Previewed post 1' }).innerText();
    assert.match(rendered, /Tip of the day from Sandbox: schedule your posts a week ahead\./);
    assert.match(rendered, /Herald would accept it/);
    assert.match(await preview.innerText(), /nothing was saved/);
    await session.audit(page, 'automation-preview');

    const stored = await api<Automation>(`/automations/${automationId}`);
    assert.equal(stored.status, 'paused', 'saved paused for its dry run');
    assert.deepEqual((await api<{ items: Run[] }>(`/automations/${automationId}/runs`)).items, [], 'no run');
    assert.deepEqual((await api<{ items: unknown[] }>('/posts')).items, [], 'no post');

    await page.getByRole('button', { name: 'Run now' }).click();
    const done = page.locator('.run[data-status="completed"]');
    await done.waitFor({ timeout: WAIT_MS });
    const link = done.getByRole('link', { name: /^Post post_/ });
    const postId = ((await link.getAttribute('href')) ?? '').split('/').pop()!;
    assert.match(await done.innerText(), /1 post created/);

    const runs = (await api<{ items: Run[] }>(`/automations/${automationId}/runs`)).items;
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.trigger, 'manual');
    assert.deepEqual(runs[0]!.posts_created, [postId]);
    const post = await api<{ status: string; created_via: string; content: string }>(`/posts/${postId}`);
    assert.equal(post.status, 'draft');
    assert.equal(post.created_via, 'automation');
    assert.match(post.content, /Tip of the day from Sandbox/);

    // A fresh load, so the audit measures this page alone and not the runs list growing under the preview.
    await page.reload();
    await page.locator('.run[data-status="completed"]').waitFor();
    await session.audit(page, 'automation-run');
    await link.click();
    await page.getByRole('heading', { name: 'Post', level: 1 }).waitFor();
    assert.equal(await page.getByTestId('post-status').innerText(), 'draft');
  });

  test('resume, pause and edit', async () => {
    await page.goto(`${url}/app/automations/${automationId}`);
    await page.getByRole('button', { name: 'Resume' }).click();
    await pollFor('the page shows it active', async () =>
      (await page.getByTestId('automation-status').innerText()) === 'active' ? true : undefined,
    );
    const active = await api<Automation>(`/automations/${automationId}`);
    assert.equal(active.status, 'active');
    assert.ok(active.next_run_at, 'an active schedule has its next run');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    const paused = await api<Automation>(`/automations/${automationId}`);
    assert.equal(paused.status, 'paused');
    assert.equal(paused.next_run_at, null);

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit automation', level: 1 }).waitFor();
    // Stored with the DTSTART line Herald added at creation, kept whole by the form.
    assert.match(
      await page.getByLabel('RRULE', { exact: true }).inputValue(),
      /^DTSTART;TZID=Europe\/Paris:\d{8}T\d{6}\nRRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0$/,
    );
    await session.audit(page, 'automation-edit');
    await page.getByLabel('Name', { exact: true }).fill('Morning tip, renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Morning tip, renamed', level: 1 }).waitFor();
    assert.equal((await api<Automation>(`/automations/${automationId}`)).name, 'Morning tip, renamed');

    await page.goto(`${url}/app/automations`);
    await page.getByRole('link', { name: 'Morning tip, renamed' }).waitFor();
    await session.audit(page, 'automations-list');
  });

  test('every page at phone width', async () => {
    await auditAtPhoneWidth(session, [
      ['/app/automations', 'Automations', 'automations-list-phone'],
      ['/app/automations/new', 'New automation', 'automation-new-phone'],
      [`/app/automations/${automationId}`, 'Morning tip, renamed', 'automation-phone'],
      [`/app/automations/${automationId}/edit`, 'Edit automation', 'automation-edit-phone'],
    ]);
  });
});
