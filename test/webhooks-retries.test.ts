// Retries and disabling as issue #7 describes them, through the real delivery runner: 500 / timeouts / dropped
// and refused connections retried on the schedule (the test clock drives it; signatures use wall time), with a
// stable webhook-id; Retry-After; 410 Gone and 5 days of failures disable the endpoint, with an event.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JITTER, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/features/webhooks/schedule.ts';
import { startDeliveryHarness, type DeliveryHarness } from './helpers/delivery-harness.ts';
import { verify } from './helpers/receiver.ts';
import { waitFor } from './helpers/wait.ts';

const HOUR = 3_600_000;

let h: DeliveryHarness;
before(async () => {
  h = await startDeliveryHarness();
});
beforeEach(() => h.fresh());
after(() => h.close());

describe('retries', () => {
  test('500, a timeout and a dropped connection are retried on the schedule with the same webhook-id, then delivered', async () => {
    const { id, secret } = await h.endpoint(`${h.receiver.origin}/flaky`, ['post.created']);
    h.receiver.answer((_request, i) =>
      i === 0 ? { status: 500, body: 'boom\u0000' } : i === 1 ? 'hang' : i === 2 ? 'destroy' : { status: 204 },
    );
    await h.createPost();
    const [first] = await h.deliveries(id);
    const codes: Array<string | null> = [];
    let d = await h.attempted(id, first!.id, 1, 'attempt 1');
    for (let n = 1; n <= 3; n++) {
      const last = d.attempts.at(-1);
      codes.push(last.error?.code ?? null);
      assert.equal(d.status, 'pending');
      const delay = Date.parse(d.next_attempt_at) - Date.parse(last.started_at);
      const base = RETRY_DELAYS_MS[n - 1]!;
      assert.ok(
        delay >= base * (1 - JITTER) && delay <= base * (1 + JITTER),
        `retry ${n} after ${delay} ms (schedule ${base} ms ±20 %)`,
      );
      await h.untilNextAttempt(d);
      d = await h.attempted(id, first!.id, n + 1, `attempt ${n + 1}`);
    }
    assert.deepEqual(codes, ['http_status', 'timeout', 'connection_reset']);
    assert.equal(d.attempts[0].status_code, 500);
    assert.equal(d.attempts[0].response_body, 'boom\uFFFD', 'a NUL in the answer is stored as U+FFFD');
    assert.equal(d.attempts[1].status_code, null);
    assert.equal(d.status, 'delivered');
    assert.equal(d.attempts[3].status_code, 204);
    const ids = new Set(h.receiver.requests.map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 1, 'webhook-id is stable across retries');
    for (const request of h.receiver.requests.slice(-1)) verify(secret, request);
    const ep = (await h.t.inject({ url: `/v1/webhooks/${id}`, key: h.key })).json().data;
    assert.equal(ep.failing_since, null, 'a success ends the failing streak');
  });

  test('a refused connection is retried; after ten failed attempts over about three days the delivery fails', async () => {
    const { id } = await h.endpoint(`http://127.0.0.2:${await h.closedPort()}/`, ['post.created']);
    const start = h.clock.now().getTime();
    await h.createPost();
    const [first] = await h.deliveries(id);
    let d = await h.attempted(id, first!.id, 1, 'attempt 1');
    assert.equal(d.attempts[0].error.code, 'connection_failed');
    const ep = (await h.t.inject({ url: `/v1/webhooks/${id}`, key: h.key })).json().data;
    assert.ok(ep.failing_since, 'the endpoint is marked failing');
    for (let n = 2; n <= MAX_ATTEMPTS; n++) {
      await h.untilNextAttempt(d);
      d = await h.attempted(id, first!.id, n, `attempt ${n}`);
    }
    assert.equal(d.status, 'failed');
    assert.equal(d.failure_reason, 'retries_exhausted');
    assert.equal(d.next_attempt_at, null);
    const span = Date.parse(d.attempts.at(-1).started_at) - start;
    const nominal = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    assert.ok(
      span >= nominal * (1 - JITTER) && span <= nominal * (1 + JITTER) + 60_000,
      `${(span / 86_400_000).toFixed(2)} days`,
    );
    assert.ok(span > 2.4 * 24 * HOUR && span < 3.8 * 24 * HOUR);
  });

  test('Retry-After on a 429 postpones the retry', async () => {
    const { id } = await h.endpoint(`${h.receiver.origin}/busy`, ['post.created']);
    h.receiver.answer(() => ({ status: 429, headers: { 'retry-after': '7200' } }));
    await h.createPost();
    const [first] = await h.deliveries(id);
    const d = await h.attempted(id, first!.id, 1, '429 attempt');
    const delay = Date.parse(d.next_attempt_at) - Date.parse(d.attempts[0].started_at);
    assert.ok(delay >= 7200_000, `retry after ${delay} ms`);
  });
});

describe('disabling', () => {
  test('410 Gone disables the endpoint at once, emits webhook_endpoint.disabled, and stops its other deliveries', async () => {
    const gone = await h.endpoint(`${h.receiver.origin}/gone`, ['post.created', 'post.updated']);
    const watcher = await h.endpoint(`${h.receiver.origin}/watcher`, ['webhook_endpoint.disabled']);
    h.receiver.answer((request) => (request.url === '/gone' ? { status: 410 } : { status: 200 }));
    const postId = await h.createPost();
    const [first] = await h.deliveries(gone.id);
    const d = await h.attempted(gone.id, first!.id, 1, '410 attempt');
    assert.equal(d.status, 'failed');
    assert.equal(d.failure_reason, 'endpoint_gone');
    const ep = (await h.t.inject({ url: `/v1/webhooks/${gone.id}`, key: h.key })).json().data;
    assert.deepEqual([ep.enabled, ep.disabled_reason], [false, 'endpoint_gone']);
    await waitFor(() => h.receiver.requests.some((r) => r.url === '/watcher'), {
      label: 'webhook_endpoint.disabled delivery',
    });
    // The endpoint is disabled by the 410 attempt itself, and the notice follows that answer at once: the test
    // clock never moved, so it is the notice's first, automatic attempt, not a retry on the schedule.
    assert.equal(ep.disabled_at, d.attempts[0].started_at);
    const goneAnswered = h.receiver.requests.find((r) => r.url === '/gone')!.receivedAt;
    const notice = h.receiver.requests.find((r) => r.url === '/watcher')!;
    assert.ok(
      notice.receivedAt >= goneAnswered,
      `notice ${notice.receivedAt - goneAnswered} ms after the 410 (it cannot come before)`,
    );
    const [told] = await h.deliveries(watcher.id);
    const toldDone = await h.attempted(watcher.id, told!.id, 1, 'webhook_endpoint.disabled delivery logged');
    assert.deepEqual(
      [toldDone.status, toldDone.attempt_count, toldDone.attempts[0].trigger],
      ['delivered', 1, 'automatic'],
    );
    const payload = verify(watcher.secret, notice);
    assert.equal(payload.type, 'webhook_endpoint.disabled');
    assert.equal(payload.id, toldDone.event_id);
    assert.equal((payload.data as { id: string; disabled_reason: string }).id, gone.id);
    assert.equal((payload.data as { disabled_reason: string }).disabled_reason, 'endpoint_gone');
    assert.equal((payload.data as { disabled_at: string }).disabled_at, ep.disabled_at);
    // New events no longer go to it.
    const before = h.receiver.requests.filter((r) => r.url === '/gone').length;
    await h.t.inject({ method: 'PATCH', url: `/v1/posts/${postId}`, key: h.key, payload: { content: 'edited' } });
    assert.equal((await h.deliveries(gone.id)).length, 1);
    assert.equal(h.receiver.requests.filter((r) => r.url === '/gone').length, before);
  });

  test('an endpoint failing continuously for 5 days is disabled, with an event; a pending delivery then fails unsent', async () => {
    const failing = await h.endpoint(`${h.receiver.origin}/down`, ['post.created']);
    const watcher = await h.endpoint(`${h.receiver.origin}/watcher`, ['webhook_endpoint.disabled']);
    h.receiver.answer((request) => (request.url === '/down' ? { status: 503 } : { status: 200 }));
    const start = h.clock.now().getTime();
    await h.createPost();
    const [first] = await h.deliveries(failing.id);
    let d = await h.attempted(failing.id, first!.id, 1, 'first failure');
    for (let n = 2; n <= MAX_ATTEMPTS; n++) {
      await h.untilNextAttempt(d);
      d = await h.attempted(failing.id, first!.id, n, `attempt ${n}`);
    }
    assert.equal(d.failure_reason, 'retries_exhausted');
    // Day 4: a new event, still failing; its retries carry on past day 5.
    h.clock.set(new Date(start + 4 * 24 * HOUR));
    await h.createPost();
    const second = (await h.deliveries(failing.id)).find((x) => x.id !== first!.id)!;
    let s = await h.attempted(failing.id, second.id, 1, 'day-4 attempt');
    while (s.status === 'pending' && Date.parse(s.next_attempt_at) - start < 5 * 24 * HOUR) {
      await h.untilNextAttempt(s);
      s = await h.attempted(
        failing.id,
        second.id,
        s.attempt_count + 1,
        `attempt ${s.attempt_count + 1} of the day-4 event`,
      );
    }
    await h.untilNextAttempt(s);
    s = await h.attempted(failing.id, second.id, s.attempt_count + 1, 'the attempt past 5 days');
    assert.equal(s.status, 'failed');
    assert.equal(s.failure_reason, 'endpoint_disabled');
    const ep = (await h.t.inject({ url: `/v1/webhooks/${failing.id}`, key: h.key })).json().data;
    assert.deepEqual([ep.enabled, ep.disabled_reason], [false, 'failing']);
    assert.ok(Date.parse(ep.disabled_at) - Date.parse(ep.failing_since) >= 5 * 24 * HOUR);
    await waitFor(() => h.receiver.requests.some((r) => r.url === '/watcher'), {
      label: 'webhook_endpoint.disabled delivery',
    });
    const notice = verify(
      watcher.secret,
      h.receiver.requests.find((r) => r.url === '/watcher')!,
    );
    assert.equal((notice.data as { disabled_reason: string }).disabled_reason, 'failing');
  });
});
