// The dashboard's Analytics area in Debian's Chromium against a running `herald serve`: a post published through
// the API on the X simulator, its metrics read by sync passes whose `now` jumps ahead with the simulators' clock
// (as test/analytics-sync.test.ts moves time: passing `now`, never waiting), and the post's metrics page read in
// the browser after they grew; the summary of a period with the top posts, an empty period, insights generated
// and dismissed from the page, the CSV export downloaded, and the pages at phone width. Every page passes the
// audit (axe-core, layout shift, screenshot).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { withTransaction } from '../../src/db/pool.ts';
import { syncDueMetrics } from '../../src/features/analytics/sync.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { onePost, seedPublishedPost } from '../helpers/analytics.ts';
import { sandboxSecret, type TestApp } from '../helpers/app.ts';
import {
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { sidewaysOverflow } from '../helpers/dashboard-browser.ts';
import { pollFor } from '../helpers/poll.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;

let sandbox: RunningSandbox;
let session: DashboardSession;
let t: TestApp;
let url: string;
let page: Page;
let key: string;
let outlierPost = '';
let publishedId = '';
/** How far the simulators' clock is ahead of the real one, moved with the `now` of each sync pass. */
let offset = 0;

async function api<T>(pathname: string, init: RequestInit = {}): Promise<T> {
  const answer = await fetch(`${url}/v1${pathname}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
  const body = (await answer.json()) as { data: T };
  assert.ok(answer.ok, `${pathname}: ${answer.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** One sync pass at `now`, with the simulators' clock at the same moment (their metrics grow with it). */
function syncAt(now: Date) {
  offset = now.getTime() - Date.now();
  const c = t.container;
  return syncDueMetrics(
    {
      pool: c.pool,
      access: { ...c.platformAccess, sandboxUrl: sandbox.url },
      logger: c.logger,
      clock: c.clock,
      maxAgeDays: 30,
      batchSize: 100,
    },
    { now },
  );
}

interface PostMetrics {
  targets: Array<{ platform: string; metrics: Record<string, { value: number | null; status: string }> }>;
}

const digits = (text: string) => text.replace(/\D/g, '');

describe('the Analytics area in a browser', { skip }, () => {
  before(async () => {
    sandbox = await startSandbox({ secret: sandboxSecret(), now: () => Date.now() + offset });
    // Herald publishes and reads metrics through this sandbox, whose clock the test moves.
    session = await startDashboard({ name: 'dashboard-analytics', env: { HERALD_SANDBOX_URL: sandbox.url } });
    ({ t, url, page } = session);
    key = await t.key();
    // Ten earlier posts of the X account, one far above the others: the top post, and a `top_post` insight.
    const base = { workspaceId: t.owner.workspaceId, brandId: t.owner.brandId };
    for (const [i, likes] of [9, 9, 10, 10, 10, 11, 11, 12, 12, 100].entries()) {
      // In one transaction: the server's metrics sync enrolls published targets without a rollup row, and must
      // never see a seeded target before its rollup.
      const seeded = await withTransaction(t.container.pool, (client) =>
        seedPublishedPost(
          client,
          onePost(
            base,
            'x',
            new Date(Date.now() - (i + 2) * DAY),
            { likes, impressions: 1000 },
            {
              connectionId: t.connections.x,
              content: likes === 100 ? 'The launch thread everyone shared' : `An ordinary update ${i}`,
            },
          ),
        ),
      );
      if (likes === 100) outlierPost = seeded.postId;
    }
    await session.signIn(page);
  });

  after(async () => {
    await session?.stop();
    await sandbox?.close();
  });

  test('the summary of the last 30 days: totals with deltas, trend, platforms and top posts; an empty period', async () => {
    await page.goto(`${url}/app/analytics`);
    await page.getByRole('heading', { name: 'Totals', level: 2 }).waitFor();
    const figures = await page.getByRole('list', { name: /Totals and change/ }).innerText();
    assert.match(figures, /Posts\s+10/);
    const top = page.locator('.top-posts li').first().getByRole('link');
    assert.equal(await top.innerText(), 'The launch thread everyone shared');
    assert.equal(await top.getAttribute('href'), `/app/analytics/posts/${outlierPost}`);
    await page.getByText('Show the numbers as a table').click();
    assert.match(await page.locator('section[aria-labelledby="trend-title"] details table').innerText(), /Engagements/);
    await session.audit(page, 'analytics-summary');

    await page.getByLabel(/^Period/).selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.getByLabel('Until (inclusive)').fill('2020-01-31');
    await page.getByText(/No post was published in this period/).waitFor();
    assert.match(page.url(), /from=2020-01-01&to=2020-01-31/, 'the period is in the address');
    // Audited as loaded from its address: the change above moved the page on purpose.
    await page.reload();
    await page.getByText(/No post was published in this period/).waitFor();
    assert.equal(await page.getByLabel('From', { exact: true }).inputValue(), '2020-01-01');
    await session.audit(page, 'analytics-empty');
  });

  test('a post published through the API: its metrics page after the metrics grew', async () => {
    const made = await api<{ post: { id: string } }>('/posts', {
      method: 'POST',
      headers: { 'idempotency-key': `analytics-${Date.now()}` },
      body: JSON.stringify({ content: `Metrics in the dashboard ${Date.now()}`, platforms: ['x'], publish_now: true }),
    });
    publishedId = made.post.id;
    const published = await pollFor(
      'the post published on the X simulator',
      async () => {
        const post = await api<{ status: string; published_at: string | null }>(`/posts/${publishedId}`);
        return post.status === 'published' ? post : undefined;
      },
      WAIT_MS,
      250,
    );
    const at = Date.parse(published.published_at!);
    await syncAt(new Date(at + 20 * MINUTE));
    const first = await api<PostMetrics>(`/analytics/posts/${publishedId}`);
    const before = first.targets[0]!.metrics.impressions!.value!;

    await page.goto(`${url}/app/analytics/posts/${publishedId}`);
    const cell = page.getByTestId('metric-x-impressions');
    await cell.waitFor();
    assert.equal(digits(await cell.innerText()), String(before));
    await session.audit(page, 'post-metrics');

    await syncAt(new Date(at + 6 * 60 * MINUTE));
    const second = await api<PostMetrics>(`/analytics/posts/${publishedId}`);
    const grown = second.targets[0]!.metrics.impressions!.value!;
    assert.ok(grown > before, `impressions grew (${before} → ${grown})`);
    await pollFor(
      'the page shows the grown impressions',
      async () => {
        await page.reload();
        await cell.waitFor();
        return digits(await cell.innerText()) === String(grown);
      },
      WAIT_MS,
      500,
    );
    await page.getByText('Show every reading as a table').click();
    assert.equal(await page.locator('.target-metrics details tbody tr').count(), 2, 'two readings in the history');
    await session.audit(page, 'post-metrics-grown');
  });

  test('insights: generated from the page, shown with their evidence, dismissed', async () => {
    await page.goto(`${url}/app/analytics`);
    await page.getByRole('heading', { name: 'Insights', level: 2 }).waitFor();
    await page.getByText('No insights yet.').waitFor();
    await page.getByRole('button', { name: 'Generate insights' }).click();
    const card = page
      .locator('.insight')
      .filter({ has: page.locator(`a[href="/app/analytics/posts/${outlierPost}"]`) });
    await card.waitFor();
    const listed = await api<{
      items: Array<{
        id: string;
        title: string;
        evidence: { value: number };
        recommendation: { params: { post_id?: string } };
      }>;
    }>('/analytics/insights');
    const insight = listed.items.find((i) => i.recommendation.params.post_id === outlierPost)!;
    assert.ok(insight, JSON.stringify(listed.items));
    assert.match(await card.innerText(), new RegExp(`${insight.evidence.value}`));
    await session.audit(page, 'analytics-insights');
    await card.getByRole('button', { name: `Dismiss: ${insight.title}` }).click();
    await card.waitFor({ state: 'detached' });
    const dismissed = await api<{ status: string }>(`/analytics/insights/${insight.id}`);
    assert.equal(dismissed.status, 'dismissed');
  });

  test('downloads the CSV export of the period', async () => {
    await page.goto(`${url}/app/analytics`);
    await page.getByRole('heading', { name: 'Totals', level: 2 }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /\.csv$/);
    const file = path.join(session.tmp, download.suggestedFilename());
    await download.saveAs(file);
    const csv = await readFile(file, 'utf8');
    const [header] = csv.split('\r\n');
    assert.equal(
      header,
      'post_id,content,target_id,platform,connection_id,published_at,impressions,reach,likes,comments,shares,' +
        'quotes,saves,clicks,video_views,engagements,engagement_rate,unavailable,last_synced_at',
    );
    assert.ok(csv.includes(publishedId), 'the published post is a row');
  });

  test('the pages at phone width, and a post that is not there', async () => {
    const phone = await session.context.newPage();
    await phone.setViewportSize({ width: 390, height: 800 });
    for (const [where, ready, name] of [
      ['/app/analytics', 'Totals', 'analytics-phone'],
      [`/app/analytics/posts/${publishedId}`, 'Per platform', 'post-metrics-phone'],
    ] as const) {
      await phone.goto(`${url}${where}`);
      await phone.getByRole('heading', { name: ready, level: 2 }).waitFor();
      const overflow = await sidewaysOverflow(phone);
      assert.ok(overflow <= 0, `${where}: no sideways scrolling at phone width (${overflow} px too wide)`);
      await session.audit(phone, name);
    }
    await phone.goto(`${url}/app/analytics/posts/post_not_there`);
    const alert = phone.getByRole('alert').first();
    await alert.waitFor();
    assert.match(await alert.innerText(), /Code [A-Z_]+/);
    await session.audit(phone, 'post-metrics-error');
    await phone.close();
  });
});
