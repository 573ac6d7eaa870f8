// The Approvals area of the dashboard (docs/dashboard/approvals.md) in Chromium against a running `herald serve`:
// a policy set through the API holds new posts; the queue, an item (preview, history, comments) and the policy
// page pass the audit, also at phone width; a batch of two approved from the list is scheduled; a rejection's
// reason reaches the post; and a request edited behind the reviewer's back is refused visibly with its code, on the
// item page and in a batch from the list, and on the policy page for a policy changed meanwhile.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import {
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { sidewaysOverflow } from '../helpers/dashboard-browser.ts';
import { png } from '../helpers/media-fixtures.ts';
import { pollFor } from '../helpers/poll.ts';

interface Post {
  id: string;
  status: string;
  content: string;
  approval: { item_id: string; status: string; reason: string | null } | null;
  platform_options: Record<string, { content?: string }>;
}
interface Policy {
  version: number;
  mode: string;
  expire_after: number | null;
  allow_self_approval: boolean;
}

let session: DashboardSession;
let page: Page;
let url = '';
let key = '';

/** A call to /v1 with the key; the body is always read (an unread body holds its socket open). */
async function api<T>(method: string, pathname: string, body?: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${url}/v1${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as { data: T }) : undefined;
  return { status: response.status, data: parsed?.data as T };
}

/** An image uploaded through the signed-URL flow (docs/api.md "Media"); the local driver answers when it is ready. */
async function uploadImage(filename: string): Promise<string> {
  const bytes = png(64, 48);
  const ticket = await api<{ media_id: string; upload: { signed_url: string; headers: Record<string, string> } }>(
    'POST',
    '/media/upload-url',
    { filename, content_type: 'image/png', size_bytes: bytes.length },
  );
  assert.equal(ticket.status, 201, JSON.stringify(ticket.data));
  const put = await fetch(ticket.data.upload.signed_url, {
    method: 'PUT',
    headers: ticket.data.upload.headers,
    body: new Uint8Array(bytes),
  });
  assert.equal(put.status, 200, await put.text());
  return ticket.data.media_id;
}

/** A post asking to go out in an hour on two sandbox platforms: held by the policy. */
async function heldPost(content: string, mediaIds: string[] = []): Promise<Post> {
  const made = await api<{ post_id?: string; id?: string }>('POST', '/posts', {
    content,
    platforms: ['x', 'bluesky'],
    ...(mediaIds.length ? { media_ids: mediaIds } : {}),
    platform_options: { bluesky: { content: `${content} (on Bluesky)` } },
    schedule_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  assert.ok(made.status === 201 || made.status === 202, `post created: ${JSON.stringify(made.data)}`);
  const post = await getPost(made.data.post_id ?? made.data.id!);
  assert.equal(post.status, 'pending_approval', 'the policy holds it');
  return post;
}

async function getPost(id: string): Promise<Post> {
  const got = await api<Post>('GET', `/posts/${id}`);
  assert.equal(got.status, 200);
  return got.data;
}

async function noSidewaysScroll(p: Page, what: string): Promise<void> {
  const overflow = await sidewaysOverflow(p);
  assert.ok(overflow <= 0, `${what}: no sideways scrolling at phone width (${overflow} px too wide)`);
}

describe('the Approvals area of the dashboard', { skip }, () => {
  const posts: Post[] = [];

  before(async () => {
    session = await startDashboard({ name: 'dashboard-approvals' });
    ({ page, url } = session);
    key = await session.t.key();
    const policy = await api<Policy>('GET', '/approvals/policy');
    const set = await api<Policy>('PATCH', '/approvals/policy', {
      version: policy.data.version,
      mode: 'everyone',
      allow_self_approval: true,
    });
    assert.equal(set.status, 200, JSON.stringify(set.data));
    for (const text of ['Launch day is Monday', 'Webinar on Thursday']) posts.push(await heldPost(text));
    posts.push(await heldPost('Price change next week', [await uploadImage('price-table.png')]));
    await session.signIn(page);
  });

  after(async () => {
    await session?.stop();
  });

  test('the queue lists the held posts, and a batch of two approved from it is scheduled', async () => {
    await page.goto(`${url}/app/approvals`);
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    for (const p of posts) await page.getByRole('link', { name: p.content }).waitFor();
    await session.audit(page, 'approvals-queue');

    const [first, second] = posts;
    await page.getByLabel(`Select “${first!.content}”`).check();
    await page.getByLabel(`Select “${second!.content}”`).check();
    await page.getByRole('button', { name: 'Approve selected (2)' }).click();
    await page.getByText('Approved 2 requests.').waitFor();
    for (const p of [first!, second!]) {
      const after = await pollFor(
        `${p.content}: approved and scheduled`,
        async () => {
          const now = await getPost(p.id);
          return now.status === 'scheduled' && now.approval?.status === 'approved' ? now : undefined;
        },
        WAIT_MS,
        200,
      );
      assert.equal(after.approval?.item_id, p.approval?.item_id);
    }
    await page.getByRole('link', { name: first!.content }).waitFor({ state: 'detached' });
  });

  test('an automation run’s batch approved from the list goes through the batch API with the ids shown', async () => {
    const made = await api<{ id: string }>('POST', '/automations', {
      name: 'Tips of the week',
      status: 'active',
      source: { type: 'schedule', rrule: 'FREQ=WEEKLY', timezone: 'Europe/Paris' },
      generator: { type: 'library', items: ['Tip: reuse your best posts', 'Tip: post when they read'], count: 2 },
      destinations: [{ platform: 'x' }],
      output: { mode: 'approval' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.data));
    const triggered = await api('POST', `/automations/${made.data.id}/trigger`);
    assert.ok(triggered.status < 300, JSON.stringify(triggered.data));
    const held = await pollFor(
      'the run’s two requests in one batch',
      async () => {
        const list = await api<{ items: Array<{ id: string; batch_id: string | null }> }>(
          'GET',
          '/approvals/items?status=pending&source=automation',
        );
        return list.data.items.length === 2 && list.data.items[0]!.batch_id ? list.data.items : undefined;
      },
      WAIT_MS,
      200,
    );
    await page.goto(`${url}/app/approvals`);
    for (const text of ['Tip: reuse your best posts', 'Tip: post when they read'])
      await page.getByLabel(new RegExp(`^Select “${text}`)).check();
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/v1/approvals/batches/'));
    await page.getByRole('button', { name: 'Approve selected (2)' }).click();
    const body = (await sent).postDataJSON() as { action: string; expected_item_ids: string[] };
    assert.equal(body.action, 'approve_all');
    assert.deepEqual([...body.expected_item_ids].sort(), held.map((i) => i.id).sort());
    await page.getByText('Approved 2 requests.').waitFor();
    for (const item of held) {
      const got = await api<{ status: string }>('GET', `/approvals/items/${item.id}`);
      assert.equal(got.data.status, 'approved');
    }
  });

  test('an empty filter says so, and a request that does not exist is an error with its code', async () => {
    await page.goto(`${url}/app/approvals`);
    await page.getByRole('link', { name: posts[2]!.content }).waitFor();
    await page.getByLabel('Status').selectOption('expired');
    await page.getByText('No approval requests yet.').waitFor();
    await page.goto(`${url}/app/approvals/apr_doesnotexist`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Code PUBLIC_API_NOT_FOUND/);
    assert.match(await alert.innerText(), /request req_/);
  });

  test('an item shows its preview per platform, history and comments; rejecting it keeps the reason', async () => {
    const third = posts[2]!;
    const itemId = third.approval!.item_id;
    await page.goto(`${url}/app/approvals/${itemId}`);
    const bluesky = page.getByRole('article', { name: 'Preview on bluesky' });
    await bluesky.waitFor();
    assert.match(await bluesky.innerText(), /Price change next week \(on Bluesky\)/, 'the override is applied');
    assert.match(await bluesky.innerText(), /\/ 300 graphemes/);
    const x = page.getByRole('article', { name: 'Preview on x' });
    assert.match(await x.innerText(), /\/ 280 weighted characters/);
    assert.match(await x.innerText(), /price-table\.png \(image, 64×48\)/, 'the media go with it');
    await x.getByRole('img', { name: 'Image price-table.png' }).waitFor();
    assert.match(await page.getByRole('list', { name: 'History of this request' }).innerText(), /asked for approval/);
    await page.getByLabel('Your comment').fill('Check the new price with sales first.');
    await page.getByRole('button', { name: 'Add the comment' }).click();
    await page.locator('.comments').getByText('Check the new price with sales first.').waitFor();
    await page.reload();
    await page.getByRole('article', { name: 'Preview on bluesky' }).waitFor();
    await session.audit(page, 'approvals-item');

    const reason = 'The price is not final yet.';
    await page.getByLabel('Reason (required)').fill(reason);
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await pollFor(
      'the item shows rejected',
      async () => (await page.getByTestId('item-status').innerText()) === 'rejected',
    );
    const post = await getPost(third.id);
    assert.equal(post.status, 'draft');
    assert.equal(post.approval?.status, 'rejected');
    assert.equal(post.approval?.reason, reason);
    const item = await api<{ reason: string; status: string }>('GET', `/approvals/items/${itemId}`);
    assert.equal(item.data.reason, reason);
  });

  test('edit, then approve: the edited text is saved and that version approved', async () => {
    const post = await heldPost('Sale ends Sunday');
    await page.goto(`${url}/app/approvals/${post.approval!.item_id}`);
    await page.getByLabel('Text of the post').fill('Sale ends Sunday at midnight');
    await page.getByLabel("Text on bluesky (replaces the post's text there)").fill('Sale ends Sunday at midnight 🦋');
    await page.getByRole('button', { name: 'Save the edit and approve' }).click();
    await pollFor(
      'the item shows approved',
      async () => (await page.getByTestId('item-status').innerText()) === 'approved',
    );
    assert.match(await page.getByRole('list', { name: 'History of this request' }).innerText(), /edited the post/);
    const after = await getPost(post.id);
    assert.equal(after.content, 'Sale ends Sunday at midnight');
    assert.equal(after.platform_options.bluesky?.content, 'Sale ends Sunday at midnight 🦋');
    assert.equal(after.status, 'scheduled');
    assert.equal(after.approval?.status, 'approved');
  });

  test('approving a request edited since the page loaded is refused visibly with its code', async () => {
    const post = await heldPost('Office closed on Friday');
    await page.goto(`${url}/app/approvals/${post.approval!.item_id}`);
    await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    const edited = await api<Post>('PATCH', `/posts/${post.id}`, { content: 'Office closed on Friday and Monday' });
    assert.equal(edited.status, 200, JSON.stringify(edited.data));
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const notice = page.getByTestId('stale-notice');
    await notice.waitFor();
    const text = await notice.innerText();
    assert.match(text, /changed since you opened it/);
    assert.match(text, /PUBLIC_API_VERSION_CONFLICT/);
    await pollFor(
      'the page reloaded the superseded request',
      async () => (await page.getByTestId('item-status').innerText()) === 'superseded',
    );
    await page.getByRole('link', { name: 'open the current request' }).waitFor();
    assert.equal((await getPost(post.id)).status, 'pending_approval', 'nothing was approved');
  });

  test('a batch from the list with a request edited meanwhile says so, decides the rest, and reloads', async () => {
    const changed = await heldPost('Newsletter goes out at noon');
    const kept = await heldPost('Team photo from the offsite');
    await page.goto(`${url}/app/approvals`);
    await page.getByLabel(`Select “${changed.content}”`).check();
    await page.getByLabel(`Select “${kept.content}”`).check();
    assert.equal((await api('PATCH', `/posts/${changed.id}`, { content: 'Newsletter goes out at one' })).status, 200);
    await page.getByRole('button', { name: 'Approve selected (2)' }).click();
    const conflict = page.getByTestId('batch-conflict');
    await conflict.waitFor();
    const text = await conflict.innerText();
    assert.match(text, /1 selected request was not decided/);
    assert.match(text, /Newsletter goes out at noon/);
    assert.match(text, /PUBLIC_API_VERSION_CONFLICT/);
    await page.getByRole('link', { name: 'Newsletter goes out at one' }).waitFor();
    await pollFor('the other one approved', async () => (await getPost(kept.id)).status === 'scheduled', WAIT_MS);
    assert.equal((await getPost(changed.id)).status, 'pending_approval');
  });

  test('the policy page shows each option with its sentence, saves, and refuses a stale save visibly', async () => {
    await page.goto(`${url}/app/settings/approvals`);
    await page.getByRole('heading', { name: 'Approval policy', level: 1 }).waitFor();
    const everyone = page.getByLabel(/^Everyone: Every role waits/);
    assert.equal(await everyone.isChecked(), true);
    await session.audit(page, 'approvals-policy');
    await page.getByLabel('Expire after (minutes)').fill('4320');
    await page.getByRole('button', { name: 'Save the policy' }).click();
    await page.getByText('Saved.').waitFor();
    const stored = await api<Policy>('GET', '/approvals/policy');
    assert.equal(stored.data.expire_after, 4320 * 60);
    // The form is mounted again when the saved policy is read back: wait for that one before changing it.
    await page.locator('p.meta', { hasText: new RegExp(`^Version ${stored.data.version},`) }).waitFor();

    await page.getByLabel(/^Members: What a member submits waits/).check();
    const behind = await api<Policy>('PATCH', '/approvals/policy', {
      version: stored.data.version,
      require_reject_reason: true,
    });
    assert.equal(behind.status, 200);
    await page.getByRole('button', { name: 'Save the policy' }).click();
    const conflict = page.getByTestId('policy-conflict');
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /PUBLIC_API_VERSION_CONFLICT/);
    assert.equal((await api<Policy>('GET', '/approvals/policy')).data.mode, 'everyone', 'not overwritten');
  });

  test('at phone width the queue, an item and the policy fit without sideways scrolling', async () => {
    const post = await heldPost('Holiday opening hours are online');
    const phone = await session.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${url}/app/approvals`);
    await phone.getByRole('link', { name: post.content }).waitFor();
    await noSidewaysScroll(phone, 'queue');
    await session.audit(phone, 'approvals-queue-phone');
    await phone.goto(`${url}/app/approvals/${post.approval!.item_id}`);
    await phone.getByRole('article', { name: 'Preview on x' }).waitFor();
    await noSidewaysScroll(phone, 'item');
    await session.audit(phone, 'approvals-item-phone');
    await phone.goto(`${url}/app/settings/approvals`);
    await phone.getByRole('button', { name: 'Save the policy' }).waitFor();
    await noSidewaysScroll(phone, 'policy');
    await session.audit(phone, 'approvals-policy-phone');
    await phone.close();
  });
});
