// The dashboard at /app (docs/dashboard.md) in Debian's Chromium against a running `herald serve`, as a person
// uses it: sign in; create a key and see it exactly once; call the API with it; compose and schedule a post with
// an image on two sandbox platforms and see it published with its links; rotate the key and see the old one
// refused; invite a member, sign in as them and see what their role forbids. Every page passes axe-core with no
// serious or critical violation and does not shift, and its screenshot is kept (the folder is printed).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  OWNER,
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { sidewaysOverflow } from '../helpers/dashboard-browser.ts';
import { wallClock } from '../helpers/dashboard-data.ts';
import { png } from '../helpers/media-fixtures.ts';
import { pollFor } from '../helpers/poll.ts';

const MEMBER = { email: 'member@test.local', name: 'Mia Member', password: 'another long passphrase' };
const ZONE = 'Europe/Paris';

let session: DashboardSession;
let t: TestApp;
let url: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let tmp: string;
let firstKey = '';
let firstKeyName = '';

const audit = (p: Page, name: string) => session.audit(p, name);
const signIn = (p: Page, email: string, password: string) => session.signIn(p, email, password);

function api(pathname: string, key: string): Promise<Response> {
  return fetch(`${url}/v1${pathname}`, { headers: { authorization: `Bearer ${key}` } });
}

/** The next whole minute at least 20 s away, as a datetime-local value in ZONE. */
function nextMinuteIn(zone: string): string {
  return wallClock(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000, zone);
}

describe('the dashboard in a browser', { skip }, () => {
  before(async () => {
    session = await startDashboard({ name: 'dashboard', timezoneId: ZONE });
    ({ t, url, browser, context, page } = session);
    tmp = session.tmp;
  });

  after(async () => {
    await session?.stop();
  });

  test('signs in with the account MCP sign-in uses', async () => {
    await page.goto(`${url}/app/`);
    await page.getByRole('heading', { name: 'Sign in to Herald' }).waitFor();
    await audit(page, 'sign-in');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /req_/, 'the refusal names its request id');
    await signIn(page, OWNER.email, OWNER.password);
    assert.match(await page.getByRole('note').innerText(), /Test workspace/, 'the test-mode banner is shown');
    await audit(page, 'posts-empty');
  });

  test('creates a key, shows it exactly once, and the key calls the API', async () => {
    await page.goto(`${url}/app/settings/keys`);
    await page.getByRole('heading', { name: 'Ids for your integrations' }).waitFor();
    assert.match(await page.getByTestId('value-Workspace id').innerText(), new RegExp(t.owner.workspaceId));
    await page.getByRole('button', { name: 'Create a key' }).click();
    firstKeyName = 'CI pipeline';
    await page.getByLabel('Name').fill(firstKeyName);
    for (const scope of ['posts:read', 'posts:write', 'media:write']) {
      await page.locator(`input[name="scope"][value="${scope}"]`).check();
    }
    await audit(page, 'keys-create-form');
    await page.getByRole('button', { name: 'Create the key' }).click();
    firstKey = (await page.getByTestId('value-secret').innerText()).trim();
    assert.match(firstKey, /^hk_(test|live)_\w+$/);
    assert.match(await page.locator('.secret-once').innerText(), /only time/);
    await audit(page, 'keys-shown-once');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.ok(!(await page.content()).includes(firstKey), 'gone from the page once stored');
    await page.reload();
    await page.getByRole('row', { name: new RegExp(firstKeyName) }).waitFor();
    assert.ok(!(await page.content()).includes(firstKey), 'never shown again');
    const row = await page.getByRole('row', { name: new RegExp(firstKeyName) }).innerText();
    assert.ok(row.includes(firstKey.slice(-4)), 'the list shows the last four');
    const listed = await api('/posts', firstKey);
    assert.equal(listed.status, 200, await listed.clone().text());
  });

  test('composes and schedules a post with an image on two sandbox platforms, and sees it published', async () => {
    const image = path.join(tmp, 'launch.png');
    await writeFile(image, png(64, 48));
    await page.goto(`${url}/app/posts/new`);
    await page.getByLabel('Text', { exact: true }).fill('Herald 2.0 ships today 🚀 https://example.com/release');
    for (const platform of ['x', 'bluesky']) await page.getByLabel(`${platform} (sandbox)`).check();
    assert.match(await page.getByRole('article', { name: 'Preview on x' }).innerText(), /\/ 280 weighted characters/);
    assert.match(await page.getByRole('article', { name: 'Preview on bluesky' }).innerText(), /\/ 300 graphemes/);
    await page.getByLabel('Add an image or video').setInputFiles(image);
    await page.locator('.media li').filter({ hasText: 'launch.png' }).waitFor();
    await page.getByLabel('Schedule').check();
    await page.getByLabel('Date and time').fill(nextMinuteIn(ZONE));
    assert.equal(await page.getByLabel('Time zone').inputValue(), ZONE);
    await audit(page, 'composer');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.waitForURL(/\/app\/posts\/post_/);
    const id = page.url().split('/').at(-1)!;
    await page.getByTestId('post-status').waitFor();
    await pollFor(
      'the post published, seen on its page',
      async () => (await page.getByTestId('post-status').innerText()) === 'published',
      150_000,
      500,
    );
    for (const platform of ['x', 'bluesky']) {
      const link = page.getByRole('link', { name: `View on the ${platform} sandbox` });
      assert.match((await link.getAttribute('href')) ?? '', /^https?:\/\//);
    }
    await audit(page, 'post-published');
    const post = (await (await api(`/posts/${id}`, firstKey)).json()) as {
      data: { media: unknown[]; timezone: string };
    };
    assert.equal(post.data.media.length, 1);
    assert.equal(post.data.timezone, ZONE);
    await page.goto(`${url}/app/posts`);
    await page.getByRole('link', { name: /Herald 2.0 ships today/ }).waitFor();
    await audit(page, 'posts-list');
  });

  test('the other pages: connections, webhooks, account, and a phone-width posts list', async () => {
    await page.goto(`${url}/app/connections`);
    await page.getByRole('button', { name: 'Connect X' }).waitFor();
    assert.match(await page.locator('table').innerText(), /sandbox/);
    await audit(page, 'connections');
    await page.goto(`${url}/app/webhooks`);
    await page.getByRole('heading', { name: 'Add an endpoint' }).waitFor();
    await audit(page, 'webhooks');
    await page.goto(`${url}/app/settings/account`);
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await audit(page, 'account');
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 375, height: 740 });
    await phone.goto(`${url}/app/posts`);
    await phone.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    const overflow = await sidewaysOverflow(phone);
    assert.ok(overflow <= 0, `no sideways scrolling at phone width (${overflow} px too wide)`);
    await audit(phone, 'posts-phone');
    await phone.close();
  });

  test('rotates the key in three steps; the old key is refused at once, the new one works', async () => {
    await page.goto(`${url}/app/settings/keys`);
    const row = page.getByRole('row', { name: new RegExp(firstKeyName) });
    await row.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('button', { name: 'Create the new key' }).click();
    const newKey = (await page.getByTestId('value-new key').innerText()).trim();
    assert.match(newKey, /^hk_(test|live)_\w+$/);
    await audit(page, 'keys-rotate');
    await page.getByLabel('Everything that used the old key now uses the new one').check();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: /^Revoke .* now$/ }).click();
    await page.getByRole('heading', { name: /^Rotate/ }).waitFor({ state: 'detached' });
    const refused = await pollFor(
      'the old key refused',
      async () => {
        const answer = await api('/posts', firstKey);
        return answer.status === 401 ? ((await answer.json()) as { error: { code: string } }) : undefined;
      },
      WAIT_MS,
    );
    assert.equal(refused.error.code, 'PUBLIC_API_KEY_INVALID');
    assert.equal((await api('/posts', newKey)).status, 200);
  });

  test('invites a member, who signs in from the link and sees what their role forbids', async () => {
    await page.goto(`${url}/app/settings/members`);
    await page.getByRole('row', { name: new RegExp(OWNER.email) }).waitFor();
    await page.getByRole('form', { name: 'Invite someone' }).getByLabel('Email').fill(MEMBER.email);
    await page.getByRole('form', { name: 'Invite someone' }).getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = (await page.getByTestId('value-invite link').innerText()).trim();
    assert.match(link, /\/app\/invite\//);
    await audit(page, 'members');

    const theirs = await browser.newContext({ timezoneId: ZONE, bypassCSP: true });
    theirs.setDefaultTimeout(WAIT_MS);
    const member = await theirs.newPage();
    await member.goto(link);
    await member.getByRole('heading', { name: 'Join a Herald workspace' }).waitFor();
    await member.getByLabel('Your name').waitFor();
    assert.match(await member.locator('main').innerText(), /invited to Sandbox as member/);
    await audit(member, 'invite');
    await member.getByLabel('Your name').fill(MEMBER.name);
    await member.getByLabel(/^Password/).fill(MEMBER.password);
    await member.getByRole('button', { name: 'Accept the invite' }).click();
    await member.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    for (const [where, name] of [
      ['/app/settings/keys', 'member-keys-forbidden'],
      ['/app/settings/members', 'member-members-forbidden'],
      ['/app/webhooks', 'member-webhooks-forbidden'],
    ] as const) {
      await member.goto(`${url}${where}`);
      const alert = member.getByRole('alert').first();
      await alert.waitFor();
      const text = await alert.innerText();
      assert.match(text, /Code [A-Z_]+/, `${where}: the refusal has its code`);
      assert.match(text, /request req_/, `${where}: and its request id`);
      await audit(member, name);
    }
    await theirs.close();
  });
});
