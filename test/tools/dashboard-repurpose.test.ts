// The Repurpose area of the dashboard in Debian's Chromium against a running `herald serve`: an empty list; a
// fixture article served on loopback (allowed through the SSRF guard with HERALD_OUTBOUND_ALLOWLIST=127.0.0.1)
// repurposed into an X thread in the page, scheduled; its progress followed to the end; the thread reviewed part by
// part with its counters; the scheduled post seen through the API; every page audited at desktop and at phone
// width (390 × 844).
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
import { ARTICLE_TITLE, startArticleServer, type FixtureServer } from '../helpers/repurpose.ts';

const ZONE = 'Europe/Paris';

let session: DashboardSession;
let t: TestApp;
let url: string;
let page: Page;
let site: FixtureServer;
let key = '';
let jobId = '';

const api = <T>(pathname: string): Promise<T> => getData<T>(url, key, pathname);

/** Tomorrow at 10:00 as a datetime-local value, and that instant in UTC as the browser in ZONE reads it. */
function tomorrowAtTen(): { local: string; utc: string } {
  const day = new Date(Date.now() + 86_400_000);
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(day);
  const local = `${date}T10:00`;
  // 10:00 in Paris is 09:00 UTC in winter and 08:00 in summer: read the zone's offset for that day.
  const offset = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' })
    .formatToParts(day)
    .find((p) => p.type === 'timeZoneName')!
    .value.replace('GMT', '');
  return { local, utc: new Date(`${local}:00${offset || '+00:00'}`).toISOString() };
}

describe('the Repurpose area', { skip }, () => {
  before(async () => {
    site = await startArticleServer();
    session = await startDashboard({
      name: 'dashboard-repurpose',
      timezoneId: ZONE,
      env: { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' },
    });
    ({ t, url, page } = session);
    key = await t.key();
    await session.signIn(page);
  });

  after(async () => {
    await session?.stop();
    await site?.close();
  });

  test('an empty list, and the new-job form', async () => {
    await page.goto(`${url}/app/repurpose`);
    await page.getByText('No repurpose jobs yet.').waitFor();
    await session.audit(page, 'repurpose-empty');
    await page.getByRole('link', { name: 'Repurpose content' }).click();
    await page.getByRole('heading', { name: 'Repurpose content', level: 1 }).waitFor();
    await session.audit(page, 'repurpose-new');
  });

  test('a local article becomes a scheduled X thread, reviewed with its counters', async () => {
    const when = tomorrowAtTen();
    await page.getByLabel('Article URL').fill(`${site.origin('127.0.0.1')}/blog/article`);
    assert.equal(await page.getByLabel('Platform of output 1').inputValue(), 'x');
    assert.equal(await page.getByLabel('Format of output 1').inputValue(), 'thread');
    await page.getByLabel('Scheduled posts').check();
    await page.getByLabel('First post at').fill(when.local);
    await session.audit(page, 'repurpose-new-filled');
    await page.getByRole('button', { name: 'Repurpose' }).click();
    await page.getByRole('heading', { name: 'Repurpose job', level: 1 }).waitFor();
    jobId = new URL(page.url()).pathname.split('/').pop()!;
    assert.match(jobId, /^rep_/);
    await page.getByRole('list', { name: 'Progress' }).waitFor();

    const status = page.getByTestId('job-status');
    await status.waitFor({ timeout: WAIT_MS });
    assert.equal(await status.innerText(), 'completed');
    const thread = page.getByRole('article', { name: 'x thread 1' });
    await thread.waitFor();
    const parts = thread.getByRole('list', { name: 'Parts of x thread 1' }).getByRole('listitem');
    const count = await parts.count();
    assert.ok(count >= 2, `a thread of several parts (${count})`);
    for (let i = 0; i < count; i++) {
      const part = await parts.nth(i).innerText();
      const [used, max] = /(\d+) \/ (\d+) weighted characters/.exec(part)!.slice(1).map(Number) as [number, number];
      assert.equal(max, 280);
      assert.ok(used <= max, `part ${i + 1} within X's limit (${used})`);
    }
    assert.match(await thread.innerText(), /within the limit/);
    assert.match(await page.getByRole('region', { name: 'Outputs on X' }).innerText(), /created/);
    assert.match(await page.locator('main').innerText(), new RegExp(ARTICLE_TITLE));

    const job = await api<{
      status: string;
      outputs: Array<{ platform: string; post_id: string | null; parts: string[] }>;
    }>(`/repurpose/${jobId}`);
    assert.equal(job.status, 'completed');
    const postId = job.outputs[0]!.post_id!;
    assert.ok(postId, 'the thread became a post');
    const post = await api<{ status: string; schedule_at: string; created_via: string; platforms: string[] }>(
      `/posts/${postId}`,
    );
    assert.equal(post.status, 'scheduled');
    assert.equal(post.created_via, 'repurpose');
    assert.deepEqual(post.platforms, ['x']);
    assert.equal(new Date(post.schedule_at).toISOString(), when.utc, 'scheduled at 10:00 in the browser zone');
    assert.equal(job.outputs[0]!.parts.length, count, 'the page shows every part');

    // A fresh load: the audit measures the finished page, not the outputs arriving under the progress.
    await page.reload();
    await page.getByRole('article', { name: 'x thread 1' }).waitFor();
    await session.audit(page, 'repurpose-job');
    await page.getByRole('link', { name: 'Open its post' }).click();
    await page.getByRole('heading', { name: 'Post', level: 1 }).waitFor();
    assert.equal(await page.getByTestId('post-status').innerText(), 'scheduled');

    await page.goto(`${url}/app/repurpose`);
    await page.getByRole('link', { name: ARTICLE_TITLE }).waitFor();
    await session.audit(page, 'repurpose-list');
  });

  test('a refused source is shown in words with its code', async () => {
    await page.goto(`${url}/app/repurpose/new`);
    await page.getByLabel('Article URL').fill('https://10.0.0.7/private');
    await page.getByRole('button', { name: 'Repurpose' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    assert.match(text, /Code PUBLIC_API_VALIDATION_FAILED/);
    assert.match(text, /request req_/);
    await session.audit(page, 'repurpose-refused');
  });

  test('every page at phone width', async () => {
    await auditAtPhoneWidth(session, [
      ['/app/repurpose', 'Repurpose', 'repurpose-list-phone'],
      ['/app/repurpose/new', 'Repurpose content', 'repurpose-new-phone'],
      [`/app/repurpose/${jobId}`, 'Repurpose job', 'repurpose-job-phone'],
    ]);
  });
});
