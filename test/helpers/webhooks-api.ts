// Shared by the webhooks API tests (webhooks-endpoints, webhooks-fanout, webhooks-access): the app's options (a DNS
// table for the SSRF guard, one allow-listed host) and the requests they make, bound to the file's app and key.
import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { TestApp } from './app.ts';
import { fakeDns } from './webhooks.ts';

/** What `buildTestApp` gets: resolvable public, private, loopback and mixed hosts; receiver.test allow-listed. */
export function webhookApiOptions() {
  const dns = fakeDns({
    'hooks.example.com': ['93.184.216.34'],
    'other.example.com': ['93.184.216.35', '2606:2800:220:1::1'],
    'loopback.example': ['127.0.0.1'],
    'private.example': ['10.0.0.7'],
    'mixed.example': ['93.184.216.34', '192.168.1.20'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'receiver.test': ['127.0.0.1'],
  });
  return { env: { HERALD_OUTBOUND_ALLOWLIST: 'receiver.test' }, lookup: dns };
}

export function assertSchema(schema: TSchema, value: unknown) {
  assert.ok(Value.Check(schema, value), JSON.stringify([...Value.Errors(schema, value)].slice(0, 3)));
}

/** The file's app and key are read when a request is made (both are set in `before`). */
export function webhookApiRequests(context: () => { t: TestApp; key: string }) {
  async function createEndpoint(
    body: Record<string, unknown>,
    k = context().key,
    headers: Record<string, string> = {},
  ) {
    return context().t.inject({ method: 'POST', url: '/v1/webhooks', key: k, payload: body, headers });
  }

  async function endpoint(events: string[] = ['*'], url = 'https://hooks.example.com/herald') {
    const res = await createEndpoint({ url, events });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as { id: string; secret: string };
  }

  async function createPost(k = context().key) {
    const res = await context().t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: k,
      payload: { content: 'Hello', platforms: ['x'] },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.post_id as string;
  }

  async function deliveriesOf(endpointId: string) {
    const { rows } = await context().t.container.pool.query(
      'SELECT id, event_type, status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id',
      [endpointId],
    );
    return rows as Array<{ id: string; event_type: string; status: string }>;
  }

  return { createEndpoint, endpoint, createPost, deliveriesOf };
}
