// Delivery as issue #7 describes it, through the real delivery runner to local receivers: signed with Standard
// Webhooks (checked with the reference verifier), retried on 500 / timeouts / refused connections on the
// schedule (the test clock drives it; signatures use wall time), 410 disables, 5 days of failures disable,
// secret rotation, the SSRF guard at send time, Retry-After, manual retries.
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startDeliveryRunner, type DeliveryRunner } from '../src/jobs/deliveries.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, JITTER } from '../src/features/webhooks/schedule.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { startReceiver, verify, type Receiver } from './helpers/receiver.ts';
import { waitFor } from './helpers/wait.ts';
import { fakeDns, releaseDueDeliveries, testClock } from './helpers/webhooks.ts';

const HOUR = 3_600_000;
const clock = testClock();
const dns = fakeDns({ 'rebind.example': ['93.184.216.34'] });
let t: TestApp;
let runner: DeliveryRunner;
let receiver: Receiver;
let key: string;

before(async () => {
  t = await buildTestApp({
    clock,
    lookup: dns,
    // Receivers listen on 127.0.0.2, the one address allowed; the rest of loopback stays refused.
    env: { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.2', HERALD_WEBHOOK_TIMEOUT_MS: '500', HERALD_WORKER_POLL_INTERVAL_MS: '100', HERALD_WEBHOOK_CONCURRENCY: '4' },
  });
  runner = await startDeliveryRunner(t.container);
});
after(async () => {
  await runner.stop();
  await t.close();
});

// Each test has a workspace and a receiver of its own: retries left over from an earlier test (released when
// a later test moves the clock) go to a closed port of another workspace, never into this test's counts.
beforeEach(async () => {
  const ws = await t.workspace();
  key = await t.key({ workspaceIds: [ws.workspaceId] });
  receiver = await startReceiver('127.0.0.2');
});
afterEach(() => receiver.close());

async function endpoint(url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
  const res = await t.inject({ method: 'POST', url: '/v1/webhooks', key, payload: { url, events } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

async function createPost(): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { content: 'Hello webhooks', platforms: ['x'] } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post_id;
}

async function deliveries(endpointId: string) {
  const res = await t.inject({ url: `/v1/webhooks/${endpointId}/deliveries?limit=100`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.items as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function delivery(endpointId: string, id: string) {
  return (await t.inject({ url: `/v1/webhooks/${endpointId}/deliveries/${id}`, key })).json().data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Waits until the delivery has made `attempts` attempts (and is no longer being worked on). */
async function attempted(endpointId: string, id: string, attempts: number, label: string) {
  await waitFor(async () => (await delivery(endpointId, id)).attempt_count >= attempts, { label });
  return delivery(endpointId, id);
}

/** Moves the test clock to the delivery's next attempt and lets the queue see it. */
async function untilNextAttempt(d: Record<string, string>) {
  clock.set(new Date(d.next_attempt_at!));
  await releaseDueDeliveries(t.container.pool, clock);
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.2', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('signed delivery', () => {
  test('a post.created event reaches the receiver signed, and verifies with the standardwebhooks library', async () => {
    const { id, secret } = await endpoint(`${receiver.origin}/hooks`, ['post.created']);
    const postId = await createPost();
    const [request] = await receiver.waitForRequests(1, 'post.created delivery');
    assert.equal(request!.method, 'POST');
    assert.equal(request!.url, '/hooks');
    assert.equal(request!.headers['content-type'], 'application/json');
    const payload = verify(secret, request!);
    assert.deepEqual(Object.keys(payload), ['id', 'type', 'created_at', 'workspace_id', 'data']);
    assert.equal(payload.type, 'post.created');
    assert.equal(request!.headers['webhook-id'], payload.id);
    assert.match(payload.id as string, /^evt_/);
    assert.equal((payload.data as { id: string }).id, postId);
    const skew = Math.abs(Number(request!.headers['webhook-timestamp']) * 1000 - Date.now());
    assert.ok(skew < 60_000, 'signed with the wall clock');
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers as Record<string, string>), /No matching signature/);

    const [d] = await deliveries(id);
    await waitFor(async () => (await delivery(id, d!.id)).status === 'delivered', { label: 'delivery marked delivered' });
    const done = await delivery(id, d!.id);
    assert.equal(done.event_id, payload.id);
    assert.equal(done.attempt_count, 1);
    assert.equal(done.attempts[0].status_code, 200);
    assert.equal(done.attempts[0].response_body, 'ok');
    assert.equal(done.attempts[0].trigger, 'automatic');
    assert.equal(done.attempts[0].error, null);
    assert.ok(done.attempts[0].duration_ms >= 0);
    assert.deepEqual(JSON.parse(request!.body), done.payload, 'the payload shown is the body sent');
  });

  test('webhook.test reaches only the endpoint tested, even one not subscribed to anything it would get', async () => {
    const tested = await endpoint(`${receiver.origin}/tested`, ['post.failed']);
    await endpoint(`${receiver.origin}/other`, ['*']);
    const res = await t.inject({ method: 'POST', url: `/v1/webhooks/${tested.id}/test`, key });
    const [request] = await receiver.waitForRequests(1, 'test delivery');
    assert.equal(request!.url, '/tested');
    assert.equal(verify(tested.secret, request!).type, 'webhook.test');
    const d = await attempted(tested.id, res.json().data.id, 1, 'test delivery logged');
    assert.equal(d.attempts[0].trigger, 'manual');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.requests.length, 1);
  });
});

describe('retries', () => {
  test('500, a timeout and a dropped connection are retried on the schedule with the same webhook-id, then delivered', async () => {
    const { id, secret } = await endpoint(`${receiver.origin}/flaky`, ['post.created']);
    receiver.answer((_request, i) => (i === 0 ? { status: 500, body: 'boom\u0000' } : i === 1 ? 'hang' : i === 2 ? 'destroy' : { status: 204 }));
    await createPost();
    const [first] = await deliveries(id);
    const codes: Array<string | null> = [];
    let d = await attempted(id, first!.id, 1, 'attempt 1');
    for (let n = 1; n <= 3; n++) {
      const last = d.attempts.at(-1);
      codes.push(last.error?.code ?? null);
      assert.equal(d.status, 'pending');
      const delay = Date.parse(d.next_attempt_at) - Date.parse(last.started_at);
      const base = RETRY_DELAYS_MS[n - 1]!;
      assert.ok(delay >= base * (1 - JITTER) && delay <= base * (1 + JITTER), `retry ${n} after ${delay} ms (schedule ${base} ms ±20 %)`);
      await untilNextAttempt(d);
      d = await attempted(id, first!.id, n + 1, `attempt ${n + 1}`);
    }
    assert.deepEqual(codes, ['http_status', 'timeout', 'connection_reset']);
    assert.equal(d.attempts[0].status_code, 500);
    assert.equal(d.attempts[0].response_body, 'boom\uFFFD', 'a NUL in the answer is stored as U+FFFD');
    assert.equal(d.attempts[1].status_code, null);
    assert.equal(d.status, 'delivered');
    assert.equal(d.attempts[3].status_code, 204);
    const ids = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 1, 'webhook-id is stable across retries');
    for (const request of receiver.requests.slice(-1)) verify(secret, request);
    const ep = (await t.inject({ url: `/v1/webhooks/${id}`, key })).json().data;
    assert.equal(ep.failing_since, null, 'a success ends the failing streak');
  });

  test('a refused connection is retried; after ten failed attempts over about three days the delivery fails', async () => {
    const { id } = await endpoint(`http://127.0.0.2:${await closedPort()}/`, ['post.created']);
    const start = clock.now().getTime();
    await createPost();
    const [first] = await deliveries(id);
    let d = await attempted(id, first!.id, 1, 'attempt 1');
    assert.equal(d.attempts[0].error.code, 'connection_failed');
    const ep = (await t.inject({ url: `/v1/webhooks/${id}`, key })).json().data;
    assert.ok(ep.failing_since, 'the endpoint is marked failing');
    for (let n = 2; n <= MAX_ATTEMPTS; n++) {
      await untilNextAttempt(d);
      d = await attempted(id, first!.id, n, `attempt ${n}`);
    }
    assert.equal(d.status, 'failed');
    assert.equal(d.failure_reason, 'retries_exhausted');
    assert.equal(d.next_attempt_at, null);
    const span = Date.parse(d.attempts.at(-1).started_at) - start;
    const nominal = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    assert.ok(span >= nominal * (1 - JITTER) && span <= nominal * (1 + JITTER) + 60_000, `${(span / 86_400_000).toFixed(2)} days`);
    assert.ok(span > 2.4 * 24 * HOUR && span < 3.8 * 24 * HOUR);
  });

  test('Retry-After on a 429 postpones the retry', async () => {
    const { id } = await endpoint(`${receiver.origin}/busy`, ['post.created']);
    receiver.answer(() => ({ status: 429, headers: { 'retry-after': '7200' } }));
    await createPost();
    const [first] = await deliveries(id);
    const d = await attempted(id, first!.id, 1, '429 attempt');
    const delay = Date.parse(d.next_attempt_at) - Date.parse(d.attempts[0].started_at);
    assert.ok(delay >= 7200_000, `retry after ${delay} ms`);
  });
});

describe('disabling', () => {
  test('410 Gone disables the endpoint at once, emits webhook_endpoint.disabled, and stops its other deliveries', async () => {
    const gone = await endpoint(`${receiver.origin}/gone`, ['post.created', 'post.updated']);
    const watcher = await endpoint(`${receiver.origin}/watcher`, ['webhook_endpoint.disabled']);
    receiver.answer((request) => (request.url === '/gone' ? { status: 410 } : { status: 200 }));
    const postId = await createPost();
    const [first] = await deliveries(gone.id);
    const d = await attempted(gone.id, first!.id, 1, '410 attempt');
    assert.equal(d.status, 'failed');
    assert.equal(d.failure_reason, 'endpoint_gone');
    const ep = (await t.inject({ url: `/v1/webhooks/${gone.id}`, key })).json().data;
    assert.deepEqual([ep.enabled, ep.disabled_reason], [false, 'endpoint_gone']);
    const notice = await waitFor(() => receiver.requests.some((r) => r.url === '/watcher'), { label: 'webhook_endpoint.disabled delivery' });
    assert.ok(notice >= 0);
    const payload = verify(watcher.secret, receiver.requests.find((r) => r.url === '/watcher')!);
    assert.equal(payload.type, 'webhook_endpoint.disabled');
    assert.equal((payload.data as { id: string; disabled_reason: string }).id, gone.id);
    assert.equal((payload.data as { disabled_reason: string }).disabled_reason, 'endpoint_gone');
    // New events no longer go to it.
    const before = receiver.requests.filter((r) => r.url === '/gone').length;
    await t.inject({ method: 'PATCH', url: `/v1/posts/${postId}`, key, payload: { content: 'edited' } });
    assert.equal((await deliveries(gone.id)).length, 1);
    assert.equal(receiver.requests.filter((r) => r.url === '/gone').length, before);
  });

  test('an endpoint failing continuously for 5 days is disabled, with an event; a pending delivery then fails unsent', async () => {
    const failing = await endpoint(`${receiver.origin}/down`, ['post.created']);
    const watcher = await endpoint(`${receiver.origin}/watcher`, ['webhook_endpoint.disabled']);
    receiver.answer((request) => (request.url === '/down' ? { status: 503 } : { status: 200 }));
    const start = clock.now().getTime();
    await createPost();
    const [first] = await deliveries(failing.id);
    let d = await attempted(failing.id, first!.id, 1, 'first failure');
    for (let n = 2; n <= MAX_ATTEMPTS; n++) {
      await untilNextAttempt(d);
      d = await attempted(failing.id, first!.id, n, `attempt ${n}`);
    }
    assert.equal(d.failure_reason, 'retries_exhausted');
    // Day 4: a new event, still failing; its retries carry on past day 5.
    clock.set(new Date(start + 4 * 24 * HOUR));
    await createPost();
    const second = (await deliveries(failing.id)).find((x) => x.id !== first!.id)!;
    let s = await attempted(failing.id, second.id, 1, 'day-4 attempt');
    while (s.status === 'pending' && Date.parse(s.next_attempt_at) - start < 5 * 24 * HOUR) {
      await untilNextAttempt(s);
      s = await attempted(failing.id, second.id, s.attempt_count + 1, `attempt ${s.attempt_count + 1} of the day-4 event`);
    }
    await untilNextAttempt(s);
    s = await attempted(failing.id, second.id, s.attempt_count + 1, 'the attempt past 5 days');
    assert.equal(s.status, 'failed');
    assert.equal(s.failure_reason, 'endpoint_disabled');
    const ep = (await t.inject({ url: `/v1/webhooks/${failing.id}`, key })).json().data;
    assert.deepEqual([ep.enabled, ep.disabled_reason], [false, 'failing']);
    assert.ok(Date.parse(ep.disabled_at) - Date.parse(ep.failing_since) >= 5 * 24 * HOUR);
    await waitFor(() => receiver.requests.some((r) => r.url === '/watcher'), { label: 'webhook_endpoint.disabled delivery' });
    const notice = verify(watcher.secret, receiver.requests.find((r) => r.url === '/watcher')!);
    assert.equal((notice.data as { disabled_reason: string }).disabled_reason, 'failing');
  });
});

describe('secrets and manual retries', () => {
  test('after a rotation both secrets sign for 24 h, then only the new one', async () => {
    const { id, secret: oldSecret } = await endpoint(`${receiver.origin}/rotating`, ['post.created']);
    const rotated = await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/rotate-secret`, key });
    const newSecret = rotated.json().data.secret as string;
    await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/test`, key });
    const [during] = await receiver.waitForRequests(1, 'delivery during the grace period');
    assert.equal(String(during!.headers['webhook-signature']).split(' ').length, 2);
    verify(oldSecret, during!);
    verify(newSecret, during!);
    clock.advance(24 * HOUR + 1000);
    await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/test`, key });
    const [, later] = await receiver.waitForRequests(2, 'delivery after the grace period');
    assert.equal(String(later!.headers['webhook-signature']).split(' ').length, 1);
    verify(newSecret, later!);
    assert.throws(() => verify(oldSecret, later!), /No matching signature/);
  });

  test('a manual retry sends a delivered event again, with the same webhook-id, logged as manual', async () => {
    const { id } = await endpoint(`${receiver.origin}/again`, ['post.created']);
    await createPost();
    const [d] = await deliveries(id);
    await attempted(id, d!.id, 1, 'first delivery');
    const res = await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/deliveries/${d!.id}/retry`, key });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.status, 'pending');
    const [one, two] = await receiver.waitForRequests(2, 'manual redelivery');
    assert.equal(one!.headers['webhook-id'], two!.headers['webhook-id']);
    const done = await attempted(id, d!.id, 2, 'manual attempt logged');
    assert.equal(done.status, 'delivered');
    assert.deepEqual(done.attempts.map((a: { trigger: string }) => a.trigger), ['automatic', 'manual']);
  });

  test('a manual retry brings a scheduled retry forward', async () => {
    const { id } = await endpoint(`${receiver.origin}/later`, ['post.created']);
    receiver.answer((_r, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    await createPost();
    const [d] = await deliveries(id);
    const failed = await attempted(id, d!.id, 1, 'first failure');
    assert.equal(failed.status, 'pending');
    await t.inject({ method: 'POST', url: `/v1/webhooks/${id}/deliveries/${d!.id}/retry`, key });
    const done = await attempted(id, d!.id, 2, 'retried now, not at the scheduled time');
    assert.equal(done.status, 'delivered');
  });
});

describe('the SSRF guard at send time', () => {
  test('a host that resolved publicly at creation but points at loopback when sending is refused at connect', async () => {
    const target = await startReceiver('127.0.0.1'); // not allow-listed
    try {
      const { id } = await endpoint(`https://rebind.example:${target.port}/`, ['post.created']);
      dns.table['rebind.example'] = ['127.0.0.1']; // DNS rebinding: the name now points at loopback
      await createPost();
      const [d] = await deliveries(id);
      const done = await attempted(id, d!.id, 1, 'blocked attempt');
      assert.equal(done.attempts[0].error.code, 'address_blocked');
      assert.equal(done.attempts[0].status_code, null);
      assert.equal(target.connections, 0, 'no connection was even opened to the loopback address');
    } finally {
      await target.close();
    }
  });

  test('a redirect (to a private address or anywhere) is not followed and counts as a failure', async () => {
    const { id } = await endpoint(`${receiver.origin}/moved`, ['post.created']);
    receiver.answer((request) => (request.url === '/moved' ? { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } } : { status: 200 }));
    await createPost();
    const [d] = await deliveries(id);
    const done = await attempted(id, d!.id, 1, 'redirected attempt');
    assert.equal(done.attempts[0].status_code, 302);
    assert.equal(done.attempts[0].error.code, 'http_status');
    assert.match(done.attempts[0].error.message, /redirects are not followed/);
    assert.equal(done.status, 'pending');
    assert.deepEqual(receiver.requests.map((r) => r.url), ['/moved']);
  });
});

test('jobs of a deleted endpoint do nothing', async () => {
  const { id } = await endpoint(`${receiver.origin}/deleted`, ['post.created']);
  receiver.answer(() => ({ status: 500 }));
  await createPost();
  const [d] = await deliveries(id);
  const failed = await attempted(id, d!.id, 1, 'first failure');
  await t.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, key });
  await untilNextAttempt(failed);
  await waitFor(async () => (await t.container.pool.query(`SELECT 1 FROM graphile_worker_deliveries._private_jobs WHERE key = $1`, [`delivery:${d!.id}`])).rowCount === 0, { label: 'the orphan job to finish' });
  assert.equal(receiver.requests.length, 1);
});
