// Creating connect links where it is refused (bad input, a live workspace without the platform's app), and live
// workspaces: the platforms' own consent with the configured app, Mastodon instances typed by the user.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../src/platforms/limits.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { createBrowser, readForm } from './helpers/connect-browser.ts';
import { CLIENT, oauthPlatformsOf } from './helpers/connect-links.ts';

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
        // TikTok's Login Kit names the app `client_key`; every other platform `client_id`.
        assert.equal(
          consent.searchParams.get('client_id') ?? consent.searchParams.get('client_key'),
          `app-${platform}`,
        );
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
