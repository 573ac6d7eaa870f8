// Every code of the error catalogue (docs/api.md "Errors"), each produced by the fault it names, always in the
// envelope with the request id, never a bare framework error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { buildContainer } from '../src/container.ts';
import { buildServer } from '../src/http/server.ts';
import { AppError } from '../src/app/errors.ts';
import { createLogger } from '../src/lib/logger.ts';
import { heraldVersion } from '../src/lib/version.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({ env: { HERALD_BODY_LIMIT_BYTES: '4096' } });
  key = await t.key();
});
after(() => t.close());

function assertError(res: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  const body = res.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.retryable, 'boolean');
  assert.match(body.error.doc_url, new RegExp(`/docs/errors#${code}$`));
  assert.match(body.request_id, /^req_/);
  assert.equal(res.headers['x-request-id'], body.request_id);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.ok(res.headers['x-ratelimit-limit'], 'rate-limit headers on every /v1 response');
  return body.error;
}

const post = (headers: Record<string, string>, payload?: unknown) =>
  t.inject({ method: 'POST', url: '/v1/posts', headers, payload: payload as string });

describe('authentication', () => {
  test('no Authorization header → 401 PUBLIC_API_AUTH_REQUIRED', async () => {
    assertError(await t.inject({ url: '/v1/posts' }), 401, 'PUBLIC_API_AUTH_REQUIRED');
  });

  test('an Authorization header that is not Bearer → 401 PUBLIC_API_AUTH_REQUIRED', async () => {
    assertError(
      await t.inject({
        url: '/v1/posts',
        headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      }),
      401,
      'PUBLIC_API_AUTH_REQUIRED',
    );
  });

  test('malformed, checksum-invalid and unknown keys → 401 PUBLIC_API_KEY_INVALID', async () => {
    const flipped = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    for (const token of ['nope', 'hk_live_short', flipped, 'sk_live_' + key.slice(8)]) {
      assertError(
        await t.inject({ url: '/v1/posts', headers: { authorization: `Bearer ${token}` } }),
        401,
        'PUBLIC_API_KEY_INVALID',
      );
    }
    // A well-formed key with a valid checksum that was never issued.
    const { generateApiKey } = await import('../src/lib/crypto.ts');
    assertError(await t.inject({ url: '/v1/posts', key: generateApiKey('test') }), 401, 'PUBLIC_API_KEY_INVALID');
  });

  test('a revoked key → 401 PUBLIC_API_KEY_INVALID', async () => {
    const k = await t.key();
    assert.equal((await t.inject({ url: '/v1/posts', key: k })).statusCode, 200);
    await t.container.pool.query('UPDATE api_keys SET revoked_at = now() WHERE token_hash = sha256($1::bytea)', [
      Buffer.from(k),
    ]);
    await new Promise((r) => setTimeout(r, 1100)); // past the 1 s positive cache
    assertError(await t.inject({ url: '/v1/posts', key: k }), 401, 'PUBLIC_API_KEY_INVALID');
  });

  test('an expired key → 401 PUBLIC_API_KEY_EXPIRED', async () => {
    const k = await t.key({ expiresAt: new Date(Date.now() + 60_000) });
    await t.container.pool.query(
      `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE token_hash = sha256($1::bytea)`,
      [Buffer.from(k)],
    );
    assertError(await t.inject({ url: '/v1/posts', key: k }), 401, 'PUBLIC_API_KEY_EXPIRED');
  });

  test('a key without the scope → 403 PUBLIC_API_SCOPE_FORBIDDEN naming it', async () => {
    const k = await t.key({ scopes: ['posts:read'] });
    const error = assertError(
      await t.inject({ method: 'POST', url: '/v1/posts', key: k, payload: { content: 'x', platforms: ['x'] } }),
      403,
      'PUBLIC_API_SCOPE_FORBIDDEN',
    );
    assert.match(String(error.message), /posts:write/);
  });
});

describe('workspace and brand context', () => {
  test('a key reaching several workspaces without the header → 400 PUBLIC_API_WORKSPACE_REQUIRED', async () => {
    await t.workspace('live');
    const k = await t.key({ workspaceIds: null });
    assertError(await t.inject({ url: '/v1/posts', key: k }), 400, 'PUBLIC_API_WORKSPACE_REQUIRED');
    assert.equal(
      (await t.inject({ url: '/v1/posts', key: k, headers: { 'x-herald-workspace-id': t.owner.workspaceId } }))
        .statusCode,
      200,
    );
  });

  test('unknown, malformed and foreign workspaces get the same 403 PUBLIC_API_WORKSPACE_FORBIDDEN', async () => {
    const other = await t.workspace();
    const messages = new Set<unknown>();
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', other.workspaceId]) {
      messages.add(
        assertError(
          await t.inject({ url: '/v1/posts', key, headers: { 'x-herald-workspace-id': id } }),
          403,
          'PUBLIC_API_WORKSPACE_FORBIDDEN',
        ).message,
      );
    }
    assert.equal(messages.size, 1, 'one answer for all three');
  });

  test("a brand outside the workspace, or outside the key's brands → 403 PUBLIC_API_BRAND_FORBIDDEN", async () => {
    const other = await t.workspace();
    assertError(
      await t.inject({ url: '/v1/posts', key, headers: { 'x-herald-brand-id': other.brandId } }),
      403,
      'PUBLIC_API_BRAND_FORBIDDEN',
    );
    const limited = await t.key({ brandIds: ['brand_somewhere_else'] });
    assertError(
      await t.inject({ url: '/v1/posts', key: limited, headers: { 'x-herald-brand-id': t.owner.brandId } }),
      403,
      'PUBLIC_API_BRAND_FORBIDDEN',
    );
  });
});

describe('idempotency header', () => {
  test('a mutating call without Idempotency-Key → 400 PUBLIC_API_IDEMPOTENCY_REQUIRED', async () => {
    assertError(
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        idem: false,
        payload: { content: 'x', platforms: ['x'] },
      }),
      400,
      'PUBLIC_API_IDEMPOTENCY_REQUIRED',
    );
  });

  test('a key longer than 255 characters or with non-ASCII → 400 PUBLIC_API_IDEMPOTENCY_REQUIRED', async () => {
    for (const value of ['k'.repeat(256), 'clé', '"a"b"', '"bad \\x escape"']) {
      assertError(
        await t.inject({
          method: 'POST',
          url: '/v1/posts',
          key,
          headers: { 'idempotency-key': value },
          payload: { content: 'x', platforms: ['x'] },
        }),
        400,
        'PUBLIC_API_IDEMPOTENCY_REQUIRED',
      );
    }
  });
});

describe('bodies and query strings', () => {
  const auth = () => ({
    authorization: `Bearer ${key}`,
    'idempotency-key': `k-${Math.random()}`,
    'content-type': 'application/json',
  });

  test('malformed JSON → 400 PUBLIC_API_BODY_INVALID', async () => {
    assertError(await post(auth(), '{"content": "x", '), 400, 'PUBLIC_API_BODY_INVALID');
  });

  test('invalid UTF-8 → 400 PUBLIC_API_BODY_INVALID', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"content":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","platforms":["x"]}'),
    ]);
    const error = assertError(await post(auth(), bytes as unknown as string), 400, 'PUBLIC_API_BODY_INVALID');
    assert.match(String(error.message), /UTF-8/);
  });

  test('prototype poisoning and absurd nesting → 400 PUBLIC_API_BODY_INVALID', async () => {
    assertError(
      await post(auth(), '{"content":"x","platforms":["x"],"__proto__":{"admin":true}}'),
      400,
      'PUBLIC_API_BODY_INVALID',
    );
    assertError(await post(auth(), '['.repeat(1000) + ']'.repeat(1000)), 400, 'PUBLIC_API_BODY_INVALID');
  });

  test('a body that is not JSON → 415 PUBLIC_API_UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      assertError(
        await post({ ...auth(), 'content-type': type }, 'content=x'),
        415,
        'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE',
      );
    }
  });

  test('a body over the limit → 413 PUBLIC_API_PAYLOAD_TOO_LARGE', async () => {
    assertError(
      await post(auth(), JSON.stringify({ content: 'x'.repeat(5000), platforms: ['x'] })),
      413,
      'PUBLIC_API_PAYLOAD_TOO_LARGE',
    );
  });

  test('query strings that fail the schema → 400 PUBLIC_API_QUERY_INVALID with details', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'status=unknown',
      'colour=red',
      'scheduled_from=yesterday',
      'cursor=%%%',
    ]) {
      const error = assertError(await t.inject({ url: `/v1/posts?${query}`, key }), 400, 'PUBLIC_API_QUERY_INVALID');
      assert.ok(Array.isArray(error.details), query);
    }
  });
});

describe('routes and resources', () => {
  test('an unknown route → 404 PUBLIC_API_ROUTE_NOT_FOUND', async () => {
    assertError(await t.inject({ url: '/v1/nothing-here', key }), 404, 'PUBLIC_API_ROUTE_NOT_FOUND');
  });

  test('a known route with another method → 405 PUBLIC_API_METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await t.inject({ method: 'PUT', url: '/v1/posts', key });
    assertError(res, 405, 'PUBLIC_API_METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, 'GET, HEAD, POST');
  });

  test('an unknown post → 404 PUBLIC_API_NOT_FOUND', async () => {
    assertError(await t.inject({ url: '/v1/posts/post_missing', key }), 404, 'PUBLIC_API_NOT_FOUND');
  });

  test('an action not allowed in the state → 409 PUBLIC_API_STATE_CONFLICT', async () => {
    const id = (
      await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { content: 'x', platforms: ['x'] } })
    ).json().data.post_id;
    await t.inject({ method: 'POST', url: `/v1/posts/${id}/cancel`, key });
    assertError(
      await t.inject({ method: 'POST', url: `/v1/posts/${id}/cancel`, key }),
      409,
      'PUBLIC_API_STATE_CONFLICT',
    );
  });

  test('a rule that fails → 422 PUBLIC_API_VALIDATION_FAILED with platform and rule', async () => {
    const error = assertError(
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'y'.repeat(300), platforms: ['x'] },
      }),
      422,
      'PUBLIC_API_VALIDATION_FAILED',
    );
    assert.deepEqual(
      (error.details as Array<Record<string, unknown>>).map((d) => [d.platform, d.rule]),
      [['x', 'text_too_long']],
    );
  });
});

describe('server-side failures', () => {
  test('an unreachable database → 503 PUBLIC_API_UNAVAILABLE with Retry-After, nothing written', async () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      HERALD_SECRET_KEY: TEST_SECRET,
      HERALD_LOG_LEVEL: 'silent',
    });
    const container = buildContainer({
      config,
      logger: createLogger('silent'),
      connectionString: config.databaseUrl!,
      keyring: { current: TEST_SECRET, previous: [] },
    });
    const app = await buildServer(container);
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/posts',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'k' },
        payload: { content: 'x', platforms: ['x'] },
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error.code, 'PUBLIC_API_UNAVAILABLE');
      assert.ok(Number(res.headers['retry-after']) >= 1);
    } finally {
      await app.close();
      await container.close();
    }
  });

  test('an unexpected failure → 500 PUBLIC_API_INTERNAL_ERROR without internals; the log has the details', async () => {
    const app = await buildServer(t.container);
    app.get('/v1/explode', { config: { access: { scopes: 'public', workspace: false, mutates: false } } }, async () => {
      throw new Error('secret internal detail: password=hunter2');
    });
    app.get(
      '/v1/expected',
      { config: { access: { scopes: 'public', workspace: false, mutates: false } } },
      async () => {
        throw new AppError('PUBLIC_API_NOT_FOUND', 'gone');
      },
    );
    try {
      const res = await app.inject({ url: '/v1/explode' });
      const error = assertError(res, 500, 'PUBLIC_API_INTERNAL_ERROR');
      assert.doesNotMatch(String(error.message), /hunter2|secret/);
      assert.match(String(error.message), new RegExp(res.json().request_id));
      assert.ok(
        t.logs.some((l) => l.level >= 50 && l.request_id === res.json().request_id),
        'logged with the request id',
      );
      assertError(await app.inject({ url: '/v1/expected' }), 404, 'PUBLIC_API_NOT_FOUND');
    } finally {
      await app.close();
    }
  });
});

describe('outside /v1', () => {
  test('unknown paths answer 404 in a small JSON body, with X-Request-Id', async () => {
    const res = await t.inject({ url: '/nothing' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error, 'PUBLIC_API_ROUTE_NOT_FOUND');
    assert.match(String(res.headers['x-request-id']), /^req_/);
  });

  test('health, metrics and docs answer in their own formats', async () => {
    assert.deepEqual((await t.inject({ url: '/health/live' })).json(), { status: 'ok', version: heraldVersion() });
    const ready = await t.inject({ url: '/health/ready' });
    // This app runs no worker: it is ready (it can serve), and /health/publishing is the one that says so (503).
    assert.equal(ready.statusCode, 200, ready.body);
    assert.equal(ready.json().checks.migrations, 'current');
    const publishing = await t.inject({ url: '/health/publishing' });
    assert.equal(publishing.statusCode, 503);
    assert.deepEqual(publishing.json().problems, ['no_worker']);
    const metrics = await t.inject({ url: '/metrics' });
    assert.match(
      metrics.body,
      /herald_http_requests_total\{method="GET",route="\/health\/publishing",status="503"\} 1/,
    );
    assert.match((await t.inject({ url: '/docs/errors' })).body, /PUBLIC_API_IDEMPOTENCY_CONFLICT/);
    // The reference page loads on first use (src/http/server.ts): the page and the script it names both answer.
    const page = await t.inject({ url: '/docs/' });
    assert.match(String(page.headers['content-type']), /text\/html/);
    const scripts = [...page.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map(
      (m) => new URL(m[1]!, 'http://herald.test/docs/').pathname,
    );
    assert.ok(scripts.length > 0, 'the page loads its script');
    for (const src of scripts) {
      const script = await t.inject({ url: src });
      assert.equal(script.statusCode, 200, src);
      assert.match(String(script.headers['content-type']), /javascript/, src);
      assert.ok(script.rawPayload.length > 100_000, `${src} is the bundle (${script.rawPayload.length} bytes)`);
    }
  });
});
