// Instagram Login against the simulator: consent and denial, the code exchange for a long-lived token, replayed,
// expired and mismatched codes, and the refresh of a day-old token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { consentRedirect, failure } from '../../../test/helpers/meta-adapter.ts';
import { createPlatformHttp } from '../http.ts';
import { createPlatformRegistry } from '../registry.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import type { OAuthContext, PlatformSession } from '../types.ts';

describe('instagram login (OAuth)', () => {
  let t = Date.now();
  let sandbox: RunningSandbox;
  let ctx: OAuthContext;
  const adapter = createPlatformRegistry().get('instagram')!;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['instagram'], now: () => t });
    const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('instagram'), timeoutMs: 3000 });
    ctx = {
      http,
      webUrl: sandbox.baseUrl('instagram'),
      sandbox: true,
      app: { clientId: '990602627938098', clientSecret: 'app-secret-1' },
      redirectUri: 'https://herald.example/connect/callback',
    };
  });
  after(() => sandbox.close());

  const consent = (decision: 'approve' | 'deny', username = 'oauth_user'): Promise<URL> =>
    consentRedirect(adapter, ctx, {
      state: 'st4te',
      username,
      decision,
      checkPage: (page) => {
        assert.equal(page.status, 200);
        assert.match(page.text(), /<form[\s\S]*decision[\s\S]*approve[\s\S]*deny/);
      },
    });

  test('authorize → consent → code → long-lived token → the account', async () => {
    const back = await consent('approve');
    assert.equal(back.searchParams.get('state'), 'st4te');
    const credentials = await adapter.oauth!.exchangeCode(ctx, {
      code: back.searchParams.get('code')!,
      codeVerifier: null,
    });
    assert.ok(
      credentials.expiresAt && Date.parse(credentials.expiresAt) - Date.now() > 59 * 86_400_000,
      'a 60-day token',
    );
    const accounts = await adapter.oauth!.accounts(ctx, credentials);
    assert.equal(accounts.length, 1);
    assert.equal(accounts[0]!.account.handle, 'oauth_user');
    assert.match(accounts[0]!.account.accountId, /^\d+$/);
  });

  test('a denied consent comes back with error=access_denied', async () => {
    const back = await consent('deny');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'st4te');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('a code works once: a replay is auth_expired', async () => {
    const code = (await consent('approve')).searchParams.get('code')!;
    await adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const error = await failure(adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null }));
    assert.equal(error.kind, 'auth_expired');
    assert.match(error.message, /has been used/);
  });

  test('a code older than an hour is auth_expired', async () => {
    const code = (await consent('approve')).searchParams.get('code')!;
    t += 3601_000;
    const error = await failure(adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null }));
    assert.equal(error.kind, 'auth_expired');
  });

  test('a code exchanged with another redirect_uri or secret is refused', async () => {
    const code = (await consent('approve')).searchParams.get('code')!;
    assert.equal(
      (
        await failure(
          adapter.oauth!.exchangeCode({ ...ctx, redirectUri: 'https://evil.example/cb' }, { code, codeVerifier: null }),
        )
      ).kind,
      'auth_expired',
    );
    const other = (await consent('approve')).searchParams.get('code')!;
    assert.equal(
      (
        await failure(
          adapter.oauth!.exchangeCode(
            { ...ctx, app: { clientId: ctx.app.clientId, clientSecret: 'not-the-secret' } },
            { code: other, codeVerifier: null },
          ),
        )
      ).kind,
      'auth_expired',
    );
  });

  test('a long-lived token is refreshed once it is a day old; the new one works', async () => {
    const credentials = await adapter.oauth!.exchangeCode(ctx, {
      code: (await consent('approve', 'refresher')).searchParams.get('code')!,
      codeVerifier: null,
    });
    const session: PlatformSession = {
      connection: {
        id: 'c',
        accountId: '0',
        handle: 'refresher',
        baseUrl: ctx.http.baseUrl,
        settings: {},
        sandbox: true,
      },
      credentials,
      http: ctx.http,
      clock: { now: () => new Date(t) },
    };
    assert.equal(
      (await failure(adapter.refreshCredentials(session))).kind,
      'auth_expired',
      'a token younger than 24 h cannot be refreshed',
    );
    t += 25 * 3600_000;
    const fresh = await adapter.refreshCredentials(session);
    assert.notEqual(fresh.accessToken, credentials.accessToken);
    assert.ok(Date.parse(fresh.expiresAt!) > Date.parse(credentials.expiresAt!));
    const me = await adapter.verifyAccount({ ...session, credentials: fresh });
    assert.equal(me.handle, 'refresher');
    t += 61 * 86_400_000;
    assert.equal(
      (await failure(adapter.refreshCredentials({ ...session, credentials: fresh }))).kind,
      'auth_expired',
      'an expired token cannot be refreshed',
    );
  });
});
