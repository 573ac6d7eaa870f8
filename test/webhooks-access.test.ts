// The webhooks API's tenant isolation and scopes: another workspace's endpoints and deliveries are 404 everywhere;
// managing webhooks takes webhooks:manage and a key not limited to brands.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { webhookApiOptions, webhookApiRequests } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp(webhookApiOptions());
  key = await t.key();
});
after(() => t.close());

const { createEndpoint, endpoint, createPost, deliveriesOf } = webhookApiRequests(() => ({ t, key }));

describe('tenant isolation', () => {
  test("another workspace's endpoints and deliveries are 404 everywhere, and never listed", async () => {
    const other = await t.workspace();
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const theirs = (await createEndpoint({ url: 'https://hooks.example.com/theirs', events: ['*'] }, otherKey)).json()
      .data.id;
    await createPost(otherKey);
    const [theirDelivery] = await deliveriesOf(theirs);
    assert.ok(theirDelivery);
    const probes: Array<[string, string]> = [
      ['GET', `/v1/webhooks/${theirs}`],
      ['PATCH', `/v1/webhooks/${theirs}`],
      ['DELETE', `/v1/webhooks/${theirs}`],
      ['POST', `/v1/webhooks/${theirs}/rotate-secret`],
      ['POST', `/v1/webhooks/${theirs}/test`],
      ['GET', `/v1/webhooks/${theirs}/deliveries`],
      ['GET', `/v1/webhooks/${theirs}/deliveries/${theirDelivery.id}`],
      ['POST', `/v1/webhooks/${theirs}/deliveries/${theirDelivery.id}/retry`],
    ];
    for (const [method, url] of probes) {
      const res = await t.inject({
        method: method as 'GET',
        url,
        key,
        payload: method === 'PATCH' ? { enabled: false } : undefined,
      });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_NOT_FOUND');
      assert.ok(!res.body.includes('hooks.example.com/theirs'));
    }
    // A delivery id of theirs under an endpoint of ours is not found either.
    const ours = (await endpoint()).id;
    const cross = await t.inject({ url: `/v1/webhooks/${ours}/deliveries/${theirDelivery.id}`, key });
    assert.equal(cross.statusCode, 404);
    const listed = (await t.inject({ url: '/v1/webhooks?limit=100', key }))
      .json()
      .data.items.map((e: { id: string }) => e.id);
    assert.ok(!listed.includes(theirs));
    const header = await t.inject({
      url: '/v1/webhooks',
      key,
      headers: { 'x-herald-workspace-id': other.workspaceId },
    });
    assert.equal(header.statusCode, 403);
    assert.equal(header.json().error.code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
    const { rows } = await t.container.pool.query('SELECT enabled FROM webhook_endpoints WHERE id = $1', [theirs]);
    assert.equal(rows[0].enabled, true, 'the probes changed nothing');
  });

  test('a key without webhooks:manage gets 403, and a key limited to brands cannot manage webhooks', async () => {
    const noScope = await t.key({ scopes: ['posts:read', 'posts:write'] });
    const res = await t.inject({ url: '/v1/webhooks', key: noScope });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    assert.match(res.json().error.message, /webhooks:manage/);
    const branded = await t.key({ brandIds: [t.owner.brandId] });
    const made = await createEndpoint({ url: 'https://hooks.example.com/brand', events: ['*'] }, branded);
    assert.equal(made.statusCode, 403);
    assert.equal(made.json().error.code, 'PUBLIC_API_BRAND_FORBIDDEN');
  });
});
