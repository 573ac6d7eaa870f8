// Property-based fuzzing of the surfaces outside /v1: random and hostile input to the OAuth endpoints, the
// sign-in and consent forms and /mcp never produces a 5xx, and each answers in its own format (OAuth errors as
// `{ error, error_description }`, pages as HTML, /mcp as JSON-RPC). The seed is printed for replay.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1e9);

before(async () => {
  t = await buildTestApp({
    env: {
      HERALD_RATE_LIMIT_WRITE_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_READ_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_ANON_PER_MIN: '1000000',
    },
  });
  key = await t.key();
  console.log(`# oauth/mcp fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
});
after(() => t.close());

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    'S256',
    'code',
    'authorization_code',
    'refresh_token',
    'none',
    'posts:read',
    'https://x.example/cb',
    'http://127.0.0.1:1/cb',
    '%',
    '\u0000',
    'a'.repeat(3000),
  ),
);
const formBody = fc.dictionary(
  fc.constantFrom(
    'grant_type',
    'code',
    'client_id',
    'client_secret',
    'redirect_uri',
    'code_verifier',
    'refresh_token',
    'resource',
    'scope',
    'token',
    'csrf',
    'request',
    'decision',
    'target',
    'email',
    'password',
    'junk',
  ),
  text,
  { maxKeys: 8 },
);
const contentType = fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', undefined);
const authorization = fc.constantFrom(
  undefined,
  'Basic',
  'Basic !!!',
  `Basic ${Buffer.from('a:b').toString('base64')}`,
  'Bearer x',
  `Bearer ${'hk_test_' + 'a'.repeat(36)}`,
);

function encode(body: Record<string, string>, type: string | undefined): string {
  return type === 'application/json' ? JSON.stringify(body) : new URLSearchParams(body).toString();
}

test('OAuth endpoints and forms answer every input in their own format, never with a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('/oauth/token', '/oauth/revoke', '/oauth/register', '/oauth/authorize', '/login', '/logout'),
      formBody,
      contentType,
      authorization,
      async (url, body, type, auth) => {
        const headers: Record<string, string> = {};
        if (type) headers['content-type'] = type;
        if (auth) headers.authorization = auth;
        const res = await t.inject({ method: 'POST', url, headers, payload: encode(body, type) });
        assert.ok(res.statusCode < 500, `${url} → ${res.statusCode}: ${res.body.slice(0, 200)}`);
        if (url === '/oauth/token' || url === '/oauth/revoke' || url === '/oauth/register') {
          if (res.statusCode >= 400) assert.match(res.json().error, /^[a-z_]+$/, `${url} answers an OAuth error`);
        } else {
          assert.match(String(res.headers['content-type'] ?? 'text/html'), /text\/html/, `${url} answers a page`);
        }
      },
    ),
    { seed, numRuns: 150 },
  );
});

test('the authorization endpoint answers any query with a page or a redirect, never a 5xx', async () => {
  const query = fc.dictionary(
    fc.constantFrom(
      'response_type',
      'client_id',
      'redirect_uri',
      'state',
      'scope',
      'code_challenge',
      'code_challenge_method',
      'resource',
    ),
    text,
    { maxKeys: 8 },
  );
  await fc.assert(
    fc.asyncProperty(query, async (params) => {
      const res = await t.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(params)}` });
      assert.ok(
        res.statusCode < 500 && [200, 302, 400].includes(res.statusCode),
        `${res.statusCode}: ${res.body.slice(0, 200)}`,
      );
    }),
    { seed, numRuns: 100 },
  );
});

test('/mcp answers any JSON-RPC-ish body as JSON-RPC, never with a 5xx', async () => {
  const value = fc.jsonValue({ maxDepth: 3 });
  const message = fc.oneof(
    value,
    fc.record({
      jsonrpc: fc.constantFrom('2.0', '1.0'),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
      method: fc.constantFrom('tools/list', 'tools/call', 'initialize', 'nope'),
      params: value,
    }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.integer(),
      method: fc.constant('tools/call'),
      params: fc.record({
        name: fc.constantFrom('create_post', 'list_posts', 'get_post', 'update_post', 'list_platforms', 'x'),
        arguments: value,
      }),
    }),
  );
  await fc.assert(
    fc.asyncProperty(message, fc.boolean(), async (body, batch) => {
      const res = await t.inject({
        method: 'POST',
        url: '/mcp',
        payload: JSON.stringify(batch ? [body] : body),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      });
      assert.ok(res.statusCode < 500, `${res.statusCode}: ${res.body.slice(0, 300)}`);
      if (res.statusCode !== 202)
        assert.ok(res.body.includes('"jsonrpc":"2.0"'), `JSON-RPC answer: ${res.body.slice(0, 200)}`);
    }),
    { seed, numRuns: 150 },
  );
  const logged = t.logs.filter((l) => l.level >= 50);
  assert.deepEqual(
    logged.map((l) => l.msg),
    [],
    'no unhandled error was logged',
  );
});

test('a NUL character (which no database text can hold) is a 400 wherever it arrives, never a 500', async () => {
  const v1 = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: 'a\u0000b', platforms: ['x'] },
  });
  assert.equal(v1.statusCode, 400);
  assert.equal(v1.json().error.code, 'PUBLIC_API_BODY_INVALID');
  const path = await t.inject({ method: 'GET', url: '/v1/posts/post_%00', key });
  assert.equal(path.json().error.code, 'PUBLIC_API_QUERY_INVALID');
  const token = await t.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=refresh_token&client_id=%00',
  });
  assert.equal(token.statusCode, 400);
  assert.equal(token.json().error, 'invalid_request');
  const tool = await t.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_post', arguments: { content: 'a\u0000b', platforms: ['x'] } },
    }),
  });
  assert.equal(tool.json().result.structuredContent.error.code, 'PUBLIC_API_BODY_INVALID');
});
