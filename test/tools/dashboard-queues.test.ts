// The Queues area of the dashboard (docs/dashboard/queues.md) in Debian's Chromium against a running `herald
// serve`: a queue made through the API and one made, changed and deleted in the pages; a post added to the queue
// from the composer, seen taken in the week grid and through the API; best-time suggestions applied as the queue's
// slots; a CSV with a good and a bad row checked by a dry run, then imported; recycling set and stopped on a
// published post. Every page passes the shared audit (axe-core, no layout shift, a kept screenshot).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { sidewaysOverflow } from '../helpers/dashboard-browser.ts';
import { pollFor } from '../helpers/poll.ts';

const ZONE = 'Europe/Paris';

let session: DashboardSession;
let t: TestApp;
let url: string;
let page: Page;
let key: string;
let queueId: string;

interface Answer<T> {
  status: number;
  data: T;
}

/** One API call with the test's key, through the in-process app on the same database as the server. */
async function api<T>(method: string, pathname: string, payload?: unknown): Promise<Answer<T>> {
  const res = await t.inject({
    method: method as 'GET',
    url: `/v1${pathname}`,
    key,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, data: (res.json() as { data: T }).data };
}

interface PostView {
  id: string;
  status: string;
  queue_id: string | null;
  queue_slot: string | null;
  created_via: string;
  recycle: { status: string; every_days: number; times: number; vary: string; variants: string[] } | null;
}

/** The local date of an instant in ZONE, as the week grid's `week` parameter takes it. */
function dateIn(zone: string, at: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(at));
}

async function noSidewaysScroll(p: Page, what: string) {
  const overflow = await sidewaysOverflow(p);
  assert.ok(overflow <= 0, `${what}: no sideways scrolling at 390 px (${overflow} px too wide)`);
}

/** Opens `pathname` on a phone-sized page, waits for `selector` and checks nothing scrolls sideways. */
async function onPhone(pathname: string, selector: string) {
  const phone = await session.context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  try {
    await phone.goto(`${url}/app${pathname}`);
    await phone.locator(selector).first().waitFor();
    await noSidewaysScroll(phone, pathname);
  } finally {
    await phone.close();
  }
}

describe('the Queues area in a browser', { skip }, () => {
  before(async () => {
    session = await startDashboard({ name: 'dashboard-queues', timezoneId: ZONE });
    ({ t, url, page } = session);
    key = await t.key();
    // Four slots a day, every day, so the next free one is never more than six hours away.
    const slots = [0, 1, 2, 3, 4, 5, 6].flatMap((day) =>
      ['00:00', '06:00', '12:00', '18:00'].map((time) => ({ day_of_week: day, time, timezone: ZONE })),
    );
    const made = await api<{ id: string }>('POST', '/queues', { name: 'Every six hours', slots });
    assert.equal(made.status, 201, JSON.stringify(made.data));
    queueId = made.data.id;
    await session.signIn(page);
  });

  after(async () => {
    await session?.stop();
  });

  test('lists the queues, and creates, changes and deletes one in the pages', async () => {
    await page.goto(`${url}/app/queues`);
    await page.getByRole('link', { name: 'Every six hours' }).waitFor();
    assert.match(await page.locator('.queue-cards').innerText(), /28 slots a week/);
    await session.audit(page, 'queues-list');

    await page.getByRole('link', { name: 'New queue' }).click();
    await page.getByRole('heading', { name: 'New queue', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Evenings');
    await page.getByRole('button', { name: 'Add a slot' }).click();
    await page.getByLabel('Day of slot 1').selectOption({ label: 'Tuesday' });
    await page.getByLabel('Time of slot 1').fill('19:30');
    await page.getByLabel('Time zone of slot 1').selectOption('America/New_York');
    await page.getByLabel('Date to pause').fill('2027-12-25');
    await page.getByRole('button', { name: 'Add the date' }).click();
    await page.getByLabel(/Minimum minutes/).fill('30');
    await page.getByLabel('Leave the slot free for the next post added').check();
    await page.getByRole('button', { name: 'Create the queue' }).click();
    await page.waitForURL(/\/app\/queues\/que_\w+\/week/);
    const evenings = page.url().split('/').at(-2)!;
    const made = await api<{
      name: string;
      slots: unknown[];
      pauses: string[];
      min_spacing_minutes: number;
      gap_policy: string;
    }>('GET', `/queues/${evenings}`);
    assert.deepEqual(made.data.slots, [{ day_of_week: 2, time: '19:30', timezone: 'America/New_York' }]);
    assert.deepEqual(made.data.pauses, ['2027-12-25']);
    assert.equal(made.data.min_spacing_minutes, 30);
    assert.equal(made.data.gap_policy, 'leave');

    await page.goto(`${url}/app/queues/${evenings}`);
    await page.getByRole('heading', { name: 'Edit queue', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Evenings');
    await page.getByLabel('Only these accounts').check();
    await page.getByLabel(/^bluesky · /).check();
    await session.audit(page, 'queue-edit');
    await page.getByRole('button', { name: 'Save the queue' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const changed = await api<{ connection_ids: string[] | null }>('GET', `/queues/${evenings}`);
    assert.deepEqual(changed.data.connection_ids, [t.connections.bluesky]);

    await page.getByRole('button', { name: 'Delete the queue' }).click();
    await page.getByRole('alertdialog').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(/\/app\/queues$/);
    await page.getByRole('link', { name: 'Every six hours' }).waitFor();
    assert.equal((await api('GET', `/queues/${evenings}`)).status, 404);
    assert.equal(await page.getByRole('link', { name: 'Evenings' }).count(), 0);

    await page.goto(`${url}/app/queues/que_missing`);
    assert.match(await page.getByRole('alert').innerText(), /req_/, 'a missing queue is an error with its request id');
  });

  test('adds a post to the queue from the composer; the week grid shows its slot taken', async () => {
    await page.goto(`${url}/app/posts/new`);
    await page.getByLabel('Text', { exact: true }).fill('Queued from the composer');
    await page.getByLabel('bluesky (sandbox)').check();
    await page.getByLabel('Add to queue').check();
    await page.getByLabel('Queue', { exact: true }).selectOption(queueId);
    await page.getByLabel('Next free slot').check();
    await session.audit(page, 'composer-queue');
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.waitForURL(/\/app\/posts\/post_/);
    const postId = page.url().split('/').at(-1)!;
    const post = (await api<PostView>('GET', `/posts/${postId}`)).data;
    assert.equal(post.queue_id, queueId);
    assert.ok(post.queue_slot, 'the post holds a slot');

    await page.goto(`${url}/app/queues/${queueId}/week?week=${dateIn(ZONE, post.queue_slot)}`);
    const taken = page.locator('.slot.taken').filter({ has: page.locator(`a[href="/app/posts/${postId}"]`) });
    await taken.waitFor();
    assert.match(await taken.innerText(), /Queued from the composer/);
    // Four slots a day for seven days, the post's the only one taken (the others free, or gone by earlier this week).
    assert.equal(await page.locator('.slot').count(), 28);
    assert.equal(await page.locator('.slot.taken').count(), 1);
    await session.audit(page, 'queue-week');
    const heading = await page.getByRole('navigation', { name: 'Weeks' }).getByRole('heading').innerText();
    const weeks = page.getByRole('navigation', { name: 'Weeks' });
    await page.getByRole('button', { name: 'Next week' }).click();
    await weeks.getByRole('heading').filter({ hasNotText: heading }).waitFor();
    assert.equal(await page.locator('.slot.taken').count(), 0, 'the next week holds no post');
    assert.equal(await page.locator('.slot.free').count(), 28, 'and every slot of it is free');
    await page.getByRole('button', { name: 'Previous week' }).click();
    await weeks.getByRole('heading', { name: heading }).waitFor();
    await taken.waitFor();

    const phone = await session.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${url}/app/queues/${queueId}/week?week=${dateIn(ZONE, post.queue_slot)}`);
    await phone.locator('.slot.taken').first().waitFor();
    await noSidewaysScroll(phone, 'the week grid');
    await session.audit(phone, 'queue-week-phone');
    await phone.goto(`${url}/app/queues`);
    await phone.getByRole('link', { name: 'Every six hours' }).waitFor();
    await noSidewaysScroll(phone, 'the queues list');
    await phone.close();
  });

  test('suggests best times, marks the platform defaults, and applies the chosen ones as the slots', async () => {
    await page.goto(`${url}/app/queues/${queueId}/suggest`);
    const table = page.getByRole('table', { name: 'Suggested slots' });
    await table.waitFor();
    // No post of this brand has engagement history yet: every suggestion is a default, and says so.
    const rows = table.locator('tbody tr');
    assert.equal(await rows.count(), 7);
    assert.equal(await table.locator('tr[data-source="default"]').count(), 7);
    assert.match(await rows.first().innerText(), /Platform default/);
    await session.audit(page, 'queue-suggestions');
    await onPhone(`/queues/${queueId}/suggest`, 'table');
    await page.getByLabel('Use Monday 09:00').check();
    await page.getByLabel('Use Tuesday 09:00').check();
    await page.getByRole('button', { name: 'Use the 2 chosen slots' }).click();
    await page.getByRole('button', { name: 'Replace the slots' }).click();
    await page.getByRole('status').filter({ hasText: 'Applied' }).waitFor();
    const queue = await api<{ slots: unknown[] }>('GET', `/queues/${queueId}`);
    assert.deepEqual(queue.data.slots, [
      { day_of_week: 1, time: '09:00', timezone: ZONE },
      { day_of_week: 2, time: '09:00', timezone: ZONE },
    ]);
  });

  test('imports a CSV: the dry run names the bad row, the import creates the good one', async () => {
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const csv = path.join(session.tmp, 'posts.csv');
    await writeFile(
      csv,
      `content,platforms,schedule_at\nImported from the sheet,bluesky,${at}\nA row for nowhere,myspace,${at}\n`,
    );
    await page.goto(`${url}/app/queues/import`);
    await page.getByLabel('CSV file').setInputFiles(csv);
    const dry = page.getByRole('table', { name: 'Dry run, row by row' });
    await dry.waitFor();
    assert.match(await page.getByTestId('dry-run-summary').innerText(), /2 rows: 1 ready, 1 with errors/);
    assert.equal(await dry.locator('tr[data-row="1"]').getAttribute('data-status'), 'ok');
    const bad = dry.locator('tr[data-row="2"]');
    assert.equal(await bad.getAttribute('data-status'), 'error');
    assert.match(await bad.innerText(), /platform_unknown/);
    await session.audit(page, 'import-dry-run');

    await page.getByRole('button', { name: 'Import 1 row' }).click();
    await page.waitForURL(/\/app\/queues\/import\/imp_/);
    const importId = page.url().split('/').at(-1)!;
    await page.getByTestId('import-status').filter({ hasText: 'completed' }).waitFor();
    assert.match(await page.getByTestId('import-counts').innerText(), /2 of 2 rows done · 1 created · 1 refused/);
    const results = page.getByRole('table', { name: 'Import results, row by row' });
    assert.match(await results.locator('tr[data-row="2"]').innerText(), /platform_unknown/);
    await session.audit(page, 'import-result');
    await onPhone(`/queues/import/${importId}`, 'table');

    const run = await api<{ status: string; rows: Array<{ row: number; post_id: string | null }> }>(
      'GET',
      `/posts/bulk/${importId}`,
    );
    assert.equal(run.data.status, 'completed');
    const postId = run.data.rows.find((r) => r.row === 1)?.post_id;
    assert.ok(postId, 'row 1 became a post');
    assert.equal(await results.getByRole('link', { name: postId }).count(), 1);
    const post = await api<PostView>('GET', `/posts/${postId}`);
    assert.equal(post.data.created_via, 'queue_import');
  });

  test('sets recycling on a published post and stops it', async () => {
    const made = await api<{ post_id: string }>('POST', '/posts', {
      content: 'Our guide to queues',
      platforms: ['bluesky'],
      publish_now: true,
    });
    assert.equal(made.status, 201, JSON.stringify(made.data));
    const id = made.data.post_id;
    await pollFor(
      'the post published on the sandbox',
      async () => (await api<PostView>('GET', `/posts/${id}`)).data.status === 'published',
      WAIT_MS,
      250,
    );
    await page.goto(`${url}/app/posts/${id}`);
    await page.getByRole('heading', { name: 'Recycling' }).waitFor();
    await page.getByLabel('Every (days)').fill('3');
    await page.getByLabel('Copies', { exact: true }).fill('2');
    await page.getByRole('textbox', { name: 'Text 1' }).fill('Still worth a read: our guide to queues.');
    await page.getByRole('button', { name: 'Add a text' }).click();
    await page.getByRole('textbox', { name: 'Text 2' }).fill('In case you missed it: the queues guide.');
    await session.audit(page, 'post-recycling-form');
    await page.getByRole('button', { name: 'Recycle this post' }).click();
    await page.getByTestId('recycle-state').filter({ hasText: 'active' }).waitFor();
    assert.match(await page.getByTestId('recycle-state').innerText(), /Every 3 days, 0 of 2 copies made/);
    await page.getByText('No copy made yet.').waitFor();
    await session.audit(page, 'post-recycling');
    await onPhone(`/posts/${id}`, '[data-testid="recycle-state"]');
    const rule = (await api<PostView>('GET', `/posts/${id}`)).data.recycle;
    assert.equal(rule?.status, 'active');
    assert.equal(rule?.every_days, 3);
    assert.equal(rule?.times, 2);
    assert.equal(rule?.vary, 'rotate_variants');
    assert.deepEqual(rule?.variants, [
      'Still worth a read: our guide to queues.',
      'In case you missed it: the queues guide.',
    ]);

    await page.getByRole('button', { name: 'Stop recycling' }).click();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByTestId('recycle-state').filter({ hasText: 'stopped' }).waitFor();
    assert.equal((await api<PostView>('GET', `/posts/${id}`)).data.recycle?.status, 'stopped');
  });
});
