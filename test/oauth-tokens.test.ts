// The OAuth authorization server against its RFCs, over real HTTP, from the code on: the token endpoint, refresh
// rotation and revocation (RFC 7009) — every refusal with its OAuth code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '../src/lib/crypto.ts';
import { createPerson, listenTestApp, type ListeningApp } from './helpers/oauth.ts';
import { oauthRequests, person, pkce } from './helpers/oauth-requests.ts';

let t: ListeningApp;

before(async () => {
  t = await listenTestApp();
  await createPerson(t, person.email, person.password, [{ workspaceId: t.owner.workspaceId }]);
});
after(() => t.close());

const { post, register, obtainCode, exchange, v1 } = oauthRequests(() => t);

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
