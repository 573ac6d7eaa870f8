// Connect links end to end over real HTTP: the hosted /connect pages, each platform's consent on its simulator
// (approve, deny), the code exchange, and every way a flow must fail cleanly (state mismatch, another browser,
// denied consent, a replayed callback, a replayed code, an expired or used link). Platforms with `oauth` are
// taken from the registry, so each new adapter is covered once it is registered.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import type { PlatformName } from '../src/platforms/limits.ts';
import { main } from '../src/cli.ts';
import { openCredentials } from '../src/features/connections/platform-access.ts';
import { deleteEndedConnectLinks } from '../src/features/connections/connect.repo.ts';
import { buildTestApp, sandboxSecret, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { createBrowser, readForm } from './helpers/connect-browser.ts';

const CLIENT = 'https://client.example/connected';

let t: TestApp;
let sandbox: RunningSandbox;
let key: string;
let oauthPlatforms: PlatformName[];

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url });
  key = await t.key();
  oauthPlatforms = t.container.platforms
    .available()
    .filter((p) => t.container.platforms.get(p)?.oauth && sandbox.simulator(p));
});
after(async () => {
  await t.close();
  await sandbox.close();
});

async function createLink(
  platform: string,
  extra: Record<string, unknown> = {},
  k = key,
  workspaceId = t.owner.workspaceId,
): Promise<{ id: string; url: string }> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/connections/connect-links',
    key: k,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { platform, redirect_url: CLIENT, ...extra },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

/** The link's first hop: Herald's redirect to the platform's authorize URL (the binding cookie is now set). */
async function toAuthorize(browser: ReturnType<typeof createBrowser>, url: string): Promise<URL> {
  const first = await browser.request('GET', url);
  assert.equal(first.status, 302, first.text);
  return new URL(first.location!);
}

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

  test('a callback from another browser (no binding cookie) is refused with invalid_state', async () => {
    const browser = createBrowser(t);
    const link = await createLink('x');
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'victim');
    const callback = await browser.go(authorize.toString(), { stopAt: 'http://herald.test/connect/callback' });
    const other = createBrowser(t);
    const end = await other.go(callback.location!, { stopAt: CLIENT });
    assert.equal(new URL(end.location!).searchParams.get('error'), 'invalid_state');
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

describe('connect links: Bluesky app passwords through the hosted form', () => {
  test('handle + app password connect the account; a wrong password shows the form again and the link still works', async () => {
    const pds = sandbox.baseUrl('bluesky');
    const handle = 'formuser.test';
    const created = (await (
      await fetch(`${pds}/xrpc/com.atproto.server.createAccount`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ handle, email: 'f@sandbox.invalid', password: 'main-password-123' }),
      })
    ).json()) as { accessJwt: string };
    const appPassword = (
      (await (
        await fetch(`${pds}/xrpc/com.atproto.server.createAppPassword`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${created.accessJwt}` },
          body: JSON.stringify({ name: 'Herald' }),
        })
      ).json()) as { password: string }
    ).password;
    const browser = createBrowser(t);
    const link = await createLink('bluesky');
    const form = await browser.go(link.url);
    assert.equal(form.status, 200);
    assert.match(form.text, /App password/);
    assert.doesNotMatch(form.text, /name="server_url"/, 'a test workspace signs in on the simulator only');
    // The form's answer redirects to the client: the page's CSP must let the submission end up there.
    const headers = (await t.app.inject({ url: new URL(link.url).pathname })).headers;
    assert.match(String(headers['content-security-policy']), /form-action 'self' https:\/\/client\.example/);
    assert.equal(headers['x-frame-options'], 'DENY');
    const wrong = await browser.go(readForm(form).action, {
      method: 'POST',
      form: { identifier: handle, password: 'wrong-password' },
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /refused/);
    const end = await browser.go(readForm(form).action, {
      method: 'POST',
      form: { identifier: `@${handle}`, password: appPassword },
      stopAt: CLIENT,
    });
    const id = new URL(end.location!).searchParams.get('connection_id');
    const c = (await t.inject({ url: `/v1/connections/${id}`, key })).json().data;
    assert.equal(c.platform, 'bluesky');
    assert.equal(c.handle, handle);
  });
});

describe('POST /v1/connections/connect-links: what is refused', () => {
  test('a live workspace cannot connect a platform whose app is not configured; GET /v1/platforms says so', async () => {
    const live = await t.workspace('live');
    const liveKey = await t.key({ workspaceIds: [live.workspaceId] });
    const res = await t.inject({
      method: 'POST',
      url: '/v1/connections/connect-links',
      key: liveKey,
      payload: { platform: 'x' },
    });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.details[0].rule, 'platform_unavailable');
    assert.match(res.json().error.message, /HERALD_X_CLIENT_ID/);
    const platforms = (await t.inject({ url: '/v1/platforms' })).json().data.items as Array<{
      id: string;
      connect?: { method: string | null; live: { available: boolean }; test: { available: boolean } };
    }>;
    const x = platforms.find((p) => p.id === 'x')!;
    assert.deepEqual([x.connect?.method, x.connect?.live.available, x.connect?.test.available], ['oauth', false, true]);
    const mastodon = platforms.find((p) => p.id === 'mastodon')!;
    assert.equal(mastodon.connect?.live.available, true, 'apps are registered per instance');
    assert.equal(platforms.find((p) => p.id === 'bluesky')!.connect?.method, 'app_password');
  });

  test('bad input gets a clear 4xx: unknown platform, bad redirect_url, foreign brand, server_url in a test workspace, no scope', async () => {
    const post = (payload: unknown, k = key) =>
      t.inject({ method: 'POST', url: '/v1/connections/connect-links', key: k, payload: payload as object });
    assert.equal((await post({ platform: 'myspace' })).json().error.code, 'PUBLIC_API_BODY_INVALID');
    assert.equal((await post({ platform: 'x', extra: 1 })).json().error.code, 'PUBLIC_API_BODY_INVALID');
    const badRedirect = await post({ platform: 'x', redirect_url: 'javascript:alert(1)' });
    assert.equal(badRedirect.statusCode, 422);
    assert.equal(badRedirect.json().error.details[0].rule, 'redirect_url_invalid');
    assert.equal(
      (await post({ platform: 'x', brand_id: 'brand_nope' })).json().error.code,
      'PUBLIC_API_BRAND_FORBIDDEN',
    );
    assert.equal(
      (await post({ platform: 'mastodon', server_url: 'https://mastodon.social' })).json().error.details[0].rule,
      'server_url_unsupported',
    );
    const readOnly = await t.key({ scopes: ['connections:read'] });
    const refused = await post({ platform: 'x' }, readOnly);
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().error.message, /connections:write/);
  });
});

describe("connect links: live workspaces with the platforms' apps configured", () => {
  test("each OAuth platform with a configured app is available live; its link leads to the platform's own consent with that app and Herald's callback", async () => {
    const platforms = oauthPlatforms.filter((p) => !t.container.platforms.get(p)!.oauth!.registerApp);
    const env = Object.fromEntries(
      platforms.flatMap((p) => [
        [`HERALD_${p.toUpperCase()}_CLIENT_ID`, `app-${p}`],
        [`HERALD_${p.toUpperCase()}_CLIENT_SECRET`, `secret-${p}`],
      ]),
    );
    const lt = await buildTestApp({ env });
    try {
      const live = await lt.workspace('live');
      const liveKey = await lt.key({ workspaceIds: [live.workspaceId] });
      const listed = (await lt.inject({ url: '/v1/platforms' })).json().data.items as Array<{
        id: string;
        connect?: { live: { available: boolean } };
      }>;
      for (const platform of platforms) {
        assert.equal(listed.find((p) => p.id === platform)?.connect?.live.available, true, platform);
        const res = await lt.inject({
          method: 'POST',
          url: '/v1/connections/connect-links',
          key: liveKey,
          payload: { platform, redirect_url: CLIENT },
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().data.sandbox, false);
        const open = await lt.app.inject({ url: new URL(res.json().data.url).pathname });
        assert.equal(open.statusCode, 302, `${platform}: ${open.body.slice(0, 200)}`);
        const consent = new URL(String(open.headers.location));
        assert.equal(consent.protocol, 'https:', platform);
        assert.ok(
          !consent.host.includes('herald.test') && !consent.host.includes('127.0.0.1'),
          `${platform}: the real consent host, not the simulator (${consent.host})`,
        );
        assert.equal(consent.searchParams.get('client_id'), `app-${platform}`);
        assert.equal(consent.searchParams.get('redirect_uri'), 'http://herald.test/connect/callback');
        assert.ok(consent.searchParams.get('state'));
        assert.doesNotMatch(
          open.headers.location as string,
          /secret-/,
          `${platform}: the client secret never goes to the browser`,
        );
      }
    } finally {
      await lt.close();
    }
  });
});

describe('connect links: live Mastodon, instance typed by the user', () => {
  test('a private instance is refused by the SSRF guard; an allow-listed one gets one app, reused by the next link', async () => {
    const instance = await startSandbox({ platforms: ['mastodon'], atRoot: true });
    const lt = await buildTestApp({ env: { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' } });
    try {
      const live = await lt.workspace('live');
      const liveKey = await lt.key({ workspaceIds: [live.workspaceId] });
      const blocked = await lt.inject({
        method: 'POST',
        url: '/v1/connections/connect-links',
        key: liveKey,
        payload: { platform: 'mastodon', server_url: 'https://10.0.0.8' },
      });
      assert.equal(blocked.statusCode, 422);
      assert.equal(blocked.json().error.details[0].rule, 'address_blocked');
      for (const username of ['mia', 'noah']) {
        const link = (
          await lt.inject({
            method: 'POST',
            url: '/v1/connections/connect-links',
            key: liveKey,
            payload: { platform: 'mastodon', redirect_url: CLIENT },
          })
        ).json().data;
        const browser = createBrowser(lt);
        const form = await browser.go(link.url);
        assert.match(form.text, /Your server/);
        const blockedForm = await browser.go(readForm(form).action, {
          method: 'POST',
          form: { server_url: 'https://169.254.169.254' },
        });
        assert.equal(blockedForm.status, 400, 'the metadata address is refused on the form too');
        const first = await browser.request('POST', readForm(form).action, { server_url: instance.url });
        assert.equal(first.status, 302, first.text);
        const authorize = new URL(first.location!);
        assert.equal(authorize.origin, instance.url);
        authorize.searchParams.set('sandbox_username', username);
        const end = await browser.go(authorize.toString(), { stopAt: CLIENT });
        const id = new URL(end.location!).searchParams.get('connection_id');
        const c = (
          await lt.inject({
            url: `/v1/connections/${id}`,
            key: liveKey,
            headers: { 'x-herald-workspace-id': live.workspaceId },
          })
        ).json().data;
        assert.equal(c.sandbox, false);
        assert.equal(c.server_url, instance.url);
      }
      const { rows } = await lt.container.pool.query(
        'SELECT count(*)::int AS n FROM platform_apps WHERE platform = $1',
        ['mastodon'],
      );
      assert.equal(rows[0].n, 1, 'one app per instance');
    } finally {
      await lt.close();
      await instance.close();
    }
  });
});

describe('herald connections connect / reseal', () => {
  async function cli(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await main(args, {
      out: (x) => (out += `${x}\n`),
      err: (x) => (err += `${x}\n`),
      env: {
        DATABASE_URL: t.db.connectionString,
        HERALD_SECRET_KEY: TEST_SECRET,
        HERALD_LOG_LEVEL: 'silent',
        HERALD_PUBLIC_URL: 'http://herald.test',
        HERALD_SANDBOX_URL: sandbox.url,
        ...env,
      },
    });
    return { code, out, err };
  }

  test('connect prints a single-use link that walks through the consent; a live workspace without an X app is refused with the reason', async () => {
    const res = await cli([
      'connections',
      'connect',
      'x',
      '--workspace',
      t.owner.workspaceId,
      '--redirect-url',
      CLIENT,
      '--json',
    ]);
    assert.equal(res.code, 0, res.err);
    const link = JSON.parse(res.out);
    const browser = createBrowser(t);
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'from_cli');
    const end = await browser.go(authorize.toString(), { stopAt: CLIENT });
    assert.match(new URL(end.location!).searchParams.get('connection_id')!, /^conn_/);
    const live = await t.workspace('live');
    const refused = await cli(['connections', 'connect', 'x', '--workspace', live.workspaceId]);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /HERALD_X_CLIENT_ID/);
    assert.equal((await cli(['connections', 'connect', 'myspace', '--workspace', t.owner.workspaceId])).code, 2);
  });

  test('reseal re-encrypts every connection with the new key after a rotation, so the old key can go', async () => {
    const rotated = 'rotated-secret-key-0123456789abcdefghijklmnop';
    const res = await cli(['connections', 'reseal', '--json'], {
      HERALD_SECRET_KEY: rotated,
      HERALD_SECRET_KEYS_PREVIOUS: TEST_SECRET,
    });
    assert.equal(res.code, 0, res.err);
    assert.ok(JSON.parse(res.out).resealed > 0);
    const { rows } = await t.container.pool.query<{ credentials: Buffer }>(
      'SELECT credentials FROM connections WHERE length(credentials) > 0',
    );
    for (const r of rows) assert.ok(openCredentials({ current: rotated, previous: [] }, r.credentials).accessToken);
    // Put the test key back for the tests that follow.
    assert.equal(
      (await cli(['connections', 'reseal'], { HERALD_SECRET_KEY: TEST_SECRET, HERALD_SECRET_KEYS_PREVIOUS: rotated }))
        .code,
      0,
    );
  });
});

test('the hosted pages answer any input with a page or a redirect, never a 500 or JSON', async () => {
  const link = await createLink('bluesky');
  const token = new URL(link.url).pathname.split('/').pop()!;
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('', 'access_denied', '%', '\u0000', 'a'.repeat(3000), 'https://10.0.0.1'),
  );
  const fields = fc.dictionary(
    fc.constantFrom(
      'state',
      'code',
      'error',
      'error_description',
      'server_url',
      'identifier',
      'password',
      'account_id',
      'junk',
    ),
    text,
    { maxKeys: 6 },
  );
  const target = fc.constantFrom(
    '/connect/callback',
    '/connect/choose',
    `/connect/${token}`,
    '/connect/unknown-token',
    `/connect/${'x'.repeat(400)}`,
  );
  await fc.assert(
    fc.asyncProperty(
      target,
      fields,
      fc.constantFrom('GET', 'POST'),
      fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
      async (url, body, method, type) => {
        const query = method === 'GET' ? `?${new URLSearchParams(body as Record<string, string>)}` : '';
        const payload =
          method === 'POST'
            ? type === 'application/json'
              ? JSON.stringify(body)
              : new URLSearchParams(body as Record<string, string>).toString()
            : undefined;
        const res = await t.app.inject({
          method: method as 'GET',
          url: url + query,
          headers: payload ? { 'content-type': type } : {},
          payload,
        });
        assert.ok(res.statusCode < 500, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 300 && res.statusCode < 400) assert.ok(res.headers.location);
        else assert.match(String(res.headers['content-type']), /text\/html/, `${method} ${url} ${res.statusCode}`);
      },
    ),
    { numRuns: 150 },
  );
});
