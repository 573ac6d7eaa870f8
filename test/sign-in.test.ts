// Signing in: the session cookie's flags, CSRF on every form, answers that do not tell whether an email has an
// account, growing waits after repeated failures, and the `herald users` commands.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Io } from '../src/cli/command.ts';
import { main } from '../src/cli.ts';
import { hashPassword, verifyPassword } from '../src/features/users/passwords.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { createPerson, hiddenField } from './helpers/oauth.ts';

let t: TestApp;
const person = { email: 'sam@example.com', password: 'sam has a good password' };

before(async () => {
  t = await buildTestApp();
  await createPerson(t, person.email, person.password, [{ workspaceId: t.owner.workspaceId }]);
});
after(() => t.close());

/** GET /login: the form's CSRF token and the pre-session cookie it is bound to. */
async function loginForm(app = t) {
  const res = await app.inject({ method: 'GET', url: '/login' });
  const cookie = res.cookies.find((c) => c.name.endsWith('herald_login'))!;
  return { csrf: hiddenField(res.body, 'csrf'), cookie: `${cookie.name}=${cookie.value}`, res };
}

async function attempt(email: string, password: string, app = t) {
  const form = await loginForm(app);
  return app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: form.csrf, email, password }).toString(),
  });
}

describe('the sign-in page', () => {
  test('a correct password starts a session: HttpOnly, SameSite=Lax cookie, then the signed-in page', async () => {
    const res = await attempt(person.email, person.password);
    assert.equal(res.statusCode, 303);
    const session = res.cookies.find((c) => c.name === 'herald_session')!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.secure, undefined, 'not Secure on a plain-http public URL');
    const page = await t.inject({
      method: 'GET',
      url: '/login',
      headers: { cookie: `herald_session=${session.value}` },
    });
    assert.match(page.body, /signed in to Herald as <strong>sam@example.com<\/strong>/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
  });

  test('on an https public URL the cookies are Secure and __Host- prefixed', async () => {
    const secure = await buildTestApp({ env: { HERALD_PUBLIC_URL: 'https://herald.example' } });
    try {
      const form = await loginForm(secure);
      const cookie = form.res.cookies[0]!;
      assert.equal(cookie.name, '__Host-herald_login');
      assert.equal(cookie.secure, true);
    } finally {
      await secure.close();
    }
  });

  test('a post without the CSRF token or its cookie is refused', async () => {
    const form = await loginForm();
    const body = new URLSearchParams({ email: person.email, password: person.password }).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    assert.equal(
      (await t.inject({ method: 'POST', url: '/login', headers: { ...headers, cookie: form.cookie }, payload: body }))
        .statusCode,
      403,
    );
    const noCookie = new URLSearchParams({
      csrf: form.csrf,
      email: person.email,
      password: person.password,
    }).toString();
    assert.equal((await t.inject({ method: 'POST', url: '/login', headers, payload: noCookie })).statusCode, 403);
  });

  test('a wrong password and an unknown email get the same answer', async () => {
    const wrong = await attempt(person.email, 'not the password');
    const unknown = await attempt('nobody@example.com', 'not the password');
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    const message = (body: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
    assert.equal(message(wrong.body), message(unknown.body));
  });

  test('return_to may only be a path on this server', async () => {
    const form = await loginForm();
    const res = await t.inject({
      method: 'POST',
      url: '/login',
      headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        csrf: form.csrf,
        email: person.email,
        password: person.password,
        return_to: '//evil.example/x',
      }).toString(),
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/login');
  });

  test('sign-out needs the CSRF token and ends the session', async () => {
    const signedIn = await attempt(person.email, person.password);
    const cookie = `herald_session=${signedIn.cookies.find((c) => c.name === 'herald_session')!.value}`;
    const page = await t.inject({ method: 'GET', url: '/login', headers: { cookie } });
    const form = (extra: Record<string, string>) => ({
      method: 'POST' as const,
      url: '/logout',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(extra).toString(),
    });
    assert.equal((await t.inject(form({}))).statusCode, 403);
    assert.equal((await t.inject(form({ csrf: hiddenField(page.body, 'csrf') }))).statusCode, 303);
    const after = await t.inject({ method: 'GET', url: '/login', headers: { cookie } });
    assert.match(after.body, /Sign in to Herald/);
  });
});

describe('brute force', () => {
  test('five failures from one address make it wait — the right password included — and unknown emails alike', async () => {
    await createPerson(t, 'target@example.com', 'the real password!', [{ workspaceId: t.owner.workspaceId }]);
    // Earlier tests failed from this same address: start its count from zero.
    await t.container.pool.query('DELETE FROM login_throttle');
    const timings: Record<string, number[]> = { known: [], unknown: [] };
    for (const [kind, email] of [
      ['known', 'target@example.com'],
      ['unknown', 'ghost@example.com'],
    ] as const) {
      for (let i = 1; i <= 5; i++) {
        const started = performance.now();
        const res = await attempt(email, `guess ${i}`);
        timings[kind]!.push(performance.now() - started);
        assert.equal(res.statusCode, i < 5 ? 401 : 429, `${kind} attempt ${i}`);
      }
      const waiting = await attempt(email, 'the real password!');
      assert.equal(waiting.statusCode, 429);
      assert.ok(Number(waiting.headers['retry-after']) >= 1);
      assert.match(waiting.body, /Too many failed sign-ins from your network/);
    }
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    console.log(
      `# failed sign-in latency: known email ${mean(timings.known!)} ms, unknown email ${mean(timings.unknown!)} ms (mean of 5)`,
    );
    await t.container.pool.query('DELETE FROM login_throttle');
    assert.equal(
      (await attempt('target@example.com', 'the real password!')).statusCode,
      303,
      'after the wait, the right password works',
    );
  });

  test('password hashes are scrypt with their parameters, and verify in constant shape', async () => {
    const hash = await hashPassword('some password here');
    assert.match(hash, /^scrypt\$ln=15,r=8,p=3\$/);
    assert.equal(await verifyPassword('some password here', hash), true);
    assert.equal(await verifyPassword('some password herE', hash), false);
    assert.equal(await verifyPassword('anything', null), false);
  });
});

describe('herald users', () => {
  function io(secret?: string): Io & { output: string[]; errors: string[] } {
    const output: string[] = [];
    const errors: string[] = [];
    return {
      output,
      errors,
      out: (s) => output.push(s),
      err: (s) => errors.push(s),
      env: { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET, HERALD_LOG_LEVEL: 'silent' },
      ...(secret !== undefined ? { readSecret: async () => secret } : {}),
    };
  }

  test('users create adds a person to a workspace with a generated password shown once; they can sign in', async () => {
    const cli = io();
    assert.equal(
      await main(
        [
          'users',
          'create',
          '--email',
          'new@example.com',
          '--workspace',
          t.owner.workspaceId,
          '--role',
          'admin',
          '--json',
        ],
        cli,
      ),
      0,
    );
    const made = JSON.parse(cli.output[0]!) as { password: string; created: boolean; role: string };
    assert.equal(made.created, true);
    assert.equal(made.role, 'admin');
    assert.match(made.password, /^[\w]{5}(-[\w]{5}){3}$/);
    assert.equal((await attempt('new@example.com', made.password)).statusCode, 303);
    const again = io();
    assert.equal(
      await main(
        [
          'users',
          'create',
          '--email',
          'NEW@example.com',
          '--workspace',
          t.owner.workspaceId,
          '--role',
          'member',
          '--json',
        ],
        again,
      ),
      0,
    );
    assert.equal(JSON.parse(again.output[0]!).password, null, 'an existing account keeps its password');
  });

  test('users create refuses a bad role or an unknown workspace', async () => {
    const bad = io();
    assert.equal(
      await main(
        ['users', 'create', '--email', 'x@example.com', '--workspace', t.owner.workspaceId, '--role', 'king'],
        bad,
      ),
      2,
    );
    assert.match(bad.errors[0]!, /--role must be owner, admin or member/);
    const unknown = io();
    assert.equal(
      await main(
        [
          'users',
          'create',
          '--email',
          'x@example.com',
          '--workspace',
          '00000000-0000-4000-8000-000000000000',
          '--role',
          'member',
        ],
        unknown,
      ),
      2,
    );
    assert.match(unknown.errors[0]!, /No workspace/);
  });

  test('users set-password sets the password and signs the person out everywhere', async () => {
    const signedIn = await attempt(person.email, person.password);
    const cookie = `herald_session=${signedIn.cookies.find((c) => c.name === 'herald_session')!.value}`;
    const cli = io('a brand new password');
    assert.equal(await main(['users', 'set-password', person.email], cli), 0);
    assert.match(cli.output[0]!, /session\(s\) signed out/);
    assert.match((await t.inject({ method: 'GET', url: '/login', headers: { cookie } })).body, /Sign in to Herald/);
    assert.equal((await attempt(person.email, 'a brand new password')).statusCode, 303);
    const short = io('short');
    assert.equal(await main(['users', 'set-password', person.email], short), 2);
    assert.match(short.errors[0]!, /at least 10 characters/);
  });
});
