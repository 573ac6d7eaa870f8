// The OAuth authorization server against its RFCs, over real HTTP: discovery, registration, the authorization
// request, consent, the token endpoint, refresh rotation and revocation — every refusal with its OAuth code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256 } from '../src/lib/crypto.ts';
import {
  Browser,
  consent,
  createPerson,
  hiddenField,
  listenTestApp,
  signIn,
  type ConsentChoice,
  type ListeningApp,
} from './helpers/oauth.ts';

let t: ListeningApp;
const person = { email: 'robin@example.com', password: 'a long enough password' };
const REDIRECT = 'http://127.0.0.1:43110/cb';
let mcp: string;

before(async () => {
  t = await listenTestApp();
  mcp = `${t.baseUrl}/mcp`;
  await createPerson(t, person.email, person.password, [{ workspaceId: t.owner.workspaceId }]);
});
after(() => t.close());

async function post(path: string, body: Record<string, string> | string, headers: Record<string, string> = {}) {
  const isForm = typeof body !== 'string';
  const res = await fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
    body: isForm ? new URLSearchParams(body).toString() : body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function register(metadata: Record<string, unknown> = {}) {
  return post(
    '/oauth/register',
    JSON.stringify({
      client_name: 'Tester',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  );
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: sha256(verifier).toString('base64url') };
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    resource: mcp,
    scope: 'posts:read posts:write',
    ...extra,
  };
  const url = new URL('/oauth/authorize', t.baseUrl);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

/** Registers a client and runs the person through consent; returns what a token request needs. */
async function obtainCode(choice: Partial<ConsentChoice> = {}, extra: Record<string, string> = {}) {
  const client = (await register()).body as { client_id: string };
  const { verifier, challenge } = pkce();
  const { redirect, page } = await consent(new Browser(t.baseUrl), authorizeUrl(client.client_id, challenge, extra), {
    ...person,
    ...choice,
  });
  return { clientId: client.client_id, verifier, code: redirect.searchParams.get('code')!, redirect, page };
}

const exchange = (o: { clientId: string; code: string; verifier: string }, extra: Record<string, string> = {}) =>
  post('/oauth/token', {
    grant_type: 'authorization_code',
    client_id: o.clientId,
    code: o.code,
    code_verifier: o.verifier,
    redirect_uri: REDIRECT,
    resource: mcp,
    ...extra,
  });

const v1 = (token: string) =>
  fetch(`${t.baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

describe('discovery', () => {
  test('RFC 8414 authorization server metadata', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    const meta = (await res.json()) as {
      issuer: string;
      token_endpoint: string;
      code_challenge_methods_supported: string[];
      authorization_response_iss_parameter_supported: boolean;
      scopes_supported: string[];
    };
    assert.equal(meta.issuer, t.baseUrl);
    assert.equal(meta.token_endpoint, `${t.baseUrl}/oauth/token`);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    assert.equal(meta.authorization_response_iss_parameter_supported, true);
    assert.ok(meta.scopes_supported.includes('posts:write'));
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  test('RFC 9728 protected resource metadata for /mcp and at the root', async () => {
    const forMcp = (await (await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    assert.equal(forMcp.resource, mcp);
    assert.deepEqual(forMcp.authorization_servers, [t.baseUrl]);
    const root = (await (await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource`)).json()) as {
      resource: string;
    };
    assert.equal(root.resource, t.baseUrl);
  });
});

describe('dynamic client registration', () => {
  test('a public client is stored and gets no secret; a confidential one gets a secret once', async () => {
    const pub = await register();
    assert.equal(pub.status, 201);
    assert.match(pub.body.client_id, /^mcpc_/);
    assert.equal(pub.body.client_secret, undefined);
    const conf = await register({ token_endpoint_auth_method: undefined });
    assert.equal(conf.body.token_endpoint_auth_method, 'client_secret_basic', 'RFC 7591 default');
    assert.match(conf.body.client_secret, /^hcs_/);
    const { rows } = await t.container.pool.query('SELECT name, redirect_uris FROM oauth_clients WHERE id = $1', [
      pub.body.client_id,
    ]);
    assert.deepEqual(rows, [{ name: 'Tester', redirect_uris: [REDIRECT] }]);
  });

  for (const [uri, why] of [
    ['http://example.com/cb', 'plain http off loopback'],
    ['https://example.com/cb#frag', 'a fragment'],
    ['myapp://callback', 'a custom scheme'],
    ['/relative', 'a relative URI'],
  ]) {
    test(`a redirect URI with ${why} is refused: invalid_redirect_uri`, async () => {
      const res = await register({ redirect_uris: [uri] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_redirect_uri');
    });
  }

  test('bad metadata: invalid_client_metadata, never a 500', async () => {
    assert.equal((await register({ scope: 'posts:read rockets:launch' })).body.error, 'invalid_client_metadata');
    assert.equal((await register({ grant_types: ['client_credentials'] })).body.error, 'invalid_client_metadata');
    assert.equal((await register({ redirect_uris: [] })).body.error, 'invalid_redirect_uri');
    const broken = await post('/oauth/register', '{"redirect_uris": [');
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error, 'invalid_client_metadata');
  });
});

describe('the authorization request', () => {
  let clientId: string;
  const { challenge } = pkce();
  before(async () => {
    clientId = (await register()).body.client_id;
  });

  test('an unknown client or a redirect URI that is not an exact match is shown to the person, never redirected', async () => {
    for (const url of [
      authorizeUrl('mcpc_unknown', challenge),
      authorizeUrl(clientId, challenge, { redirect_uri: `${REDIRECT}/other` }),
      authorizeUrl(clientId, challenge, { redirect_uri: 'http://127.0.0.1:43111/cb' }),
    ]) {
      const res = await new Browser(t.baseUrl).request('GET', url);
      assert.equal(res.status, 400);
      assert.equal(res.location, undefined);
      assert.match(res.headers.get('content-type')!, /text\/html/);
    }
  });

  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    ['missing resource', { resource: undefined }, 'invalid_request'],
    ['a foreign resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['no PKCE', { code_challenge: undefined }, 'invalid_request'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['an unknown scope', { scope: 'posts:read everything' }, 'invalid_scope'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
  ];
  for (const [what, extra, error] of cases) {
    test(`${what}: back to the client with error=${error}, state and iss`, async () => {
      const res = await new Browser(t.baseUrl).request('GET', authorizeUrl(clientId, challenge, extra));
      assert.equal(res.status, 302);
      const back = new URL(res.location!);
      assert.equal(back.origin + back.pathname, REDIRECT);
      assert.equal(back.searchParams.get('error'), error);
      assert.equal(back.searchParams.get('state'), 'st-123');
      assert.equal(back.searchParams.get('iss'), t.baseUrl);
    });
  }

  test('without a session, the person is sent to sign in and then back', async () => {
    const browser = new Browser(t.baseUrl);
    const url = authorizeUrl(clientId, challenge);
    const first = await browser.request('GET', url);
    assert.equal(first.status, 302);
    assert.match(first.location!, /^\/login\?return_to=%2Foauth%2Fauthorize/);
    const signedIn = await signIn(
      browser,
      person.email,
      person.password,
      new URL(first.location!, t.baseUrl).searchParams.get('return_to')!,
    );
    assert.equal(signedIn.status, 303);
    const page = await browser.request('GET', signedIn.location!);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  });
});

describe('consent', () => {
  test('deny: access_denied back to the client', async () => {
    const { redirect } = await obtainCode({ decision: 'deny' });
    assert.equal(redirect.searchParams.get('error'), 'access_denied');
    assert.equal(redirect.searchParams.get('code'), null);
  });

  test('a consent post without its CSRF token is refused and grants nothing', async () => {
    const client = (await register()).body.client_id;
    const browser = new Browser(t.baseUrl);
    const url = authorizeUrl(client, pkce().challenge);
    const login = await browser.request('GET', url);
    await signIn(
      browser,
      person.email,
      person.password,
      new URL(login.location!, t.baseUrl).searchParams.get('return_to')!,
    );
    const page = await browser.request('GET', url);
    const before = (await t.container.pool.query('SELECT count(*)::int AS n FROM oauth_codes')).rows[0].n;
    const form = {
      request: hiddenField(page.text, 'request'),
      target: t.owner.workspaceId,
      scope: 'posts:read',
      decision: 'allow',
    };
    const missing = await browser.request('POST', '/oauth/authorize', { form });
    assert.equal(missing.status, 403);
    const forged = await browser.request('POST', '/oauth/authorize', { form: { ...form, csrf: 'forged' } });
    assert.equal(forged.status, 403);
    const crossSite = await browser.request('POST', '/oauth/authorize', {
      form: { ...form, csrf: hiddenField(page.text, 'csrf') },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(crossSite.status, 403);
    assert.equal((await t.container.pool.query('SELECT count(*)::int AS n FROM oauth_codes')).rows[0].n, before);
  });

  test('the person narrows scopes and picks a brand: the key gets exactly that', async () => {
    const got = await obtainCode({ scopes: ['posts:read'], target: `${t.owner.workspaceId}/${t.owner.brandId}` });
    const res = await exchange(got);
    assert.equal(res.status, 200);
    assert.equal(res.body.scope, 'posts:read');
    const { rows } = await t.container.pool.query(
      'SELECT scopes, workspace_ids, brand_ids FROM api_keys WHERE token_hash = $1',
      [sha256(res.body.access_token)],
    );
    assert.deepEqual(rows, [
      { scopes: ['posts:read'], workspace_ids: [t.owner.workspaceId], brand_ids: [t.owner.brandId] },
    ]);
  });
});

describe('the token endpoint', () => {
  test('a wrong PKCE verifier: invalid_grant', async () => {
    const got = await obtainCode();
    const res = await exchange({ ...got, verifier: pkce().verifier });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_grant');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  test('a reused code: invalid_grant, and the grant it produced is revoked', async () => {
    const got = await obtainCode();
    const first = await exchange(got);
    assert.equal(first.status, 200);
    assert.equal(await v1(first.body.access_token), 200);
    const again = await exchange(got);
    assert.equal(again.body.error, 'invalid_grant');
    const started = Date.now();
    while ((await v1(first.body.access_token)) !== 401) {
      assert.ok(Date.now() - started < 5000);
      await new Promise((r) => setTimeout(r, 25));
    }
    console.log(`# key of a replayed code refused after ${Date.now() - started} ms`);
  });

  test('an expired code (older than 10 minutes): invalid_grant', async () => {
    const got = await obtainCode();
    t.clock.advance(10 * 60_000 + 1000);
    try {
      const res = await exchange(got);
      assert.equal(res.body.error, 'invalid_grant');
      assert.match(res.body.error_description, /expired/);
    } finally {
      t.clock.advance(-(10 * 60_000 + 1000));
    }
  });

  test('redirect_uri mismatch: invalid_grant; missing or foreign resource: invalid_request / invalid_target', async () => {
    const got = await obtainCode();
    assert.equal((await exchange(got, { redirect_uri: 'http://127.0.0.1:43110/other' })).body.error, 'invalid_grant');
    assert.equal((await exchange(got, { resource: '' })).body.error, 'invalid_request');
    assert.equal((await exchange(got, { resource: 'https://other.example/mcp' })).body.error, 'invalid_target');
    assert.equal((await exchange(got)).status, 200, 'the refusals did not use the code up');
  });

  test('client authentication and request shape: invalid_client, unsupported_grant_type, invalid_request', async () => {
    const unknown = await post('/oauth/token', { grant_type: 'authorization_code', client_id: 'mcpc_nope', code: 'x' });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error, 'invalid_client');
    const client = (await register()).body.client_id;
    assert.equal(
      (await post('/oauth/token', { grant_type: 'password', client_id: client })).body.error,
      'unsupported_grant_type',
    );
    assert.equal((await post('/oauth/token', { client_id: client })).body.error, 'invalid_request');
    const json = await post('/oauth/token', JSON.stringify({ grant_type: 'authorization_code', client_id: client }));
    assert.equal(json.body.error, 'invalid_request');
    const repeated = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `client_id=${client}&grant_type=refresh_token&grant_type=refresh_token`,
    });
    assert.equal(((await repeated.json()) as { error: string }).error, 'invalid_request');
  });

  test('a confidential client must prove its secret (Basic or post)', async () => {
    const reg = (await register({ token_endpoint_auth_method: 'client_secret_basic' })).body as {
      client_id: string;
      client_secret: string;
    };
    const wrong = await post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { authorization: `Basic ${Buffer.from(`${reg.client_id}:nope`).toString('base64')}` },
    );
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'invalid_client');
    assert.match(wrong.headers.get('www-authenticate')!, /^Basic/);
    const none = await post('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: reg.client_id,
    });
    assert.equal(none.body.error, 'invalid_client');
    const right = await post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { authorization: `Basic ${Buffer.from(`${reg.client_id}:${reg.client_secret}`).toString('base64')}` },
    );
    assert.equal(right.body.error, 'invalid_grant', 'authenticated; the token itself is unknown');
  });
});

describe('refresh tokens', () => {
  async function issued() {
    const got = await obtainCode();
    const res = await exchange(got);
    return { clientId: got.clientId, ...(res.body as { access_token: string; refresh_token: string }) };
  }
  const refresh = (clientId: string, token: string, extra: Record<string, string> = {}) =>
    post('/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: token, ...extra });

  test('a client racing its own refresh within the grace gets the same new pair', async () => {
    const first = await issued();
    const a = await refresh(first.clientId, first.refresh_token);
    const b = await refresh(first.clientId, first.refresh_token);
    assert.equal(a.status, 200);
    assert.deepEqual(b.body, a.body);
    assert.equal(await v1(a.body.access_token), 200);
  });

  test('a refresh token reused after the grace revokes the grant', async () => {
    const first = await issued();
    const rotated = await refresh(first.clientId, first.refresh_token);
    assert.equal(rotated.status, 200);
    t.clock.advance(11_000);
    try {
      const replay = await refresh(first.clientId, first.refresh_token);
      assert.equal(replay.body.error, 'invalid_grant');
      assert.match(replay.body.error_description, /revoked/);
    } finally {
      t.clock.advance(-11_000);
    }
    assert.equal(
      (await refresh(first.clientId, rotated.body.refresh_token)).body.error,
      'invalid_grant',
      'the current refresh token died with the grant',
    );
    const started = Date.now();
    while ((await v1(rotated.body.access_token)) !== 401) {
      assert.ok(Date.now() - started < 5000);
      await new Promise((r) => setTimeout(r, 25));
    }
    const { rows } = await t.container.pool.query(
      `SELECT revoked_reason FROM oauth_grants g JOIN api_keys k ON k.grant_id = g.id WHERE k.token_hash = $1`,
      [sha256(rotated.body.access_token)],
    );
    assert.equal(rows[0].revoked_reason, 'refresh_token_reused');
  });

  test('a refresh may narrow the scopes, never widen them', async () => {
    const first = await issued();
    assert.equal(
      (await refresh(first.clientId, first.refresh_token, { scope: 'posts:write media:write' })).body.error,
      'invalid_scope',
    );
    const narrow = await refresh(first.clientId, first.refresh_token, { scope: 'posts:read' });
    assert.equal(narrow.body.scope, 'posts:read');
  });

  test('another client cannot use the refresh token', async () => {
    const first = await issued();
    const other = (await register()).body.client_id;
    assert.equal((await refresh(other, first.refresh_token)).body.error, 'invalid_grant');
    assert.equal(
      (await refresh(first.clientId, first.refresh_token)).status,
      200,
      'and the token is still good for its own client',
    );
  });
});

describe('revocation (RFC 7009)', () => {
  test("revoking the refresh token ends the grant and its key; unknown tokens and other clients' tokens change nothing", async () => {
    const got = await obtainCode();
    const tokens = (await exchange(got)).body as { access_token: string; refresh_token: string };
    const other = (await register()).body.client_id;
    assert.equal((await post('/oauth/revoke', { client_id: other, token: tokens.refresh_token })).status, 200);
    assert.equal((await post('/oauth/revoke', { client_id: got.clientId, token: 'never-issued' })).status, 200);
    assert.equal(await v1(tokens.access_token), 200);
    assert.equal(
      (
        await post('/oauth/revoke', {
          client_id: got.clientId,
          token: tokens.refresh_token,
          token_type_hint: 'refresh_token',
        })
      ).status,
      200,
    );
    const started = Date.now();
    while ((await v1(tokens.access_token)) !== 401) {
      assert.ok(Date.now() - started < 5000);
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal((await post('/oauth/revoke', { client_id: got.clientId })).body.error, 'invalid_request');
  });
});
