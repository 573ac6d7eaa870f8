// The webhooks API: fan-out of outbox events into one delivery and one queued job per subscribed endpoint, and
// webhook.test. Delivery itself (the runner) is tested in webhooks-delivery.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_SCHEMAS } from '../src/db/migrate.ts';
import { withTransaction } from '../src/db/pool.ts';
import { appendEvent } from '../src/features/events/outbox.ts';
import { WebhookDelivery } from '../src/features/webhooks/webhooks.schemas.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { assertSchema, webhookApiOptions, webhookApiRequests } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp(webhookApiOptions());
  key = await t.key();
});
after(() => t.close());

const { createEndpoint, deliveriesOf } = webhookApiRequests(() => ({ t, key }));

describe('fan-out of outbox events', () => {
  test('an event becomes one delivery and one queued job per subscribed, enabled endpoint', async () => {
    const ws = await t.workspace();
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    const all = (await createEndpoint({ url: 'https://hooks.example.com/all', events: ['*'] }, k)).json().data.id;
    const created = (
      await createEndpoint({ url: 'https://hooks.example.com/created', events: ['post.created'] }, k)
    ).json().data.id;
    const failed = (
      await createEndpoint({ url: 'https://hooks.example.com/failed', events: ['post.failed'] }, k)
    ).json().data.id;
    const paused = (await createEndpoint({ url: 'https://hooks.example.com/paused', events: ['*'] }, k)).json().data.id;
    await t.inject({ method: 'PATCH', url: `/v1/webhooks/${paused}`, key: k, payload: { enabled: false } });
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: k,
      payload: { content: 'Fan out', platforms: ['x'], schedule_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    assert.equal(res.statusCode, 201);

    assert.deepEqual(
      (await deliveriesOf(all)).map((d) => d.event_type),
      ['post.created', 'post.scheduled'],
    );
    assert.deepEqual(
      (await deliveriesOf(created)).map((d) => d.event_type),
      ['post.created'],
    );
    assert.deepEqual(await deliveriesOf(failed), []);
    assert.deepEqual(await deliveriesOf(paused), []);
    const ids = [...(await deliveriesOf(all)), ...(await deliveriesOf(created))].map((d) => `delivery:${d.id}`);
    const { rows } = await t.container.pool.query(
      `SELECT key, payload FROM ${JOB_SCHEMAS.deliveries}._private_jobs WHERE key = ANY($1)`,
      [ids],
    );
    assert.equal(rows.length, 3);
    for (const row of rows) assert.equal(row.payload.workspace_id, ws.workspaceId);
    const { rows: main } = await t.container.pool.query(
      `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'deliver_webhook'`,
    );
    assert.equal(main[0].n, 0, 'deliveries never sit in the main queue');
  });

  test('an event whose transaction rolls back leaves no delivery and no job', async () => {
    const ws = await t.workspace();
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    const id = (await createEndpoint({ url: 'https://hooks.example.com/rb', events: ['*'] }, k)).json().data.id;
    await assert.rejects(
      withTransaction(t.container.pool, async (tx) => {
        await appendEvent(tx, ws.workspaceId, 'post.created', { id: 'post_x' });
        throw new Error('the change failed');
      }),
    );
    assert.deepEqual(await deliveriesOf(id), []);
    // A failed post creation (422) is the same thing seen from the API.
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: k,
      payload: { content: 'x'.repeat(400), platforms: ['x'] },
    });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(await deliveriesOf(id), []);
  });

  test('webhook.test goes only to the endpoint under test, and the delivery can be read back', async () => {
    const ws = await t.workspace();
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    const a = (await createEndpoint({ url: 'https://hooks.example.com/a', events: ['*'] }, k)).json().data.id;
    const b = (await createEndpoint({ url: 'https://hooks.example.com/b', events: ['*'] }, k)).json().data.id;
    const res = await t.inject({ method: 'POST', url: `/v1/webhooks/${a}/test`, key: k });
    assert.equal(res.statusCode, 200);
    const delivery = res.json().data;
    assertSchema(WebhookDelivery, delivery);
    assert.deepEqual(
      [delivery.event_type, delivery.status, delivery.endpoint_id, delivery.attempts],
      ['webhook.test', 'pending', a, []],
    );
    assert.deepEqual(await deliveriesOf(b), []);
    const one = (await t.inject({ url: `/v1/webhooks/${a}/deliveries/${delivery.id}`, key: k })).json().data;
    assertSchema(WebhookDelivery, one);
    assert.equal(one.payload.id, delivery.event_id);
    assert.equal(one.payload.type, 'webhook.test');
    assert.equal(one.payload.data.endpoint_id, a);
    const list = (await t.inject({ url: `/v1/webhooks/${a}/deliveries?event_type=webhook.test`, key: k })).json().data;
    assert.deepEqual(
      list.items.map((d: { id: string }) => d.id),
      [delivery.id],
    );
    const none = (await t.inject({ url: `/v1/webhooks/${a}/deliveries?status=delivered`, key: k })).json().data;
    assert.deepEqual(none.items, []);
  });
});
