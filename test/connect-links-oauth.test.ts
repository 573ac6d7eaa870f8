// Connect links end to end against each OAuth platform's simulator: consent (approve, deny, choose an account), the
// code exchange, and every way a flow must fail cleanly (state mismatch, another browser, replays, expired links).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../src/platforms/limits.ts';
import { deleteEndedConnectLinks } from '../src/features/connections/connect.repo.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { createBrowser, readForm } from './helpers/connect-browser.ts';
import { CLIENT, connectLinkRequests, oauthPlatformsOf, toAuthorize } from './helpers/connect-links.ts';

let t: TestApp;
let sandbox: RunningSandbox;
let key: string;
let oauthPlatforms: PlatformName[];

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url });
  key = await t.key();
  oauthPlatforms = oauthPlatformsOf(t, sandbox);
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { createLink } = connectLinkRequests(() => ({ t, key }));

async function events(type: string): Promise<Array<{ data: { id: string } }>> {
  const { rows } = await t.container.pool.query('SELECT data FROM events WHERE workspace_id = $1 AND type = $2', [
    t.owner.workspaceId,
    type,
  ]);
  return rows as Array<{ data: { id: string } }>;
}

describe('connect links: the whole flow per OAuth platform, against its simulator', () => {
  test('approve → back on redirect_url with the connection_id; the connection is active, sandbox, tokenless; connection.connected emitted', async () => {
    assert.ok(oauthPlatforms.length >= 2, `OAuth platforms: ${oauthPlatforms.join(', ')}`);
    for (const platform of oauthPlatforms) {
      const browser = createBrowser(t);
      const link = await createLink(platform);
      assert.match(link.url, /^http:\/\/herald\.test\/connect\//);
      const authorize = await toAuthorize(browser, link.url);
      assert.ok(authorize.searchParams.get('state'), `${platform}: state sent`);
      if (t.container.platforms.get(platform)!.oauth!.pkce)
        assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256', `${platform}: PKCE S256`);
      authorize.searchParams.set('sandbox_username', `ada_${platform}`);
      let end = await browser.go(authorize.toString(), { stopAt: CLIENT });
      if (end.status === 200 && /name="account_id"/.test(end.text)) {
        // The consent covers several accounts (Pages, business accounts): the choice page, first account.
        const accountId = /name="account_id" value="([^"]+)"/.exec(end.text)![1]!;
        end = await browser.go('http://herald.test/connect/choose', {
          method: 'POST',
          form: { ...readForm(end).fields, account_id: accountId },
          stopAt: CLIENT,
        });
      }
      const back = new URL(end.location ?? 'http://none');
      assert.equal(back.origin + back.pathname, CLIENT, `${platform}: ${end.status} ${end.text.slice(0, 300)}`);
      const id = back.searchParams.get('connection_id')!;
      assert.match(id ?? '', /^conn_/, `${platform}: came back to ${back.toString()}`);
      assert.equal(back.searchParams.get('connect_link_id'), link.id);
      const got = await t.inject({ url: `/v1/connections/${id}`, key });
      assert.equal(got.statusCode, 200);
      const c = got.json().data;
      assert.equal(c.platform, platform);
      assert.equal(c.status, 'active');
      assert.equal(c.sandbox, true);
      assert.ok(c.account_id && c.handle, `${platform}: the account looked up`);
      // Member sign-ins connect the member; Pages and business accounts have names of their own.
      if (platform === 'x' || platform === 'mastodon') assert.equal(c.handle.split('@')[0], `ada_${platform}`);
      assert.ok('avatar_url' in c);
      assert.doesNotMatch(got.body, /access_?token|refresh_?token|credentials/i);
      assert.ok(
        (await events('connection.connected')).some((e) => e.data.id === id),
        `${platform}: connection.connected`,
      );
    }
  });

  test('a consent covering several accounts (Pages, business accounts) asks which one; a forged choice is refused', async () => {
    // X's consent covers one account; this test makes it cover two, as Facebook's and Instagram's do.
    const oauth = t.container.platforms.get('x')!.oauth!;
    const original = oauth.accounts;
    oauth.accounts = async (ctx, credentials) => {
      const [member] = await original(ctx, credentials);
      return [
        member!,
        {
          account: { accountId: `${member!.account.accountId}-page`, handle: 'brand_page', displayName: 'Brand Page' },
          credentials,
        },
      ];
    };
    try {
      const browser = createBrowser(t);
      const link = await createLink('x');
      const authorize = await toAuthorize(browser, link.url);
      authorize.searchParams.set('sandbox_username', 'page_admin');
      const choice = await browser.go(authorize.toString(), { stopAt: CLIENT });
      assert.equal(choice.status, 200);
      assert.match(choice.text, /Which X account/);
      assert.match(choice.text, /Brand Page/);
      const form = readForm(choice);
      const forged = await browser.go(form.action, {
        method: 'POST',
        form: { ...form.fields, account_id: 'someone-else' },
        stopAt: CLIENT,
      });
      assert.equal(new URL(forged.location!).searchParams.get('error'), 'account_required');
      // The refused choice ended nothing: the link is still waiting for a valid one.
      const pageId = /value="([^"]+-page)"/.exec(choice.text)![1]!;
      const end = await browser.go(form.action, {
        method: 'POST',
        form: { ...form.fields, account_id: pageId },
        stopAt: CLIENT,
      });
      const id = new URL(end.location!).searchParams.get('connection_id');
      assert.equal((await t.inject({ url: `/v1/connections/${id}`, key })).json().data.handle, 'brand_page');
      const again = await browser.go(form.action, {
        method: 'POST',
        form: { ...form.fields, account_id: pageId },
        stopAt: CLIENT,
      });
      assert.equal(new URL(again.location!).searchParams.get('error'), 'invalid_state', 'a choice is made once');
    } finally {
      oauth.accounts = original;
    }
  });

  test('the simulators show a consent page; Cancel sends the user back with error=access_denied', async () => {
    // LinkedIn cancels with its own error=user_cancelled_authorize, which the service reports as access_denied.
    for (const platform of oauthPlatforms.filter((p) => p === 'x' || p === 'mastodon' || p === 'linkedin')) {
      const browser = createBrowser(t);
      const link = await createLink(platform);
      const consent = await browser.go((await toAuthorize(browser, link.url)).toString());
      assert.equal(consent.status, 200);
      assert.match(consent.text, /Authorize app/);
      const form = readForm(consent);
      const end = await browser.go(form.action, {
        method: 'POST',
        form: { ...form.fields, decision: 'deny' },
        stopAt: CLIENT,
      });
      const back = new URL(end.location!);
      assert.equal(back.searchParams.get('error'), 'access_denied', platform);
      assert.equal(back.searchParams.get('connection_id'), null);
      // The link is spent: opening it again says so.
      const again = await browser.go(link.url, { stopAt: CLIENT });
      assert.equal(new URL(again.location!).searchParams.get('error'), 'link_used');
    }
  });

  test('the consent page approves as the username typed in', async () => {
    const browser = createBrowser(t);
    const link = await createLink('x');
    const consent = await browser.go((await toAuthorize(browser, link.url)).toString());
    const form = readForm(consent);
    const end = await browser.go(form.action, {
      method: 'POST',
      form: { ...form.fields, sandbox_username: 'typed_name', decision: 'approve' },
      stopAt: CLIENT,
    });
    const id = new URL(end.location!).searchParams.get('connection_id');
    assert.equal((await t.inject({ url: `/v1/connections/${id}`, key })).json().data.handle, 'typed_name');
  });

  test('a replayed callback is refused (link_used); an unknown state is refused with a page (invalid_state)', async () => {
    const browser = createBrowser(t);
    const link = await createLink('x');
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'replayer');
    const callback = await browser.go(authorize.toString(), { stopAt: 'http://herald.test/connect/callback' });
    const first = await browser.go(callback.location!, { stopAt: CLIENT });
    assert.match(new URL(first.location!).searchParams.get('connection_id')!, /^conn_/);
    const replay = await browser.go(callback.location!, { stopAt: CLIENT });
    assert.equal(new URL(replay.location!).searchParams.get('error'), 'link_used');

    const forged = new URL(callback.location!);
    forged.searchParams.set('state', 'not-a-state');
    const mismatch = await browser.request('GET', forged.toString());
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.text, /invalid_state/);
    assert.match(mismatch.text, /<html/);
  });

  test('a callback from another browser (no binding cookie) is refused with invalid_state on a Herald page', async () => {
    const browser = createBrowser(t);
    const link = await createLink('x');
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'victim');
    const callback = await browser.go(authorize.toString(), { stopAt: 'http://herald.test/connect/callback' });
    const other = createBrowser(t);
    const end = await other.go(callback.location!, { stopAt: CLIENT });
    // The link is not spent (test/security/connect-binding.test.ts): the client hears of no ending.
    assert.equal(end.status, 400);
    assert.equal(end.location, undefined);
    assert.match(end.text, /invalid_state/);
  });

  test('a code replayed into another link is refused by the platform (exchange_failed), and nothing is connected', async () => {
    const browser = createBrowser(t);
    const a = await createLink('x');
    const authorizeA = await toAuthorize(browser, a.url);
    authorizeA.searchParams.set('sandbox_username', 'first_use');
    const callbackA = new URL(
      (await browser.go(authorizeA.toString(), { stopAt: 'http://herald.test/connect/callback' })).location!,
    );
    await browser.go(callbackA.toString(), { stopAt: CLIENT });
    const before = (await t.inject({ url: '/v1/connections?platform=x&limit=100', key })).json().data.items.length;
    const b = await createLink('x');
    const stateB = (await toAuthorize(browser, b.url)).searchParams.get('state')!;
    const replay = new URL(callbackA);
    replay.searchParams.set('state', stateB);
    const end = await browser.go(replay.toString(), { stopAt: CLIENT });
    assert.equal(new URL(end.location!).searchParams.get('error'), 'exchange_failed');
    assert.equal(
      (await t.inject({ url: '/v1/connections?platform=x&limit=100', key })).json().data.items.length,
      before,
    );
  });

  test('an expired link is refused: back with error=link_expired, or a page when there is no redirect_url', async () => {
    const browser = createBrowser(t);
    const link = await createLink('x');
    await t.container.pool.query(`UPDATE connect_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      link.id,
    ]);
    const end = await browser.go(link.url, { stopAt: CLIENT });
    assert.equal(new URL(end.location!).searchParams.get('error'), 'link_expired');
    const bare = await createLink('x', { redirect_url: undefined });
    await t.container.pool.query(`UPDATE connect_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      bare.id,
    ]);
    const page = await browser.go(bare.url);
    assert.equal(page.status, 400);
    assert.match(page.text, /link_expired/);
    const unknown = await browser.go('http://herald.test/connect/no-such-token');
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /link_invalid/);
    // Housekeeping forgets links that ended (here: at once; the job waits a day), never an open one.
    const open = await createLink('x');
    await deleteEndedConnectLinks(t.container.pool, 0);
    const { rows } = await t.container.pool.query('SELECT id FROM connect_links WHERE id = ANY($1)', [
      [link.id, bare.id, open.id],
    ]);
    assert.deepEqual(
      rows.map((r) => r.id),
      [open.id],
    );
  });

  test('without redirect_url the flow ends on a Herald page naming the account', async () => {
    const browser = createBrowser(t);
    const link = await createLink('mastodon', { redirect_url: undefined });
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'pagefinish');
    const end = await browser.go(authorize.toString());
    assert.equal(end.status, 200);
    assert.match(end.text, /Account connected/);
    assert.match(end.text, /pagefinish/);
  });
});
