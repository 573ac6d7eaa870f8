// Attack class: the simulators under /sandbox as a public surface. Every Herald mounts them, so an anonymous
// client must not make Herald buffer a huge body (the simulators once read up to 512 MiB before any route
// looked at a token), must not flood them without a budget, and an operator can turn them off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { signSandboxAuthorize } from '../../src/features/connections/connect.platform.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let port: number;

before(async () => {
  t = await buildTestApp({ env: { HERALD_RATE_LIMIT_ANON_PER_MIN: '20' } });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
after(() => t.close());

/**
 * Sends the request line and headers announcing `declared` bytes, then only a few bytes of body, and waits for an
 * answer: one that comes back proves the server decided without reading (or waiting for) the body.
 */
function announceHugeBody(path: string, declared: number, extraHeaders: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const ceiling = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${path} within 20 s: the server is waiting for the body`));
    }, 20_000);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        clearTimeout(ceiling);
        socket.destroy();
        resolve(answer.split('\r\n')[0]!);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(ceiling);
      reject(error);
    });
    const headers = {
      host: '127.0.0.1',
      'content-type': 'application/octet-stream',
      'content-length': String(declared),
      ...extraHeaders,
    };
    socket.write(
      `POST ${path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\nxxxx`,
    );
  });
}

const HUGE = 400 * 1024 * 1024;

describe('an anonymous client cannot make the simulators buffer a large body', () => {
  const routes = [
    '/sandbox/x/2/media/upload',
    '/sandbox/x/2/media/upload/1/append',
    '/sandbox/x/2/tweets',
    '/sandbox/bluesky/xrpc/com.atproto.repo.uploadBlob',
    '/sandbox/mastodon/api/v2/media',
    '/sandbox/linkedin/dms-uploads/urn%3Ali%3Avideo%3A1/0',
    '/sandbox/facebook/v23.0/123/videos',
    '/sandbox/instagram/v23.0/123/media',
    '/sandbox/x/i/oauth2/authorize',
    '/sandbox/x/no/such/route',
  ];
  for (const path of routes) {
    test(`a 400 MB POST to ${path} is refused from its headers, before the body is sent`, async () => {
      const status = await announceHugeBody(path, HUGE);
      assert.match(status, /^HTTP\/1\.1 (401|413) /, status);
    });
  }

  test('a forged bearer token does not lift the limit', async () => {
    const status = await announceHugeBody('/sandbox/x/2/media/upload/1/append', HUGE, {
      authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.forged',
    });
    assert.match(status, /^HTTP\/1\.1 (401|413) /, status);
  });
});

describe('anonymous sandbox traffic spends the anonymous budget of its address', () => {
  test('a flood of anonymous simulator requests is answered 429 with Retry-After', async () => {
    let limited: { status: number; retryAfter: string | undefined } | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/sandbox/x/2/users/me',
        remoteAddress: '203.0.113.7',
      });
      if (res.statusCode === 429) limited = { status: 429, retryAfter: res.headers['retry-after'] as string };
    }
    assert.ok(limited, 'no 429 after 60 anonymous requests with a budget of 20 per minute');
    assert.match(limited.retryAfter ?? '', /^\d+$/);
  });

  test('a flood of anonymous consent-page and token requests is answered 429 too', async () => {
    let limited = false;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/sandbox/x/2/oauth2/token',
        remoteAddress: '203.0.113.8',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=authorization_code&code=nope&client_id=c',
      });
      limited = res.statusCode === 429 && typeof res.headers['retry-after'] === 'string';
    }
    assert.ok(limited, 'no 429 after 60 anonymous token requests');
  });
});

describe('an operator can turn the sandbox off', () => {
  test('with HERALD_SANDBOX=off no simulator route answers', async () => {
    const off = await buildTestApp({ env: { HERALD_SANDBOX: 'off' } });
    try {
      for (const url of ['/sandbox/x/2/users/me', '/sandbox/x/i/oauth2/authorize', '/sandbox/bluesky/xrpc/_health']) {
        const res = await off.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      }
    } finally {
      await off.close();
    }
  });
});

/** Where an authorize answer sent the browser, and whether it carries a code. */
function codeIn(res: { statusCode: number; headers: Record<string, unknown> }): string | null {
  const location = res.headers.location;
  if (res.statusCode !== 302 || typeof location !== 'string') return null;
  return new URL(location).searchParams.get('code');
}

const ATTACKER = 'https://attacker.example/cb';

describe("an anonymous client cannot sign in as a workspace's simulated account", () => {
  // Every OAuth simulator, asked to approve at once as a named account, with no flow Herald started.
  const named: Record<string, (username: string) => string> = {
    x: (u) =>
      `/sandbox/x/i/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'evil', redirect_uri: ATTACKER, scope: 'tweet.read tweet.write users.read offline.access', state: 's', code_challenge: 'abc', code_challenge_method: 'plain', sandbox_username: u })}`,
    linkedin: (u) =>
      `/sandbox/linkedin/oauth/v2/authorization?${new URLSearchParams({ response_type: 'code', client_id: 'evil', redirect_uri: ATTACKER, scope: 'openid profile w_member_social', state: 's', sandbox_username: u })}`,
    facebook: (u) =>
      `/sandbox/facebook/v23.0/dialog/oauth?${new URLSearchParams({ client_id: 'evil', redirect_uri: ATTACKER, state: 's', scope: 'pages_show_list,pages_manage_posts', sandbox_username: u })}`,
    instagram: (u) =>
      `/sandbox/instagram/oauth/authorize?${new URLSearchParams({ client_id: 'evil', redirect_uri: ATTACKER, response_type: 'code', scope: 'instagram_business_basic,instagram_business_content_publish', state: 's', sandbox_username: u })}`,
    threads: (u) =>
      `/sandbox/threads/oauth/authorize?${new URLSearchParams({ client_id: 'evil', redirect_uri: ATTACKER, response_type: 'code', scope: 'threads_basic,threads_content_publish', state: 's', sandbox_username: u })}`,
  };
  for (const [platform, url] of Object.entries(named)) {
    test(`${platform}: authorize with sandbox_username and no Herald signature issues no code`, async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: url('victim_a'),
        remoteAddress: `198.51.100.${platform.length}`,
      });
      assert.equal(codeIn(res), null, `${res.statusCode} ${res.headers.location ?? res.body.slice(0, 200)}`);
    });
  }

  test('mastodon: a registered app still gets no code for a named account without a Herald signature', async () => {
    const app = await t.app.inject({
      method: 'POST',
      url: '/sandbox/mastodon/api/v1/apps',
      remoteAddress: '198.51.100.20',
      headers: { 'content-type': 'application/json' },
      payload: { client_name: 'evil', redirect_uris: ATTACKER, scopes: 'read write' },
    });
    assert.equal(app.statusCode, 200, app.body);
    const clientId = app.json().client_id as string;
    const res = await t.app.inject({
      method: 'GET',
      url: `/sandbox/mastodon/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: ATTACKER, scope: 'read write', sandbox_username: 'victim_a' })}`,
      remoteAddress: '198.51.100.20',
    });
    assert.equal(codeIn(res), null, `${res.statusCode} ${res.body.slice(0, 200)}`);
  });

  test('x: approving the consent page as a named account issues no code either, nor does a forged signature', async () => {
    const attempts: Record<string, string>[] = [{}, { sandbox_sig: 'AAAA' }, { sandbox_sig: 'x'.repeat(43) }];
    for (const extra of attempts) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/sandbox/x/i/oauth2/authorize',
        remoteAddress: '198.51.100.21',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          response_type: 'code',
          client_id: 'evil',
          redirect_uri: ATTACKER,
          scope: 'tweet.read tweet.write users.read',
          state: 's',
          code_challenge: 'abc',
          decision: 'approve',
          sandbox_username: 'victim_a',
          ...extra,
        }).toString(),
      });
      assert.equal(codeIn(res), null, `${JSON.stringify(extra)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  });

  test("x: Herald's signature for one flow does not carry over to another redirect or state", async () => {
    const herald = new URL(
      signSandboxAuthorize(
        t.container.platformAccess,
        'x',
        `http://herald.test/sandbox/x/i/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'herald-sandbox', redirect_uri: 'http://herald.test/connect/callback', scope: 'tweet.read users.read', state: 'flow-1', code_challenge: 'abc', code_challenge_method: 'plain', sandbox_username: 'victim_a' })}`,
        '00000000-0000-4000-8000-00000000000a',
      ),
    );
    const send = (url: URL) =>
      t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, remoteAddress: '198.51.100.23' });
    assert.ok(codeIn(await send(herald)), "Herald's own flow signs in");
    for (const [name, value] of [
      ['redirect_uri', ATTACKER],
      ['state', 'flow-2'],
      ['client_id', 'evil'],
      ['sandbox_ws', 'another-workspace'],
    ] as const) {
      const moved = new URL(herald);
      moved.searchParams.set(name, value);
      const res = await send(moved);
      assert.equal(codeIn(res), null, `${name} changed: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  });

  // Residual of L2: Herald signs every test workspace's flow, so the signature alone let workspace B type the
  // username behind workspace A's connection. The account now belongs to the first workspace that named it.
  const WS_A = '00000000-0000-4000-8000-0000000000aa';
  const WS_B = '00000000-0000-4000-8000-0000000000bb';
  for (const [platform, url] of Object.entries(named)) {
    test(`${platform}: a simulated account is refused to another workspace's signed flow`, async () => {
      const signIn = async (workspace: string, username: string) => {
        const signed = new URL(
          signSandboxAuthorize(
            t.container.platformAccess,
            platform as 'x',
            `http://herald.test${url(username)}`,
            workspace,
          ),
        );
        return t.app.inject({
          method: 'GET',
          url: `${signed.pathname}${signed.search}`,
          remoteAddress: '198.51.100.24',
        });
      };
      const owner = `owned_${platform}`;
      assert.ok(codeIn(await signIn(WS_A, owner)), 'the first workspace to name it signs in');
      const taken = await signIn(WS_B, owner);
      assert.equal(codeIn(taken), null, `another workspace: ${taken.statusCode} ${taken.body.slice(0, 200)}`);
      assert.ok(codeIn(await signIn(WS_B, `other_${platform}`)), 'that workspace signs in as an account of its own');
      assert.ok(codeIn(await signIn(WS_A, owner)), 'the owner signs in again');
    });
  }

  test("a seeded account (first start, add-sandbox) is refused to another workspace's signed flow", async () => {
    // The seeded usernames are random, but they show on every published post's page.
    const { rows } = await t.container.pool.query<{ platform: string; handle: string }>(
      `SELECT platform, handle FROM connections WHERE workspace_id = $1 AND platform = 'x'`,
      [t.owner.workspaceId],
    );
    assert.equal(rows.length, 1);
    for (const { platform, handle } of rows) {
      const username = handle.replace(/^@/, '');
      const as = async (workspace: string) => {
        const url = new URL(
          signSandboxAuthorize(
            t.container.platformAccess,
            platform as 'x',
            `http://herald.test${named[platform]!(username)}`,
            workspace,
          ),
        );
        return t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, remoteAddress: '198.51.100.25' });
      };
      assert.ok(codeIn(await as(t.owner.workspaceId)), `${platform} ${username}: its own workspace signs in again`);
      const signed = new URL(
        signSandboxAuthorize(
          t.container.platformAccess,
          platform as 'x',
          `http://herald.test${named[platform]!(username)}`,
          WS_B,
        ),
      );
      const res = await t.app.inject({
        method: 'GET',
        url: `${signed.pathname}${signed.search}`,
        remoteAddress: '198.51.100.25',
      });
      assert.equal(codeIn(res), null, `${platform} ${username}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  });

  test("x: a stranger cannot delete a workspace's published simulated tweet", async () => {
    // The workspace's account posts through the token Herald holds for it (signed as Herald's simulator signs).
    const sim = (await t.container.simulators.load()).get('x')!;
    const herald = sim.kit.tokens.sign({
      sub: '0',
      typ: 'x_access',
      username: 'victim_a',
      scope: 'tweet.read tweet.write users.read offline.access',
      cid: 'herald-sandbox',
      ttlSeconds: 600,
    });
    const me = await t.app.inject({ url: '/sandbox/x/2/users/me', headers: { authorization: `Bearer ${herald}` } });
    assert.equal(me.statusCode, 200, me.body);
    const posted = await t.app.inject({
      method: 'POST',
      url: '/sandbox/x/2/tweets',
      headers: { authorization: `Bearer ${herald}`, 'content-type': 'application/json' },
      payload: { text: 'published by workspace A' },
    });
    assert.equal(posted.statusCode, 201, posted.body);
    const tweetId = posted.json().data.id as string;
    // The stranger tries the sign-in as that account, then the code exchange with whatever came back.
    const authorize = await t.app.inject({ method: 'GET', url: named.x!('victim_a'), remoteAddress: '198.51.100.22' });
    const exchange = await t.app.inject({
      method: 'POST',
      url: '/sandbox/x/2/oauth2/token',
      remoteAddress: '198.51.100.22',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code: codeIn(authorize) ?? 'none',
        client_id: 'evil',
        redirect_uri: ATTACKER,
        code_verifier: 'abc',
      }).toString(),
    });
    assert.notEqual(exchange.statusCode, 200, exchange.body);
    const stolen = exchange.statusCode === 200 ? (exchange.json().access_token as string) : 'none';
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/sandbox/x/2/tweets/${tweetId}`,
      remoteAddress: '198.51.100.22',
      headers: { authorization: `Bearer ${stolen}` },
    });
    assert.equal(deleted.statusCode, 401, deleted.body);
    assert.ok(
      (await sim.posts()).some((p) => p.id === tweetId && !p.deleted),
      'the tweet is still published',
    );
  });
});
