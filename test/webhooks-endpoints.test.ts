// The webhooks API as docs/api.md "Events" and issue #7 describe it, endpoints: create (secret shown once, URL checked
// by the SSRF guard, idempotent replay), list, edit, delete, rotate the secret; and their OpenAPI documentation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { WebhookEndpoint } from '../src/features/webhooks/webhooks.schemas.ts';
import { EVENT_TYPES } from '../src/features/events/outbox.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { assertSchema, webhookApiOptions, webhookApiRequests } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp(webhookApiOptions());
  key = await t.key();
});
after(() => t.close());

const { createEndpoint, endpoint, createPost } = webhookApiRequests(() => ({ t, key }));

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
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES].sort());
  });
});
