// Attack class: replaying another key's idempotent answer. Stored answers belong to (workspace, user, key); a
// second API key of the same user, limited to other brands, presents the first key's Idempotency-Key and body and
// must not receive the stored answer — a post of a brand it cannot read, or a webhook's whsec_ secret.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createBrand } from '../../src/features/workspaces/workspaces.service.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { webhookApiOptions } from '../helpers/webhooks-api.ts';

let t: TestApp;
let full: string; // key A: every brand
let limited: string; // key B: same user, only brand 2
let rotated: string; // key A': same user and access as A (A after a rotation)
let brand2: string;

before(async () => {
  t = await buildTestApp(webhookApiOptions());
  brand2 = (await createBrand(t.container.pool, t.owner.workspaceId, 'Brand two')).id;
  full = await t.key();
  limited = await t.key({ brandIds: [brand2] });
  rotated = await t.key();
});
after(() => t.close());

async function mcp(key: string, name: string, args: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().result as {
    isError?: boolean;
    structuredContent: Record<string, unknown> & { error?: { code: string } };
    _meta?: Record<string, unknown>;
  };
}

describe('an Idempotency-Key replay never crosses a key brand restriction', () => {
  test("a brand-limited key replaying another key's webhook creation gets no stored answer and no secret", async () => {
    const body = { url: 'https://hooks.example.com/replay', events: ['*'] };
    const first = await t.inject({
      method: 'POST',
      url: '/v1/webhooks',
      key: full,
      idem: 'wh-replay-1',
      payload: body,
    });
    assert.equal(first.statusCode, 201, first.body);
    const secret = first.json().data.secret as string;
    assert.match(secret, /^whsec_/);

    const stolen = await t.inject({
      method: 'POST',
      url: '/v1/webhooks',
      key: limited,
      idem: 'wh-replay-1',
      payload: body,
    });
    assert.ok(stolen.statusCode >= 400, `expected a refusal, got ${stolen.statusCode}`);
    assert.notEqual(stolen.headers['idempotent-replayed'], 'true');
    assert.ok(!stolen.body.includes('whsec_'), 'the secret must never reach the limited key');
    assert.ok(!stolen.body.includes(first.json().data.id as string));
    assert.ok(
      ['PUBLIC_API_BRAND_FORBIDDEN', 'PUBLIC_API_IDEMPOTENCY_CONFLICT'].includes(stolen.json().error.code),
      stolen.body,
    );

    // The same user's key with the same access (a rotated key) still gets its replay.
    const retry = await t.inject({
      method: 'POST',
      url: '/v1/webhooks',
      key: rotated,
      idem: 'wh-replay-1',
      payload: body,
    });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.json().data.secret, secret);
  });

  test("a brand-limited key replaying another key's post in a brand it cannot read gets no stored answer", async () => {
    const body = { brand_id: t.owner.brandId, content: 'brand one only', platforms: ['x'] };
    const first = await t.inject({ method: 'POST', url: '/v1/posts', key: full, idem: 'post-replay-1', payload: body });
    assert.equal(first.statusCode, 201, first.body);
    const postId = first.json().data.post_id as string;

    const stolen = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: limited,
      idem: 'post-replay-1',
      payload: body,
    });
    assert.ok(stolen.statusCode >= 400, `expected a refusal, got ${stolen.statusCode}: ${stolen.body}`);
    assert.notEqual(stolen.headers['idempotent-replayed'], 'true');
    assert.ok(!stolen.body.includes(postId), 'the brand-1 post must not reach the limited key');

    // The same user's key with the same access still gets its replay.
    const retry = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: rotated,
      idem: 'post-replay-1',
      payload: body,
    });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.json().data.post_id, postId);
  });

  test("over MCP, a brand-limited key reusing another key's idempotency_key gets no stored answer", async () => {
    const args = { brand_id: t.owner.brandId, content: 'mcp brand one', platforms: ['x'], idempotency_key: 'mcp-k1' };
    const first = await mcp(full, 'create_post', args);
    assert.ok(!first.isError, JSON.stringify(first));
    const postId = first.structuredContent.post_id as string;
    assert.match(postId, /^post_/);

    const stolen = await mcp(limited, 'create_post', args);
    assert.equal(stolen.isError, true, JSON.stringify(stolen));
    assert.ok(!JSON.stringify(stolen).includes(postId), 'the brand-1 post must not reach the limited key');
    assert.ok(
      ['PUBLIC_API_BRAND_FORBIDDEN', 'PUBLIC_API_IDEMPOTENCY_CONFLICT'].includes(stolen.structuredContent.error!.code),
    );

    // Without a brand_id, the limited key's call lands in its own brand: still not the brand-1 answer.
    const { brand_id: _omit, ...noBrand } = args;
    const own = await mcp(full, 'create_post', { ...noBrand, idempotency_key: 'mcp-k2' });
    assert.ok(!own.isError, JSON.stringify(own));
    const viaDefault = await mcp(limited, 'create_post', { ...noBrand, idempotency_key: 'mcp-k2' });
    assert.ok(!JSON.stringify(viaDefault).includes(own.structuredContent.post_id as string));

    const retry = await mcp(rotated, 'create_post', args);
    assert.ok(!retry.isError, JSON.stringify(retry));
    assert.equal(retry.structuredContent.post_id, postId);
    assert.equal(retry._meta?.['herald/idempotent_replayed'], true);
  });
});
