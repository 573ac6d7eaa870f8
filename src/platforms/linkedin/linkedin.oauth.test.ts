// LinkedIn's OAuth capability against the simulator: the consent page, approval and cancellation, replayed and
// expired codes, refresh without rotation up to a year, revocation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rejects } from '../../../test/helpers/adapter-contract.ts';
import { createPlatformRegistry } from '../registry.ts';
import type { Credentials, OAuthContext, PlatformSession } from '../types.ts';
import { currentVersion, rig, type Rig } from './linkedin.fixture.ts';

const DAY = 24 * 3600_000;

describe('LinkedIn OAuth against the simulator', () => {
  let r: Rig;
  let ctx: OAuthContext;
  before(async () => {
    r = await rig();
    ctx = {
      http: r.http,
      webUrl: r.http.baseUrl,
      sandbox: true,
      app: { clientId: 'app-123', clientSecret: 'secret-456' },
      redirectUri: 'https://herald.example/connect/callback',
    };
  });
  after(() => r.sandbox.close());

  /** Follows the consent URL as the browser would, approving (as `username`) or cancelling. */
  async function consent(decision: { username: string } | 'deny'): Promise<URL> {
    const url = new URL(r.adapter.oauth!.authorizeUrl(ctx, { state: 'st-1', codeChallenge: null }));
    // The consent page posts its form back to the authorize path: Cancel sends `decision=deny`.
    const res =
      decision === 'deny'
        ? await r.http.request({
            method: 'POST',
            path: url.toString(),
            form: { decision: 'deny', sandbox_username: 'someone' },
          })
        : await r.http.request({
            method: 'GET',
            path: (url.searchParams.set('sandbox_username', decision.username), url.toString()),
          });
    assert.equal(res.status, 302, res.text());
    return new URL(String(res.headers.location));
  }

  test("the consent URL is LinkedIn's authorization page, which shows an allow / cancel form", async () => {
    const url = new URL(r.adapter.oauth!.authorizeUrl(ctx, { state: 'st-1', codeChallenge: null }));
    assert.equal(url.pathname.endsWith('/oauth/v2/authorization'), true);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      response_type: 'code',
      client_id: 'app-123',
      redirect_uri: ctx.redirectUri,
      state: 'st-1',
      scope: r.adapter.oauth!.scopes.join(' '),
    });
    assert.equal(r.adapter.oauth!.pkce, false);
    const page = await r.http.request({ method: 'GET', path: url.toString() });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.text(), /<form method="post"/);
    assert.match(page.text(), /name="decision" value="approve"/);
    assert.match(page.text(), /name="decision" value="deny"/);
  });

  test('approve → code → exchange → accounts: the member and their page, with 60-day credentials', async () => {
    const back = await consent({ username: 'oauth_member' });
    assert.equal(back.searchParams.get('state'), 'st-1');
    const credentials = await r.adapter.oauth!.exchangeCode(ctx, {
      code: back.searchParams.get('code')!,
      codeVerifier: null,
    });
    assert.ok(credentials.refreshToken);
    const days = (Date.parse(credentials.expiresAt!) - Date.now()) / DAY;
    assert.ok(days > 59 && days <= 60, `expires in ${days} days`);
    const accounts = await r.adapter.oauth!.accounts(ctx, credentials);
    assert.deepEqual(
      accounts.map((a) => a.account.accountId.replace(/:[^:]+$/, '')),
      ['urn:li:person', 'urn:li:organization'],
    );
    assert.equal(accounts[0]!.account.displayName, 'oauth member');
  });

  test("a cancelled consent comes back with LinkedIn's error and no code", async () => {
    const back = await consent('deny');
    assert.equal(back.searchParams.get('error'), 'user_cancelled_authorize');
    assert.equal(back.searchParams.get('state'), 'st-1');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('a replayed code, a code for another redirect URI or client, and an expired code are refused (auth_expired)', async () => {
    const code = (await consent({ username: 'replayer' })).searchParams.get('code')!;
    await rejects(
      r.adapter.oauth!.exchangeCode(
        { ...ctx, redirectUri: 'https://elsewhere.example/cb' },
        { code, codeVerifier: null },
      ),
      'auth_expired',
    );
    await rejects(
      r.adapter.oauth!.exchangeCode(
        { ...ctx, app: { clientId: 'other-app', clientSecret: 'x' } },
        { code, codeVerifier: null },
      ),
      'auth_expired',
    );
    await r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const replay = await rejects(r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null }), 'auth_expired');
    assert.equal(replay.platformStatus, 400);
    const late = (await consent({ username: 'slowpoke' })).searchParams.get('code')!;
    r.shift(31 * 60_000);
    try {
      await rejects(r.adapter.oauth!.exchangeCode(ctx, { code: late, codeVerifier: null }), 'auth_expired');
    } finally {
      r.shift(-31 * 60_000);
    }
  });

  test('an expired access token is refreshed; LinkedIn keeps the same refresh token (no rotation); revoked tokens stop working', async () => {
    const code = (await consent({ username: 'refresher' })).searchParams.get('code')!;
    const credentials: Credentials = await r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const adapter = createPlatformRegistry({
      linkedin: { apiVersion: currentVersion(), clientId: 'app-123', clientSecret: 'secret-456' },
    }).get('linkedin')!;
    const account = (await r.adapter.oauth!.accounts(ctx, credentials))[0]!.account;
    const session: PlatformSession = {
      ...r.session,
      connection: { ...r.session.connection, accountId: account.accountId },
      credentials,
    };
    r.shift(61 * DAY);
    try {
      await rejects(adapter.verifyAccount(session), 'auth_expired');
      const renewed = await adapter.refreshCredentials(session);
      assert.notEqual(renewed.accessToken, credentials.accessToken);
      assert.equal(renewed.refreshToken, credentials.refreshToken, 'the refresh token is not rotated');
      assert.equal((await adapter.verifyAccount({ ...session, credentials: renewed })).accountId, account.accountId);
      // The same refresh token works again (it is not single-use) …
      const again = await adapter.refreshCredentials({ ...session, credentials: renewed });
      // … until a year after the first grant.
      r.shift(305 * DAY);
      await rejects(
        adapter.refreshCredentials({ ...session, credentials: again }),
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
      );
      r.shift(-305 * DAY);
      await r.adapter.oauth!.revoke!(ctx, again);
      await rejects(adapter.verifyAccount({ ...session, credentials: again }), 'auth_expired');
    } finally {
      r.shift(-61 * DAY);
    }
  });

  test('a refresh with another client secret is refused', async () => {
    const code = (await consent({ username: 'wrong_secret' })).searchParams.get('code')!;
    const credentials = await r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const other = createPlatformRegistry({
      linkedin: { apiVersion: currentVersion(), clientId: 'app-123', clientSecret: 'not-the-secret' },
    }).get('linkedin')!;
    await rejects(other.refreshCredentials({ ...r.session, credentials }), 'auth_expired');
  });
});
