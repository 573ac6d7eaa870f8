// The token lifecycle over real HTTP against the simulators: refresh ahead of expiry (the job), refresh on a 401
// during publishing, two concurrent refreshers of a rotating refresh token (exactly one refresh, nothing lost),
// a refused refresh expiring the connection (connection.expired) so that a due post fails with
// PLATFORM_RECONNECT_REQUIRED, reconnecting through a connect link, POST /refresh and DELETE (+force, revoke),
// and no token in any API answer or log line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findConnection } from '../src/features/connections/connections.repo.ts';
import {
  mergeCredentials,
  refreshConnection,
  refreshExpiringConnections,
} from '../src/features/connections/lifecycle.ts';
import { openCredentials, sessionFor } from '../src/features/connections/platform-access.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { createBrowser } from './helpers/connect-browser.ts';
import { pollFor } from './helpers/poll.ts';

let t: TestApp;
let sandbox: RunningSandbox;
let key: string;
const bodies: string[] = [];

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true });
  key = await t.key();
  const inject = t.inject.bind(t);
  t.inject = async (o) => {
    const res = await inject(o);
    bodies.push(res.body);
    return res;
  };
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const deps = () => ({ pool: t.container.pool, access: t.container.platformAccess, logger: t.container.logger });
const row = async (id: string) => (await findConnection(t.container.pool, t.owner.workspaceId, id))!;
const creds = async (id: string) => openCredentials(t.container.keyring, (await row(id)).credentials);

/** A Bluesky account made on the simulator, connected with an app password through the hosted form. */
async function newBluesky(): Promise<string> {
  const pds = sandbox.baseUrl('bluesky');
  const handle = `u${Math.random().toString(36).slice(2, 10)}.test`;
  const post = async (path: string, body: unknown, bearer?: string) =>
    (
      await fetch(`${pds}/xrpc/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify(body),
      })
    ).json() as Promise<Record<string, string>>;
  const created = await post('com.atproto.server.createAccount', {
    handle,
    email: `${handle}@sandbox.invalid`,
    password: 'main-password-123',
  });
  const appPassword = (await post('com.atproto.server.createAppPassword', { name: 'Herald' }, created.accessJwt))
    .password!;
  const link = (
    await t.inject({
      method: 'POST',
      url: '/v1/connections/connect-links',
      key,
      payload: { platform: 'bluesky', redirect_url: 'https://client.example/back' },
    })
  ).json().data;
  const end = await createBrowser(t).go(link.url, {
    method: 'POST',
    form: { identifier: handle, password: appPassword },
    stopAt: 'https://client.example/back',
  });
  return new URL(end.location!).searchParams.get('connection_id')!;
}

/** A fresh sandbox connection of the Sandbox brand (not the default), through the simulator's own sign-in. */
async function newConnection(platform: 'x' | 'mastodon' | 'bluesky'): Promise<string> {
  if (platform === 'bluesky') return newBluesky();
  const link = (
    await t.inject({
      method: 'POST',
      url: '/v1/connections/connect-links',
      key,
      payload: { platform, redirect_url: 'https://client.example/back' },
    })
  ).json().data;
  const browser = createBrowser(t);
  const first = await browser.request('GET', link.url);
  const authorize = new URL(first.location!);
  authorize.searchParams.set('sandbox_username', `u${Math.random().toString(36).slice(2, 10)}`);
  const end = await browser.go(authorize.toString(), { stopAt: 'https://client.example/back' });
  return new URL(end.location!).searchParams.get('connection_id')!;
}

async function postOn(connectionId: string, extra: Record<string, unknown>): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: `lifecycle ${Date.now()} ${Math.random()}`,
      platforms: [(await row(connectionId)).platform],
      connection_ids: [connectionId],
      ...extra,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post_id;
}

async function targetOf(postId: string): Promise<{ status: string; error: { code: string } | null }> {
  return (await t.inject({ url: `/v1/posts/${postId}`, key })).json().data.targets[0];
}

test('a refresh never replaces a good refresh token with an empty one, and keeps the app password', () => {
  const previous = { accessToken: 'a1', refreshToken: 'r1', expiresAt: '2026-01-01T00:00:00.000Z', appPassword: 'pw' };
  assert.deepEqual(
    mergeCredentials(previous, { accessToken: 'a2', refreshToken: '', expiresAt: '2026-01-01T02:00:00.000Z' }),
    { accessToken: 'a2', refreshToken: 'r1', expiresAt: '2026-01-01T02:00:00.000Z', appPassword: 'pw' },
  );
  assert.equal(mergeCredentials(previous, { accessToken: 'a2', refreshToken: null }).refreshToken, 'r1');
  assert.equal(mergeCredentials(previous, { accessToken: 'a2', refreshToken: 'r2' }).refreshToken, 'r2');
});

describe('refreshing', () => {
  test('the job refreshes a token that expires soon, ahead of expiry, and the new token works', async () => {
    for (const platform of ['x', 'bluesky'] as const) {
      const id = await newConnection(platform);
      const before = await creds(id);
      await t.container.pool.query(
        `UPDATE connections SET token_expires_at = now() + interval '2 minutes' WHERE id = $1`,
        [id],
      );
      const tally = await refreshExpiringConnections(deps(), new Date());
      assert.ok(tally.renewed >= 1, JSON.stringify(tally));
      const after = await creds(id);
      assert.notEqual(after.accessToken, before.accessToken, `${platform}: new access token`);
      assert.ok(
        after.refreshToken && after.refreshToken !== before.refreshToken,
        `${platform}: the rotated refresh token is stored`,
      );
      assert.ok(
        (await row(id)).token_expires_at!.getTime() > Date.now() + 60 * 60_000,
        `${platform}: the stored expiry moved ahead`,
      );
      const adapter = t.container.platforms.get(platform)!;
      assert.equal(
        (await adapter.verifyAccount(sessionFor(t.container.platformAccess, await row(id)))).accountId,
        (await row(id)).account_id,
      );
    }
  });

  test('a long-lived token is renewed in the last tenth of its life, not before', async () => {
    const id = await newConnection('x');
    // A 60-day token stored 50 days ago (10 days left): not due. Stored 55 days ago (5 days left): due.
    await t.container.pool.query(
      `UPDATE connections SET token_expires_at = now() + interval '10 days', updated_at = now() - interval '50 days' WHERE id = $1`,
      [id],
    );
    const early = await creds(id);
    await refreshExpiringConnections(deps(), new Date());
    assert.equal((await creds(id)).accessToken, early.accessToken);
    await t.container.pool.query(
      `UPDATE connections SET token_expires_at = now() + interval '5 days', updated_at = now() - interval '55 days' WHERE id = $1`,
      [id],
    );
    await refreshExpiringConnections(deps(), new Date());
    assert.notEqual((await creds(id)).accessToken, early.accessToken);
  });

  test('two concurrent refreshers of a rotating refresh token: one refresh happens, both get the same tokens, nothing is lost', async () => {
    const id = await newConnection('x');
    const stale = await row(id);
    const spentRefresh = openCredentials(t.container.keyring, stale.credentials).refreshToken!;
    const [a, b] = await Promise.all([refreshConnection(deps(), stale), refreshConnection(deps(), stale)]);
    assert.equal(
      a.credentials.accessToken,
      b.credentials.accessToken,
      "the second refresher used the first one's tokens",
    );
    assert.equal((await creds(id)).refreshToken, a.credentials.refreshToken);
    // The old refresh token was spent exactly once: using it again is refused by X …
    const replay = await fetch(`${sandbox.baseUrl('x')}/2/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: spentRefresh,
        client_id: 'herald-sandbox',
      }),
    });
    assert.equal(replay.status, 400);
    // … and the stored one still works.
    const next = await refreshConnection(deps(), await row(id));
    assert.notEqual(next.credentials.refreshToken, a.credentials.refreshToken);
  });

  test('a 401 while publishing refreshes the token once and publishes', async () => {
    const id = await newConnection('x');
    const before = await creds(id);
    sandbox
      .simulator('x')
      .faults.add({ fault: 'expired_token', operation: 'create_post', account: (await row(id)).account_id });
    const postId = await postOn(id, { publish_now: true });
    const target = await pollFor('401 → refresh → published', async () => {
      const tg = await targetOf(postId);
      return ['published', 'failed'].includes(tg.status) ? tg : undefined;
    });
    assert.equal(target.status, 'published', JSON.stringify(target.error));
    assert.notEqual((await creds(id)).accessToken, before.accessToken);
  });

  test('POST /refresh renews an X connection, checks a Mastodon one; a disconnected one is a 409', async () => {
    const x = await newConnection('x');
    const before = await creds(x);
    const res = await t.inject({ method: 'POST', url: `/v1/connections/${x}/refresh`, key });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'active');
    assert.notEqual((await creds(x)).accessToken, before.accessToken);
    const m = await newConnection('mastodon');
    const checked = await t.inject({ method: 'POST', url: `/v1/connections/${m}/refresh`, key });
    assert.equal(checked.statusCode, 200, checked.body);
    assert.equal(checked.json().data.token_expires_at, null);
    assert.equal((await t.inject({ method: 'POST', url: '/v1/connections/conn_nope/refresh', key })).statusCode, 404);
  });
});

describe('expiry and reconnecting', () => {
  test('a refused refresh expires the connection (connection.expired); a post due on it fails with PLATFORM_RECONNECT_REQUIRED; a connect link revives it', async () => {
    const id = await newConnection('x');
    const postId = await postOn(id, { schedule_at: new Date(Date.now() + 3000).toISOString() });
    sandbox.simulator('x').faults.add({ fault: 'expired_token', operation: 'token' });
    const res = await t.inject({ method: 'POST', url: `/v1/connections/${id}/refresh`, key });
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().error.details[0].rule, 'PLATFORM_RECONNECT_REQUIRED');
    assert.equal((await row(id)).status, 'expired');
    const { rows } = await t.container.pool.query(
      `SELECT data FROM events WHERE type = 'connection.expired' AND data->>'id' = $1`,
      [id],
    );
    assert.equal(rows.length, 1);
    const target = await pollFor('due post on an expired connection fails', async () => {
      const tg = await targetOf(postId);
      return tg.status === 'failed' ? tg : undefined;
    });
    assert.equal(target.error!.code, 'PLATFORM_RECONNECT_REQUIRED');

    // Reconnecting the same account through a link renews this connection rather than adding another.
    const account = (await row(id)).handle;
    const link = (
      await t.inject({
        method: 'POST',
        url: '/v1/connections/connect-links',
        key,
        payload: { platform: 'x', redirect_url: 'https://client.example/back' },
      })
    ).json().data;
    const browser = createBrowser(t);
    const authorize = new URL((await browser.request('GET', link.url)).location!);
    authorize.searchParams.set('sandbox_username', account);
    const end = await browser.go(authorize.toString(), { stopAt: 'https://client.example/back' });
    assert.equal(new URL(end.location!).searchParams.get('connection_id'), id);
    assert.equal((await row(id)).status, 'active');
  });
});

describe('DELETE /v1/connections/{id}', () => {
  test('refused while a scheduled post depends on it; force fails that target, revokes the token at X, and emits connection.disconnected', async () => {
    const id = await newConnection('x');
    const token = (await creds(id)).accessToken;
    const postId = await postOn(id, { schedule_at: new Date(Date.now() + 3_600_000).toISOString() });
    const refused = await t.inject({ method: 'DELETE', url: `/v1/connections/${id}`, key });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
    assert.match(refused.json().error.details[0].message, new RegExp(postId));
    const forced = await t.inject({ method: 'DELETE', url: `/v1/connections/${id}?force=true`, key });
    assert.equal(forced.statusCode, 200, forced.body);
    assert.deepEqual(
      [forced.json().data.connection.status, forced.json().data.revoked, forced.json().data.failed_targets],
      ['disconnected', true, 1],
    );
    const target = await targetOf(postId);
    assert.deepEqual([target.status, target.error?.code], ['failed', 'PLATFORM_CONNECTION_UNAVAILABLE']);
    const me = await fetch(`${sandbox.baseUrl('x')}/2/users/me`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(me.status, 401, 'the token was revoked at the platform');
    const { rows } = await t.container.pool.query(
      `SELECT 1 FROM events WHERE type = 'connection.disconnected' AND data->>'id' = $1`,
      [id],
    );
    assert.equal(rows.length, 1);
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/connections/${id}`, key })).statusCode, 409);
    assert.equal(
      (await t.inject({ url: `/v1/connections?status=disconnected&platform=x`, key }))
        .json()
        .data.items.some((c: { id: string }) => c.id === id),
      true,
    );
  });

  test('disconnecting the default hands the default to another account of the brand; Mastodon tokens are revoked too', async () => {
    const m = await newConnection('mastodon');
    const token = (await creds(t.connections.mastodon!)).accessToken;
    const res = await t.inject({ method: 'DELETE', url: `/v1/connections/${t.connections.mastodon}`, key });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.revoked, true);
    const me = await fetch(`${sandbox.baseUrl('mastodon')}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(me.status, 401, 'the token was revoked at the instance');
    const defaults = (await t.inject({ url: '/v1/connections?platform=mastodon&status=active&limit=100', key }))
      .json()
      .data.items.filter((c: { is_default: boolean }) => c.is_default);
    assert.equal(defaults.length, 1);
    assert.notEqual(defaults[0].id, t.connections.mastodon);
    assert.ok(m);
  });
});

test('no token, refresh token or app password appears in any API answer or log line', async () => {
  const { rows } = await t.container.pool.query<{ credentials: Buffer }>(
    `SELECT credentials FROM connections WHERE length(credentials) > 0`,
  );
  const secrets = rows.flatMap((r) => {
    const c = openCredentials(t.container.keyring, r.credentials);
    return [c.accessToken, c.refreshToken, c.appPassword].filter(
      (s): s is string => typeof s === 'string' && s.length > 8,
    );
  });
  assert.ok(secrets.length > 10);
  const logs = t.logs.map((l) => JSON.stringify(l));
  assert.ok(bodies.length > 20 && logs.length > 0);
  for (const secret of secrets) {
    assert.ok(!bodies.some((b) => b.includes(secret)), 'a token in an API answer');
    assert.ok(!logs.some((l) => l.includes(secret)), 'a token in a log line');
  }
});
