// Delivery as issue #7 describes it, through the real delivery runner to local receivers: signed with Standard
// Webhooks (checked with the reference verifier), secret rotation, manual retries, and the SSRF guard at send
// time. Retries and disabling are in webhooks-retries.test.ts.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startDeliveryHarness, type DeliveryHarness } from './helpers/delivery-harness.ts';
import { startReceiver, verify } from './helpers/receiver.ts';
import { waitFor } from './helpers/wait.ts';

const HOUR = 3_600_000;

let h: DeliveryHarness;
before(async () => {
  h = await startDeliveryHarness();
});
beforeEach(() => h.fresh());
after(() => h.close());

describe('signed delivery', () => {
  test('a post.created event reaches the receiver signed, and verifies with the standardwebhooks library', async () => {
    const { id, secret } = await h.endpoint(`${h.receiver.origin}/hooks`, ['post.created']);
    const sentFrom = performance.now();
    const postId = await h.createPost();
    const [request] = await h.receiver.waitForRequests(1, 'post.created delivery');
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
    assert.throws(
      () =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
          request!.body,
          request!.headers as Record<string, string>,
        ),
      /No matching signature/,
    );

    const [d] = await h.deliveries(id);
    await waitFor(async () => (await h.delivery(id, d!.id)).status === 'delivered', {
      label: 'delivery marked delivered',
    });
    const done = await h.delivery(id, d!.id);
    const span = performance.now() - sentFrom;
    assert.equal(done.event_id, payload.id);
    assert.equal(done.attempt_count, 1);
    assert.equal(done.attempts[0].status_code, 200);
    assert.equal(done.attempts[0].response_body, 'ok');
    assert.equal(done.attempts[0].trigger, 'automatic');
    assert.equal(done.attempts[0].error, null);
    // How long the POST took, in whole ms: measured inside the span from creating the post to seeing it delivered
    // (+1 for the rounding), never null for an attempt that got an answer.
    const duration: unknown = done.attempts[0].duration_ms;
    assert.ok(Number.isInteger(duration), `duration_ms is ${String(duration)}`);
    assert.ok(
      (duration as number) >= 0 && (duration as number) <= Math.ceil(span) + 1,
      `duration_ms ${String(duration)} within the ${Math.round(span)} ms the delivery took`,
    );
    assert.deepEqual(JSON.parse(request!.body), done.payload, 'the payload shown is the body sent');
  });

  test('webhook.test reaches only the endpoint tested, even one not subscribed to anything it would get', async () => {
    const tested = await h.endpoint(`${h.receiver.origin}/tested`, ['post.failed']);
    await h.endpoint(`${h.receiver.origin}/other`, ['*']);
    const res = await h.t.inject({ method: 'POST', url: `/v1/webhooks/${tested.id}/test`, key: h.key });
    const [request] = await h.receiver.waitForRequests(1, 'test delivery');
    assert.equal(request!.url, '/tested');
    assert.equal(verify(tested.secret, request!).type, 'webhook.test');
    const d = await h.attempted(tested.id, res.json().data.id, 1, 'test delivery logged');
    assert.equal(d.attempts[0].trigger, 'manual');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(h.receiver.requests.length, 1);
  });
});

describe('secrets and manual retries', () => {
  test('after a rotation both secrets sign for 24 h, then only the new one', async () => {
    const { id, secret: oldSecret } = await h.endpoint(`${h.receiver.origin}/rotating`, ['post.created']);
    const rotated = await h.t.inject({ method: 'POST', url: `/v1/webhooks/${id}/rotate-secret`, key: h.key });
    const newSecret = rotated.json().data.secret as string;
    await h.t.inject({ method: 'POST', url: `/v1/webhooks/${id}/test`, key: h.key });
    const [during] = await h.receiver.waitForRequests(1, 'delivery during the grace period');
    assert.equal(String(during!.headers['webhook-signature']).split(' ').length, 2);
    verify(oldSecret, during!);
    verify(newSecret, during!);
    h.clock.advance(24 * HOUR + 1000);
    await h.t.inject({ method: 'POST', url: `/v1/webhooks/${id}/test`, key: h.key });
    const [, later] = await h.receiver.waitForRequests(2, 'delivery after the grace period');
    assert.equal(String(later!.headers['webhook-signature']).split(' ').length, 1);
    verify(newSecret, later!);
    assert.throws(() => verify(oldSecret, later!), /No matching signature/);
  });

  test('a manual retry sends a delivered event again, with the same webhook-id, logged as manual', async () => {
    const { id } = await h.endpoint(`${h.receiver.origin}/again`, ['post.created']);
    await h.createPost();
    const [d] = await h.deliveries(id);
    await h.attempted(id, d!.id, 1, 'first delivery');
    const res = await h.t.inject({ method: 'POST', url: `/v1/webhooks/${id}/deliveries/${d!.id}/retry`, key: h.key });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.status, 'pending');
    const [one, two] = await h.receiver.waitForRequests(2, 'manual redelivery');
    assert.equal(one!.headers['webhook-id'], two!.headers['webhook-id']);
    const done = await h.attempted(id, d!.id, 2, 'manual attempt logged');
    assert.equal(done.status, 'delivered');
    assert.deepEqual(
      done.attempts.map((a: { trigger: string }) => a.trigger),
      ['automatic', 'manual'],
    );
  });

  test('a manual retry brings a scheduled retry forward', async () => {
    const { id } = await h.endpoint(`${h.receiver.origin}/later`, ['post.created']);
    h.receiver.answer((_r, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    await h.createPost();
    const [d] = await h.deliveries(id);
    const failed = await h.attempted(id, d!.id, 1, 'first failure');
    assert.equal(failed.status, 'pending');
    await h.t.inject({ method: 'POST', url: `/v1/webhooks/${id}/deliveries/${d!.id}/retry`, key: h.key });
    const done = await h.attempted(id, d!.id, 2, 'retried now, not at the scheduled time');
    assert.equal(done.status, 'delivered');
  });
});

describe('the SSRF guard at send time', () => {
  test('a host that resolved publicly at creation but points at loopback when sending is refused at connect', async () => {
    const target = await startReceiver('127.0.0.1'); // not allow-listed
    try {
      const { id } = await h.endpoint(`https://rebind.example:${target.port}/`, ['post.created']);
      h.dns.table['rebind.example'] = ['127.0.0.1']; // DNS rebinding: the name now points at loopback
      await h.createPost();
      const [d] = await h.deliveries(id);
      const done = await h.attempted(id, d!.id, 1, 'blocked attempt');
      assert.equal(done.attempts[0].error.code, 'address_blocked');
      assert.equal(done.attempts[0].status_code, null);
      assert.equal(target.connections, 0, 'no connection was even opened to the loopback address');
    } finally {
      await target.close();
    }
  });

  test('a redirect (to a private address or anywhere) is not followed and counts as a failure', async () => {
    const { id } = await h.endpoint(`${h.receiver.origin}/moved`, ['post.created']);
    h.receiver.answer((request) =>
      request.url === '/moved'
        ? { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }
        : { status: 200 },
    );
    await h.createPost();
    const [d] = await h.deliveries(id);
    const done = await h.attempted(id, d!.id, 1, 'redirected attempt');
    assert.equal(done.attempts[0].status_code, 302);
    assert.equal(done.attempts[0].error.code, 'http_status');
    assert.match(done.attempts[0].error.message, /redirects are not followed/);
    assert.equal(done.status, 'pending');
    assert.deepEqual(
      h.receiver.requests.map((r) => r.url),
      ['/moved'],
    );
  });
});

test('jobs of a deleted endpoint do nothing', async () => {
  const { id } = await h.endpoint(`${h.receiver.origin}/deleted`, ['post.created']);
  h.receiver.answer(() => ({ status: 500 }));
  await h.createPost();
  const [d] = await h.deliveries(id);
  const failed = await h.attempted(id, d!.id, 1, 'first failure');
  await h.t.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, key: h.key });
  await h.untilNextAttempt(failed);
  await waitFor(
    async () =>
      (
        await h.t.container.pool.query(`SELECT 1 FROM graphile_worker_deliveries._private_jobs WHERE key = $1`, [
          `delivery:${d!.id}`,
        ])
      ).rowCount === 0,
    { label: 'the orphan job to finish' },
  );
  assert.equal(h.receiver.requests.length, 1);
});
