// The setting of the delivery tests: the real app and delivery runner on a test clock, a DNS table, and for
// each test a workspace and a receiver of its own — retries left over from an earlier test (released when a
// later test moves the clock) go to another workspace's closed port, never into this test's counts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { startDeliveryRunner, type DeliveryRunner } from '../../src/jobs/deliveries.ts';
import { buildTestApp, type TestApp } from './app.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { waitFor } from './wait.ts';
import { fakeDns, releaseDueDeliveries, testClock, type TestClock } from './webhooks.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies, read field by field in assertions
type Json = Record<string, any>;

/** Receivers listen on 127.0.0.2, the one address allowed; the rest of loopback stays refused. */
export const RECEIVER_HOST = '127.0.0.2';

export interface DeliveryHarness {
  t: TestApp;
  clock: TestClock;
  dns: ReturnType<typeof fakeDns>;
  /** This test's receiver and key (a workspace of its own). */
  receiver: Receiver;
  key: string;
  /** Per test: a new workspace, key and receiver. */
  fresh(): Promise<void>;
  endpoint(url: string, events?: string[]): Promise<{ id: string; secret: string }>;
  createPost(): Promise<string>;
  deliveries(endpointId: string): Promise<Json[]>;
  delivery(endpointId: string, id: string): Promise<Json>;
  /** Waits until the delivery has made `attempts` attempts. */
  attempted(endpointId: string, id: string, attempts: number, label: string): Promise<Json>;
  /** Moves the test clock to the delivery's next attempt and lets the queue see it. */
  untilNextAttempt(delivery: Json): Promise<void>;
  closedPort(): Promise<number>;
  close(): Promise<void>;
}

export async function startDeliveryHarness(): Promise<DeliveryHarness> {
  const clock = testClock();
  const dns = fakeDns({ 'rebind.example': ['93.184.216.34'] });
  const t = await buildTestApp({
    clock,
    lookup: dns,
    env: {
      HERALD_OUTBOUND_ALLOWLIST: RECEIVER_HOST,
      HERALD_WEBHOOK_TIMEOUT_MS: '500',
      HERALD_WORKER_POLL_INTERVAL_MS: '100',
      HERALD_WEBHOOK_CONCURRENCY: '4',
    },
  });
  const runner: DeliveryRunner = await startDeliveryRunner(t.container);
  const h: DeliveryHarness = {
    t,
    clock,
    dns,
    receiver: undefined as unknown as Receiver,
    key: '',
    async fresh() {
      await h.receiver?.close();
      const ws = await t.workspace();
      h.key = await t.key({ workspaceIds: [ws.workspaceId] });
      h.receiver = await startReceiver(RECEIVER_HOST);
    },
    async endpoint(url, events = ['*']) {
      const res = await t.inject({ method: 'POST', url: '/v1/webhooks', key: h.key, payload: { url, events } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data;
    },
    async createPost() {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key: h.key,
        payload: { content: 'Hello webhooks', platforms: ['x'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data.post_id;
    },
    async deliveries(endpointId) {
      const res = await t.inject({ url: `/v1/webhooks/${endpointId}/deliveries?limit=100`, key: h.key });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.items;
    },
    async delivery(endpointId, id) {
      return (await t.inject({ url: `/v1/webhooks/${endpointId}/deliveries/${id}`, key: h.key })).json().data;
    },
    async attempted(endpointId, id, attempts, label) {
      await waitFor(async () => (await h.delivery(endpointId, id)).attempt_count >= attempts, { label });
      return h.delivery(endpointId, id);
    },
    async untilNextAttempt(d) {
      clock.set(new Date(d.next_attempt_at));
      await releaseDueDeliveries(t.container.pool, clock);
    },
    closedPort() {
      return new Promise((resolve) => {
        const server = net.createServer().listen(0, RECEIVER_HOST, () => {
          const { port } = server.address() as net.AddressInfo;
          server.close(() => resolve(port));
        });
      });
    },
    async close() {
      await h.receiver?.close();
      await runner.stop();
      await t.close();
    },
  };
  return h;
}
