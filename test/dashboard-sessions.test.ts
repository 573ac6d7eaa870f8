// The dashboard's session as a /v1 principal (docs/api.md "Sessions"): signing in over JSON and its throttle, the
// cookie's flags, the CSRF rule on writes, a cookie and a key together refused, the role mapped to scopes, /v1/me
// and its two actions, and the built dashboard served at /app.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { registerDashboard } from '../src/features/dashboard/static.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { createPerson } from './helpers/oauth.ts';
import { signInSession, type Session } from './helpers/dashboard.ts';

let t: TestApp;
let owner: Session;
let member: Session;
const ownerLogin = { email: 'olga@example.com', password: 'olga has a good password' };
const memberLogin = { email: 'mo@example.com', password: 'mo has a fine password' };

before(async () => {
  t = await buildTestApp();
  await createPerson(t, ownerLogin.email, ownerLogin.password, [{ workspaceId: t.owner.workspaceId, role: 'owner' }]);
  await createPerson(t, memberLogin.email, memberLogin.password, [{ workspaceId: t.owner.workspaceId }]);
  owner = await signInSession(t, ownerLogin.email, ownerLogin.password);
  member = await signInSession(t, memberLogin.email, memberLogin.password);
});
after(() => t.close());

describe('signing in over JSON', () => {
  test('a correct password sets an HttpOnly, SameSite=Lax session cookie and answers the CSRF token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: ownerLogin });
    assert.equal(res.statusCode, 200, res.body);
    const cookie = res.cookies.find((c) => c.name === 'herald_session')!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    const body = res.json();
    assert.equal(body.success, true);
    assert.equal(body.data.user.email, ownerLogin.email);
    assert.match(body.data.csrf_token, /\S{20,}/);
    const again = await t.app.inject({
      url: '/app/api/session',
      headers: { cookie: `herald_session=${cookie.value}` },
    });
    assert.equal(again.json().data.csrf_token, body.data.csrf_token);
  });

  test('a wrong password is 401 PUBLIC_API_CREDENTIALS_INVALID; no cookie is 401 on the boot call', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/app/api/session',
      payload: { email: ownerLogin.email, password: 'not the password at all' },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, 'PUBLIC_API_CREDENTIALS_INVALID');
    const boot = await t.app.inject({ url: '/app/api/session' });
    assert.equal(boot.statusCode, 401);
    assert.equal(boot.json().error.code, 'PUBLIC_API_SESSION_INVALID');
  });

  test('five failures from one address make it wait, the right password included, with Retry-After', async () => {
    // The JSON sign-in counts failures in the same table as the HTML form (docs/api.md "Sessions").
    await t.container.pool.query('DELETE FROM login_throttle');
    const attempt = (password: string) =>
      t.app.inject({ method: 'POST', url: '/app/api/session', payload: { email: memberLogin.email, password } });
    for (let i = 1; i <= 5; i++) {
      const res = await attempt(`wrong guess ${i}`);
      assert.equal(res.statusCode, i < 5 ? 401 : 429, `attempt ${i}: ${res.body}`);
    }
    const waiting = await attempt(memberLogin.password);
    assert.equal(waiting.statusCode, 429);
    assert.equal(waiting.json().error.code, 'PUBLIC_API_RATE_LIMITED');
    assert.match(waiting.json().error.message, /Too many failed sign-ins from your network/);
    assert.ok(Number(waiting.headers['retry-after']) >= 1, 'Retry-After names the wait');
    assert.equal(waiting.cookies.length, 0, 'no session is started while waiting');
    await t.container.pool.query('DELETE FROM login_throttle');
    assert.equal((await attempt(memberLogin.password)).statusCode, 200, 'after the wait, the right password works');
  });

  test('a sign-in posted from another origin is refused', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/app/api/session',
      headers: { origin: 'https://evil.example' },
      payload: ownerLogin,
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'PUBLIC_API_CSRF_TOKEN_INVALID');
  });

  test('on an https public URL the session cookie is Secure and __Host- prefixed', async () => {
    const secure = await buildTestApp({ env: { HERALD_PUBLIC_URL: 'https://herald.example' } });
    try {
      await createPerson(secure, ownerLogin.email, ownerLogin.password, [{ workspaceId: secure.owner.workspaceId }]);
      const res = await secure.app.inject({ method: 'POST', url: '/app/api/session', payload: ownerLogin });
      const cookie = res.cookies.find((c) => c.name === '__Host-herald_session')!;
      assert.equal(cookie.secure, true);
      assert.equal(cookie.httpOnly, true);
    } finally {
      await secure.close();
    }
  });
});

describe('the cookie as a /v1 credential', () => {
  test('a session reads /v1 like a key: GET /v1/me names the person, their role and what it allows', async () => {
    const res = await owner.call({ url: '/v1/me' });
    assert.equal(res.statusCode, 200, res.body);
    const me = res.json().data;
    assert.equal(me.principal, 'session');
    assert.equal(me.user.email, ownerLogin.email);
    const ws = me.workspaces.find((w: { id: string }) => w.id === t.owner.workspaceId);
    assert.equal(ws.role, 'owner');
    assert.ok(ws.brands.length >= 1);
    assert.ok(ws.scopes.includes('keys:manage'));
    const posts = await owner.call({ url: '/v1/posts' });
    assert.equal(posts.statusCode, 200, posts.body);
  });

  test('a write with the cookie but without the CSRF header, or with a wrong one, is 403 PUBLIC_API_CSRF_TOKEN_INVALID', async () => {
    for (const csrf of [false, 'wrong-token'] as const) {
      const res = await owner.call({
        method: 'POST',
        url: '/v1/posts',
        csrf,
        payload: { content: 'csrf', platforms: ['x'] },
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error.code, 'PUBLIC_API_CSRF_TOKEN_INVALID');
    }
    const ok = await owner.call({ method: 'POST', url: '/v1/posts', payload: { content: 'csrf', platforms: ['x'] } });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().data.post.created_via, 'dashboard', 'a signed-in session is the dashboard');
  });

  test("another member's CSRF token does not fit this session", async () => {
    const res = await owner.call({
      method: 'POST',
      url: '/v1/posts',
      csrf: member.csrf,
      payload: { content: 'x', platforms: ['x'] },
    });
    assert.equal(res.statusCode, 403);
  });

  test('a cookie and a bearer key together are 400 PUBLIC_API_CREDENTIALS_AMBIGUOUS', async () => {
    const key = await t.key();
    const res = await owner.call({ url: '/v1/posts', headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'PUBLIC_API_CREDENTIALS_AMBIGUOUS');
  });

  test('an unknown session cookie is 401 PUBLIC_API_SESSION_INVALID', async () => {
    const res = await t.app.inject({ url: '/v1/posts', headers: { cookie: 'herald_session=not-a-session' } });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, 'PUBLIC_API_SESSION_INVALID');
  });

  test("a member's session is refused what the member role forbids, and allowed the rest", async () => {
    for (const [method, url, payload] of [
      ['GET', '/v1/keys', undefined],
      ['GET', '/v1/members', undefined],
      ['POST', '/v1/webhooks', { url: 'https://93.184.216.34/hook', events: ['*'] }],
    ] as const) {
      const res = await member.call({ method, url, payload });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
      assert.match(res.json().error.message, /member role/);
    }
    assert.equal((await member.call({ url: '/v1/posts' })).statusCode, 200);
    const me = (await member.call({ url: '/v1/me' })).json().data;
    assert.ok(!me.scopes.includes('keys:manage'));
    assert.ok(me.scopes.includes('posts:write'));
  });

  test('the session-only actions refuse a key with 403 PUBLIC_API_SESSION_REQUIRED', async () => {
    const key = await t.key();
    for (const url of ['/v1/me/sign-out-everywhere', '/v1/me/password']) {
      const res = await t.inject({
        method: 'POST',
        url,
        key,
        payload: url.endsWith('password') ? { current_password: 'x', new_password: 'y' } : {},
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error.code, 'PUBLIC_API_SESSION_REQUIRED');
    }
    const me = (await t.inject({ url: '/v1/me', key })).json().data;
    assert.equal(me.principal, 'api_key');
    assert.match(me.key_id, /^key_/);
  });
});

describe("the session's own actions", () => {
  test('changing the password needs the current one, keeps this session and ends the others', async () => {
    const login = { email: 'pat@example.com', password: 'pat has a good password' };
    await createPerson(t, login.email, login.password, [{ workspaceId: t.owner.workspaceId }]);
    const here = await signInSession(t, login.email, login.password);
    const elsewhere = await signInSession(t, login.email, login.password);
    const wrong = await here.call({
      method: 'POST',
      url: '/v1/me/password',
      payload: { current_password: 'a wrong password', new_password: 'a brand new long password' },
    });
    assert.equal(wrong.statusCode, 422, wrong.body);
    assert.equal(wrong.json().error.details[0].rule, 'password_wrong');
    const ok = await here.call({
      method: 'POST',
      url: '/v1/me/password',
      payload: { current_password: login.password, new_password: 'a brand new long password' },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.sessions_ended, 1);
    assert.equal((await here.call({ url: '/v1/me' })).statusCode, 200);
    assert.equal((await elsewhere.call({ url: '/v1/me' })).statusCode, 401);
    const old = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: login });
    assert.equal(old.statusCode, 401);
    await signInSession(t, login.email, 'a brand new long password');
  });

  test('signing out everywhere ends every session of the person, this one included, and clears the cookie', async () => {
    const login = { email: 'sol@example.com', password: 'sol has a good password' };
    await createPerson(t, login.email, login.password, [{ workspaceId: t.owner.workspaceId }]);
    const a = await signInSession(t, login.email, login.password);
    const b = await signInSession(t, login.email, login.password);
    const res = await a.call({ method: 'POST', url: '/v1/me/sign-out-everywhere' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.sessions_ended, 2);
    assert.match(String(res.headers['set-cookie']), /herald_session=;.*Max-Age=0/);
    assert.equal((await a.call({ url: '/v1/me' })).statusCode, 401);
    assert.equal((await b.call({ url: '/v1/me' })).statusCode, 401);
  });

  test('DELETE /app/api/session needs the CSRF header and signs this session out', async () => {
    const s = await signInSession(t, ownerLogin.email, ownerLogin.password);
    const refused = await t.app.inject({ method: 'DELETE', url: '/app/api/session', headers: { cookie: s.cookie } });
    assert.equal(refused.statusCode, 403);
    const out = await t.app.inject({
      method: 'DELETE',
      url: '/app/api/session',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    assert.equal(out.statusCode, 200, out.body);
    assert.equal((await s.call({ url: '/v1/me' })).statusCode, 401);
  });
});

describe('the dashboard at /app', () => {
  let dist: string;
  const app = Fastify();
  const missing = Fastify();
  before(async () => {
    dist = await mkdtemp(path.join(tmpdir(), 'herald-dist-'));
    await mkdir(path.join(dist, 'assets'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>Herald</title><div id="root"></div>');
    await writeFile(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    registerDashboard(app, { dist });
    registerDashboard(missing, { dist: path.join(dist, 'nothing-here') });
  });
  after(async () => {
    await app.close();
    await missing.close();
    await rm(dist, { recursive: true, force: true });
  });

  test('/app/ answers index.html, revalidated, with a self-only CSP', async () => {
    const res = await app.inject({ url: '/app/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal((await app.inject({ url: '/app' })).statusCode, 308);
  });

  test('a hashed asset has its content type and a year of cache', async () => {
    const res = await app.inject({ url: '/app/assets/index-abc123.js' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/javascript/);
    assert.match(String(res.headers['cache-control']), /immutable/);
    assert.equal(res.body, 'console.log(1)');
  });

  test('a page path falls back to index.html; a missing file is 404; nothing outside the build is served', async () => {
    const page = await app.inject({ url: '/app/settings/keys' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="root"/);
    assert.equal((await app.inject({ url: '/app/assets/gone-123.js' })).statusCode, 404);
    for (const url of ['/app/..%2F..%2Fpackage.json', '/app/%2e%2e/%2e%2e/package.json']) {
      const res = await app.inject({ url });
      assert.ok(!res.body.includes('"dependencies"'), url);
    }
  });

  test('without a build, /app says how to make one', async () => {
    const res = await missing.inject({ url: '/app/' });
    assert.equal(res.statusCode, 503);
    assert.match(res.body, /npm run build:web/);
  });
});
