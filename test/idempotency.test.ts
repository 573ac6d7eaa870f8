// docs/api.md "Idempotency": scope (workspace + user), fingerprint, 24 h replay of 2xx answers only, 422 on reuse
// with another request, 409 while the first is running, and N concurrent identical requests → one resource.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({ env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000' } });
  key = await t.key();
});
after(() => t.close());

const body = { content: 'idempotent hello', platforms: ['x'] };
const countPosts = async () =>
  (await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n as number;

describe('replay', () => {
  test('a retry with the same key and body replays status and body, marked Idempotent-Replayed, with a new X-Request-Id', async () => {
    const first = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'replay-1', payload: body });
    const before = await countPosts();
    const second = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'replay-1', payload: body });
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 201);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.notEqual(second.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(second.json().request_id, first.json().request_id, 'the body keeps the original request id');
    assert.equal(await countPosts(), before, 'nothing new was created');
  });

  test('key order and whitespace do not change the fingerprint; a quoted key means the bare key', async () => {
    const first = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      idem: 'canon-1',
      headers: { 'content-type': 'application/json' },
      payload: '{"content":"c","platforms":["x"]}',
    });
    const second = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      idem: '"canon-1"',
      headers: { 'content-type': 'application/json' },
      payload: '{ "platforms" : [ "x" ] , "content" : "c" }',
    });
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.body, first.body);
  });

  test('another key of the same user replays too (a retry survives key rotation)', async () => {
    const other = await t.key();
    const first = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'rotate-1', payload: body });
    const second = await t.inject({ method: 'POST', url: '/v1/posts', key: other, idem: 'rotate-1', payload: body });
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.body, first.body);
  });

  test('the same key in another workspace is a different key', async () => {
    const ws = await t.workspace();
    const both = await t.key({ workspaceIds: [t.owner.workspaceId, ws.workspaceId] });
    const a = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: both,
      idem: 'ws-1',
      headers: { 'x-herald-workspace-id': t.owner.workspaceId },
      payload: body,
    });
    const b = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: both,
      idem: 'ws-1',
      headers: { 'x-herald-workspace-id': ws.workspaceId },
      payload: body,
    });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.notEqual(a.json().data.post_id, b.json().data.post_id);
  });

  test('an answer older than 24 h is forgotten: the key creates a new resource', async () => {
    const first = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'old-1', payload: body });
    await t.container.pool.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'old-1'`,
    );
    const second = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'old-1', payload: body });
    assert.equal(second.statusCode, 201);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.notEqual(second.json().data.post_id, first.json().data.post_id);
  });
});

describe('conflict', () => {
  test('the same key with another body → 422 PUBLIC_API_IDEMPOTENCY_CONFLICT', async () => {
    await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'conflict-1', payload: body });
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      idem: 'conflict-1',
      payload: { ...body, content: 'different' },
    });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.code, 'PUBLIC_API_IDEMPOTENCY_CONFLICT');
  });

  test('the same key on another path or with another brand header → 422', async () => {
    const post = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'conflict-2', payload: body });
    const id = post.json().data.post_id;
    const other = await t.inject({ method: 'POST', url: `/v1/posts/${id}/cancel`, key, idem: 'conflict-2' });
    assert.equal(other.json().error.code, 'PUBLIC_API_IDEMPOTENCY_CONFLICT');
    const branded = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      idem: 'conflict-2',
      headers: { 'x-herald-brand-id': t.owner.brandId },
      payload: body,
    });
    assert.equal(branded.json().error.code, 'PUBLIC_API_IDEMPOTENCY_CONFLICT');
  });

  test('a 4xx answer is not stored: the client fixes the body and retries with the same key', async () => {
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      idem: 'fix-1',
      payload: { content: 'q'.repeat(281), platforms: ['x'] },
    });
    assert.equal(bad.statusCode, 422);
    const good = await t.inject({ method: 'POST', url: '/v1/posts', key, idem: 'fix-1', payload: body });
    assert.equal(good.statusCode, 201);
    assert.equal(good.headers['idempotent-replayed'], undefined);
  });
});

describe('concurrency', () => {
  test('50 concurrent identical POSTs: 201 or 409 + Retry-After: 1; after retrying the 409s all 50 bodies are identical and one post exists', async () => {
    const idem = `burst-${Date.now()}`;
    const payload = { content: `burst ${idem}`, platforms: ['x', 'bluesky'] };
    const send = () => t.inject({ method: 'POST', url: '/v1/posts', key, idem, payload });
    const results = await Promise.all(Array.from({ length: 50 }, send));
    let inProgress = 0;
    for (const res of results) {
      assert.ok(res.statusCode === 201 || res.statusCode === 409, `got ${res.statusCode}`);
      if (res.statusCode === 409) {
        inProgress++;
        assert.equal(res.json().error.code, 'PUBLIC_API_IDEMPOTENCY_IN_PROGRESS');
        assert.equal(res.headers['retry-after'], '1');
      }
    }
    const bodies: string[] = [];
    for (let res of results) {
      for (let tries = 0; res.statusCode === 409 && tries < 50; tries++) {
        await new Promise((r) => setTimeout(r, 20)); // the client's wait (Retry-After is 1 s; the test shortens it)
        res = await send();
      }
      assert.equal(res.statusCode, 201);
      bodies.push(res.body);
    }
    assert.equal(new Set(bodies).size, 1, 'every client holds the same answer');
    const { rows } = await t.container.pool.query('SELECT count(*)::int AS n FROM posts WHERE content = $1', [
      payload.content,
    ]);
    assert.equal(rows[0].n, 1);
    console.log(`# 50 concurrent: ${50 - inProgress} answered at once, ${inProgress} got 409 and were retried`);
  });

  test('concurrent requests with different keys all succeed independently', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.inject({ method: 'POST', url: '/v1/posts', key, idem: `indep-${i}-${Date.now()}`, payload: body }),
      ),
    );
    assert.deepEqual([...new Set(results.map((r) => r.statusCode))], [201]);
    assert.equal(new Set(results.map((r) => r.json().data.post_id)).size, 20);
  });
});
