// The OAuth authorization server against its RFCs, over real HTTP, up to the code: discovery, dynamic client
// registration, the authorization request and consent — every refusal with its OAuth code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '../src/lib/crypto.ts';
import { Browser, createPerson, hiddenField, listenTestApp, signIn, type ListeningApp } from './helpers/oauth.ts';
import { oauthRequests, person, pkce, REDIRECT } from './helpers/oauth-requests.ts';

let t: ListeningApp;
let mcp: string;

before(async () => {
  t = await listenTestApp();
  mcp = `${t.baseUrl}/mcp`;
  await createPerson(t, person.email, person.password, [{ workspaceId: t.owner.workspaceId }]);
});
after(() => t.close());

const { post, register, authorizeUrl, obtainCode, exchange } = oauthRequests(() => t);

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

  test('a deleted brand is neither offered nor accepted', async () => {
    const key = await t.key();
    const made = await t.inject({ method: 'POST', url: '/v1/brands', key, payload: { name: 'Gone soon' } });
    assert.equal(made.statusCode, 201, made.body);
    const brandId = made.json().data.id as string;
    const gone = await t.inject({ method: 'DELETE', url: `/v1/brands/${brandId}`, key });
    assert.equal(gone.statusCode, 200, gone.body);
    await assert.rejects(
      obtainCode({ scopes: ['posts:read'], target: `${t.owner.workspaceId}/${brandId}` }),
      /consent answered 400/,
    );
    const { page } = await obtainCode({ decision: 'deny' });
    assert.ok(!page.includes(brandId), 'the consent page does not list the deleted brand');
  });
});
