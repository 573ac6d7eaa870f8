// The webhooks API as API.md "Events" and issue #7 describe it: endpoints (secret shown once, URL checked by
// the SSRF guard), fan-out of outbox events into deliveries, idempotent replay, and tenant isolation.
// Delivery itself (the runner) is tested in webhooks-delivery.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { Webhook } from 'standardwebhooks';
import { JOB_SCHEMAS } from '../src/db/migrate.ts';
import { withTransaction } from '../src/db/pool.ts';
import { appendEvent } from '../src/features/events/outbox.ts';
import { WebhookDelivery, WebhookEndpoint } from '../src/features/webhooks/webhooks.schemas.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { fakeDns } from './helpers/webhooks.ts';

let t: TestApp;
let key: string;

const dns = fakeDns({
  'hooks.example.com': ['93.184.216.34'],
  'other.example.com': ['93.184.216.35', '2606:2800:220:1::1'],
  'loopback.example': ['127.0.0.1'],
  'private.example': ['10.0.0.7'],
  'mixed.example': ['93.184.216.34', '192.168.1.20'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'receiver.test': ['127.0.0.1'],
});

before(async () => {
  t = await buildTestApp({ env: { HERALD_OUTBOUND_ALLOWLIST: 'receiver.test' }, lookup: dns });
  key = await t.key();
});
after(() => t.close());

async function createEndpoint(body: Record<string, unknown>, k = key, headers: Record<string, string> = {}) {
  return t.inject({ method: 'POST', url: '/v1/webhooks', key: k, payload: body, headers });
}

async function endpoint(events: string[] = ['*'], url = 'https://hooks.example.com/herald') {
  const res = await createEndpoint({ url, events });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; secret: string };
}

function assertSchema(schema: TSchema, value: unknown) {
  assert.ok(Value.Check(schema, value), JSON.stringify([...Value.Errors(schema, value)].slice(0, 3)));
}

describe('POST /v1/webhooks', () => {
  test('creates an endpoint and shows its whsec_ secret once', async () => {
    const res = await createEndpoint({
      url: 'https://hooks.example.com/herald',
      events: ['post.created', 'post.published'],
      description: 'Production',
    });
    assert.equal(res.statusCode, 201);
    const data = res.json().data;
    assert.match(data.id, /^whe_/);
    assert.equal(data.object, 'webhook_endpoint');
    assert.deepEqual(data.events, ['post.created', 'post.published']);
    assert.equal(data.enabled, true);
    assert.equal(data.disabled_reason, null);
    assert.equal(data.description, 'Production');
    assert.match(data.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.doesNotThrow(() => new Webhook(data.secret)); // a secret the reference library accepts
    const { secret, ...rest } = data;
    assertSchema(WebhookEndpoint, rest);
    assert.ok(secret);

    const got = await t.inject({ url: `/v1/webhooks/${data.id}`, key });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().data.secret, undefined);
    assert.ok(!got.body.includes(data.secret));
    const { rows } = await t.container.pool.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [data.id]);
    assert.ok(!rows[0].secret.toString('latin1').includes(data.secret.slice(6)), 'the secret is stored encrypted');
  });

  test('a replay with the same Idempotency-Key returns the same secret, stored encrypted', async () => {
    const body = { url: 'https://hooks.example.com/replay', events: ['*'] };
    const first = await createEndpoint(body, key, { 'idempotency-key': 'create-hook-1' });
    const second = await createEndpoint(body, key, { 'idempotency-key': 'create-hook-1' });
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.json(), first.json());
    const { rows } = await t.container.pool.query(
      `SELECT encrypted, response_body FROM idempotency_keys WHERE key = 'create-hook-1'`,
    );
    assert.equal(rows[0].encrypted, true);
    assert.ok(!rows[0].response_body.toString('latin1').includes(first.json().data.secret));
    const { rows: count } = await t.container.pool.query(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = 'https://hooks.example.com/replay'`,
    );
    assert.equal(count[0].n, 1);
  });

  test('private, loopback, link-local, metadata and mapped addresses are refused with 422 address_blocked', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:a9fe:a9fe]/hook',
      'https://loopback.example/hook',
      'https://private.example/hook',
      'https://mixed.example/hook',
      'https://mapped.example/hook',
      'https://100.64.0.1/hook',
      'https://[fd00::1]/hook',
    ]) {
      const res = await createEndpoint({ url, events: ['*'] });
      assert.equal(res.statusCode, 422, url);
      const error = res.json().error;
      assert.equal(error.code, 'PUBLIC_API_VALIDATION_FAILED', url);
      assert.deepEqual([error.details[0].path, error.details[0].rule], ['/url', 'address_blocked'], url);
      assert.match(error.message, /HERALD_OUTBOUND_ALLOWLIST/);
    }
  });

  test('a host that does not resolve is a 422 with rule dns_unresolved', async () => {
    const res = await createEndpoint({ url: 'https://nowhere.example/hook', events: ['*'] });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.details[0].rule, 'dns_unresolved');
  });

  test('plain http is refused (scheme_blocked) unless the host is allow-listed', async () => {
    const refused = await createEndpoint({ url: 'http://hooks.example.com/hook', events: ['*'] });
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.details[0].rule, 'scheme_blocked');
    const ftp = await createEndpoint({ url: 'ftp://hooks.example.com/hook', events: ['*'] });
    assert.equal(ftp.json().error.details[0].rule, 'scheme_blocked');
    const allowed = await createEndpoint({ url: 'http://receiver.test:8080/hook', events: ['*'] });
    assert.equal(allowed.statusCode, 201, allowed.body);
  });

  test('malformed URLs, credentials in URLs, unknown event types and bad lists are refused', async () => {
    const invalid = await createEndpoint({ url: 'not a url', events: ['*'] });
    assert.equal(invalid.statusCode, 422);
    assert.equal(invalid.json().error.details[0].rule, 'url_invalid');
    const creds = await createEndpoint({ url: 'https://user:pw@hooks.example.com/', events: ['*'] });
    assert.equal(creds.json().error.details[0].rule, 'url_invalid');
    for (const body of [
      { url: 'https://hooks.example.com/', events: ['post.exploded'] },
      { url: 'https://hooks.example.com/', events: [] },
      { url: 'https://hooks.example.com/', events: ['post.created', 'post.created'] },
      { url: 'https://hooks.example.com/', events: ['webhook.test'] },
      { url: 'https://hooks.example.com/', events: ['*', 'post.created'] },
      { url: 'https://hooks.example.com/', events: ['*'], secret: 'whsec_mine' },
      { events: ['*'] },
    ]) {
      const res = await createEndpoint(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
      assert.ok(res.json().error.details.length > 0);
    }
    const unknown = await createEndpoint({ url: 'https://hooks.example.com/', events: ['post.exploded'] });
    assert.deepEqual(
      unknown.json().error.details.map((d: { path: string }) => d.path),
      ['/events/0'],
    );
    assert.match(unknown.json().error.details[0].message, /must be one of: \*, post\.created/);
  });
});

describe('reading, editing and deleting endpoints', () => {
  test('list is newest first and paginates with a cursor', async () => {
    const ws = await t.workspace();
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await createEndpoint({ url: `https://hooks.example.com/${i}`, events: ['*'] }, k)).json().data.id);
    const page1 = (await t.inject({ url: '/v1/webhooks?limit=2', key: k })).json().data;
    assert.deepEqual(
      page1.items.map((e: { id: string }) => e.id),
      [ids[2], ids[1]],
    );
    assert.equal(page1.has_more, true);
    for (const item of page1.items) assertSchema(WebhookEndpoint, item);
    const page2 = (await t.inject({ url: `/v1/webhooks?limit=2&cursor=${page1.next_cursor}`, key: k })).json().data;
    assert.deepEqual(
      page2.items.map((e: { id: string }) => e.id),
      [ids[0]],
    );
    assert.equal(page2.has_more, false);
    assert.equal(page2.next_cursor, null);
  });

  test('PATCH changes events, description and URL (checked again), and pauses or resumes', async () => {
    const { id } = await endpoint();
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      key,
      payload: { events: ['post.failed'], description: 'ops' },
    });
    assert.equal(patched.statusCode, 200);
    assert.deepEqual(patched.json().data.events, ['post.failed']);
    const cleared = await t.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, key, payload: { description: null } });
    assert.equal(cleared.json().data.description, null);
    const blocked = await t.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      key,
      payload: { url: 'https://loopback.example/x' },
    });
    assert.equal(blocked.statusCode, 422);
    assert.equal(blocked.json().error.details[0].rule, 'address_blocked');
    const moved = await t.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      key,
      payload: { url: 'https://other.example.com/new' },
    });
    assert.equal(moved.json().data.url, 'https://other.example.com/new');
    const paused = await t.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, key, payload: { enabled: false } });
    assert.deepEqual([paused.json().data.enabled, paused.json().data.disabled_reason], [false, 'manual']);
    assert.ok(paused.json().data.disabled_at);
    const resumed = await t.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, key, payload: { enabled: true } });
    assert.deepEqual(
      [resumed.json().data.enabled, resumed.json().data.disabled_reason, resumed.json().data.disabled_at],
      [true, null, null],
    );
  });

  test('DELETE removes the endpoint, its deliveries and their jobs stop mattering', async () => {
    const { id } = await endpoint();
    await createPost();
    const del = await t.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, key });
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.json().data, { id, object: 'webhook_endpoint', deleted: true });
    assert.equal((await t.inject({ url: `/v1/webhooks/${id}`, key })).statusCode, 404);
    const { rows } = await t.container.pool.query(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1',
      [id],
    );
    assert.equal(rows[0].n, 0);
  });

  test('rotate-secret returns a new secret; the old one keeps signing for 24 h, or not at all with 0', async () => {
    const { id, secret } = await endpoint();
    const rotated = await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/rotate-secret`, key });
    assert.equal(rotated.statusCode, 200);
    const data = rotated.json().data;
    assert.match(data.secret, /^whsec_/);
    assert.notEqual(data.secret, secret);
    const expires = Date.parse(data.previous_secret_expires_at) - Date.now();
    assert.ok(expires > 23.9 * 3600_000 && expires <= 24 * 3600_000, `previous secret valid for ${expires} ms`);
    const again = await t.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/rotate-secret`,
      key,
      payload: { previous_secret_expires_in: 0 },
    });
    assert.equal(again.json().data.previous_secret_expires_at, null);
    const { rows } = await t.container.pool.query('SELECT previous_secret FROM webhook_endpoints WHERE id = $1', [id]);
    assert.equal(rows[0].previous_secret, null);
  });

  test('test and retry are refused (409) while the endpoint is disabled', async () => {
    const { id } = await endpoint();
    await t.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, key, payload: { enabled: false } });
    const res = await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/test`, key });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
  });
});

async function createPost(k = key) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key: k,
    payload: { content: 'Hello', platforms: ['x'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post_id as string;
}

async function deliveriesOf(endpointId: string) {
  const { rows } = await t.container.pool.query(
    'SELECT id, event_type, status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id',
    [endpointId],
  );
  return rows as Array<{ id: string; event_type: string; status: string }>;
}

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

describe('OpenAPI', () => {
  test('documents the webhook routes and every event type in the 3.1 `webhooks` section', async () => {
    const doc = (await t.inject({ url: '/v1/openapi.json' })).json();
    assert.equal(doc.openapi, '3.1.0');
    for (const path of [
      '/webhooks',
      '/webhooks/{id}',
      '/webhooks/{id}/rotate-secret',
      '/webhooks/{id}/test',
      '/webhooks/{id}/deliveries',
      '/webhooks/{id}/deliveries/{delivery_id}/retry',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    assert.ok(doc.webhooks['post.published'].post.requestBody);
    assert.equal(
      doc.webhooks['post.created'].post.requestBody.content['application/json'].schema.properties.data.$ref,
      '#/components/schemas/Post',
    );
    assert.ok(doc.components.schemas.WebhookEndpoint);
    assert.equal(Object.keys(doc.webhooks).length, 23);
  });
});
