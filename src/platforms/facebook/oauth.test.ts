// Facebook Login through the adapter's OAuth capability against the simulator, over real HTTP: the consent page,
// approval and denial, the code exchange with the long-lived exchange, one account per Page, single-use and
// expiring codes, client and redirect checks, and what happens to Page tokens when time passes or the app is removed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlatformHttp } from '../http.ts';
import { createPlatformRegistry } from '../registry.ts';
import {
  isPlatformError,
  type OAuthCapability,
  type OAuthContext,
  type PlatformAdapter,
  type PlatformSession,
} from '../types.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { partMemory } from '../part-memory.ts';

let sandbox: RunningSandbox;
let clock = Date.now();
let adapter: PlatformAdapter;
let oauth: OAuthCapability;
let ctx: OAuthContext;

before(async () => {
  sandbox = await startSandbox({ platforms: ['facebook'], now: () => clock });
  adapter = createPlatformRegistry({ facebook: { apiVersion: 'v23.0' } }).get('facebook')!;
  oauth = adapter.oauth!;
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('facebook'), now: () => clock });
  ctx = {
    http,
    webUrl: sandbox.baseUrl('facebook'),
    sandbox: true,
    app: { clientId: 'app-1', clientSecret: 'secret-1' },
    redirectUri: 'https://herald.example/connect/callback',
  };
});
after(() => sandbox.close());

async function expectAuthError(promise: Promise<unknown>, kind: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isPlatformError(error), String(error));
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

/** Opens the consent page, then does what its form does (sign in as `username`), and returns the redirect. */
async function consent(
  username: string,
  state = `st-${Math.random()}`,
): Promise<{ back: URL; state: string; html: string }> {
  const url = oauth.authorizeUrl(ctx, { state, codeChallenge: null });
  const page = await ctx.http.request({ method: 'GET', path: url });
  assert.equal(page.status, 200);
  const approve = new URL(url);
  approve.searchParams.set('sandbox_username', username);
  const answer = await ctx.http.request({ method: 'GET', path: approve.toString() });
  assert.equal(answer.status, 302);
  return { back: new URL(String(answer.headers.location)), state, html: page.text() };
}

function pageSession(accountId: string, accessToken: string): PlatformSession {
  return {
    connection: { id: 'c', accountId, handle: '', baseUrl: ctx.http.baseUrl, settings: {}, sandbox: true },
    credentials: { accessToken },
    http: ctx.http,
    clock: { now: () => new Date(clock) },
  };
}

describe('Facebook Login against the simulator', () => {
  test('the consent URL is the versioned OAuth dialog with state and the Page scopes, and no PKCE', () => {
    assert.equal(oauth.pkce, false);
    const url = new URL(oauth.authorizeUrl(ctx, { state: 'abc', codeChallenge: null }));
    assert.equal(url.pathname.endsWith('/v23.0/dialog/oauth'), true);
    assert.equal(url.searchParams.get('state'), 'abc');
    assert.equal(url.searchParams.get('client_id'), 'app-1');
    assert.equal(url.searchParams.get('redirect_uri'), ctx.redirectUri);
    assert.ok(url.searchParams.get('scope')!.split(',').includes('pages_manage_posts'));
    assert.equal(url.searchParams.get('code_challenge'), null);
  });

  test('consent → code → long-lived exchange → one connectable account per Page, each with a working Page token', async () => {
    const { back, state, html } = await consent('login_user');
    assert.match(html, /<form[^>]*method="get"/);
    assert.match(html, /value="deny"/);
    assert.equal(back.origin + back.pathname, ctx.redirectUri);
    assert.equal(back.searchParams.get('state'), state);
    const user = await oauth.exchangeCode(ctx, { code: back.searchParams.get('code')!, codeVerifier: null });
    const days = (Date.parse(user.expiresAt!) - clock) / 86_400_000;
    assert.ok(days > 59 && days < 61, `the long-lived user token lasts about 60 days, got ${days}`);
    const accounts = await oauth.accounts(ctx, user);
    assert.deepEqual(
      accounts.map((a) => a.account.handle),
      ['login_user', 'login_user_shop'],
    );
    for (const a of accounts) {
      assert.equal(a.credentials.expiresAt, null, 'Page tokens from a long-lived user token do not expire');
      assert.equal(
        (await adapter.verifyAccount(pageSession(a.account.accountId, a.credentials.accessToken))).accountId,
        a.account.accountId,
      );
    }
    const post = await adapter.publish(
      pageSession(accounts[1]!.account.accountId, accounts[1]!.credentials.accessToken),
      {
        index: 0,
        text: `from the shop page ${clock}`,
        media: [],
        parent: null,
        root: null,
        key: 'k',
        firstSentAt: new Date(clock),
        options: {},
        ...partMemory(),
      },
    );
    assert.ok(post.id.startsWith(`${accounts[1]!.account.accountId}_`));
  });

  test('denying sends the browser back with error=access_denied and the state', async () => {
    const url = new URL(oauth.authorizeUrl(ctx, { state: 'deny-me', codeChallenge: null }));
    // What the consent form's Cancel button submits: the typed username comes along, and the decision wins.
    url.searchParams.set('sandbox_username', 'sandbox_user');
    url.searchParams.set('decision', 'deny');
    const answer = await ctx.http.request({ method: 'GET', path: url.toString() });
    assert.equal(answer.status, 302);
    const back = new URL(String(answer.headers.location));
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('error_reason'), 'user_denied');
    assert.equal(back.searchParams.get('state'), 'deny-me');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('a code works once: the replay is refused (100/36009) as auth_expired', async () => {
    const { back } = await consent('replay_user');
    const code = back.searchParams.get('code')!;
    await oauth.exchangeCode(ctx, { code, codeVerifier: null });
    await expectAuthError(oauth.exchangeCode(ctx, { code, codeVerifier: null }), 'auth_expired', /36009/);
  });

  test('a code older than ten minutes is refused (100/36007)', async () => {
    const { back } = await consent('slow_user');
    clock += 11 * 60_000;
    await expectAuthError(
      oauth.exchangeCode(ctx, { code: back.searchParams.get('code')!, codeVerifier: null }),
      'auth_expired',
      /36007/,
    );
  });

  test('another redirect_uri (36008) or another app than the one consented to is refused', async () => {
    const { back } = await consent('mixup_user');
    const code = back.searchParams.get('code')!;
    await expectAuthError(
      oauth.exchangeCode({ ...ctx, redirectUri: 'https://elsewhere.example/cb' }, { code, codeVerifier: null }),
      'auth_expired',
      /36008/,
    );
    await expectAuthError(
      oauth.exchangeCode(
        { ...ctx, app: { clientId: 'app-2', clientSecret: 'secret-1' } },
        { code, codeVerifier: null },
      ),
      'permanent',
      /client secret/,
    );
    await expectAuthError(
      oauth.exchangeCode({ ...ctx, app: { clientId: 'app-1', clientSecret: null } }, { code, codeVerifier: null }),
      'permanent',
      /app secret/,
    );
  });

  test('a short-lived user token expires in hours; the Page tokens of the long-lived one outlive it', async () => {
    const { back } = await consent('aging_user');
    const user = await oauth.exchangeCode(ctx, { code: back.searchParams.get('code')!, codeVerifier: null });
    const [page] = await oauth.accounts(ctx, user);
    const short = await ctx.http.request({
      method: 'GET',
      path: '/v23.0/oauth/access_token',
      query: {
        client_id: 'app-1',
        client_secret: 'secret-1',
        redirect_uri: ctx.redirectUri,
        code: (await consent('aging_user')).back.searchParams.get('code')!,
      },
    });
    const shortToken = short.json<{ access_token: string; expires_in: number }>();
    assert.ok(shortToken.expires_in <= 4 * 3600);
    clock += 3 * 3600_000;
    await expectAuthError(oauth.accounts(ctx, { accessToken: shortToken.access_token }), 'auth_expired', /190\/463/);
    assert.equal(
      (await adapter.verifyAccount(pageSession(page!.account.accountId, page!.credentials.accessToken))).accountId,
      page!.account.accountId,
    );
  });

  test('removing the app (DELETE /me/permissions) makes its Page tokens fail with 190/458 → reconnect', async () => {
    const { back } = await consent('leaving_user');
    const user = await oauth.exchangeCode(ctx, { code: back.searchParams.get('code')!, codeVerifier: null });
    const [page] = await oauth.accounts(ctx, user);
    const removed = await ctx.http.request({
      method: 'DELETE',
      path: '/v23.0/me/permissions',
      query: { access_token: user.accessToken },
    });
    assert.deepEqual(removed.json(), { success: true });
    await expectAuthError(
      adapter.verifyAccount(pageSession(page!.account.accountId, page!.credentials.accessToken)),
      'auth_expired',
      /190\/458/,
    );
  });
});
