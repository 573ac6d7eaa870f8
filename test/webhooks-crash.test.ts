// No event is lost when a worker dies mid-delivery: a real `herald serve --role worker` process is killed with
// SIGKILL while its request is at the receiver; another runner's sweeper unlocks the job once the dead
// worker's heartbeat is stale, and the event is delivered again with the same webhook-id (at least once).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JOB_SCHEMAS } from '../src/db/migrate.ts';
import { startDeliveryRunner, type DeliveryRunner } from '../src/jobs/deliveries.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { startReceiver, verify, type Receiver } from './helpers/receiver.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestApp;
let receiver: Receiver;
let child: ChildProcess | undefined;
let survivor: DeliveryRunner | undefined;
let dataDir: string;

before(async () => {
  t = await buildTestApp({ env: { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' } });
  receiver = await startReceiver();
  dataDir = await mkdtemp(path.join(tmpdir(), 'herald-crash-'));
});
after(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await survivor?.stop();
  await receiver.close();
  await t.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('a worker killed with SIGKILL mid-delivery loses nothing: the event is delivered again with the same webhook-id', async () => {
  const key = await t.key();
  const created = await t.inject({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    payload: { url: `${receiver.origin}/hook`, events: ['post.created'] },
  });
  const { id: endpointId, secret } = created.json().data;
  // The first request is held open (the worker is "mid-delivery" when it dies); later ones are answered.
  receiver.answer((_request, index) => (index === 0 ? 'hang' : { status: 200 }));

  child = spawn(process.execPath, ['bin/herald.js', 'serve', '--role', 'worker'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: t.db.connectionString,
      HERALD_SECRET_KEY: TEST_SECRET,
      HERALD_PUBLIC_URL: 'http://herald.test',
      HERALD_DATA_DIR: dataDir,
      HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1',
      HERALD_LOG_LEVEL: 'warn',
      HERALD_WORKER_POLL_INTERVAL_MS: '100',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child!.once('exit', (_code, signal) => resolve(signal)),
  );

  const post = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: 'Survive a crash', platforms: ['x'] },
  });
  assert.equal(post.statusCode, 201);
  const [first] = await receiver.waitForRequests(1, 'the doomed worker to send the delivery', 30_000);

  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  const { rows: locked } = await t.container.pool.query(
    `SELECT locked_by FROM ${JOB_SCHEMAS.deliveries}.jobs WHERE task_identifier = 'deliver_webhook'`,
  );
  assert.equal(locked.length, 1);
  assert.ok(locked[0].locked_by, 'the dead worker still holds the job');

  // Another runner, sweeping often and declaring a worker dead after 1 s of silence (30 s in production).
  survivor = await startDeliveryRunner(t.container, { liveness: { intervalMs: 200, deadAfterMs: 1000 } });
  const [, second] = await receiver.waitForRequests(
    2,
    'the sweeper to unlock the job and the event to be delivered again',
    30_000,
  );

  assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id'], 'same webhook-id: receivers can dedupe');
  assert.equal(verify(secret, second!).id, first!.headers['webhook-id']);
  const res = await t.inject({ url: `/v1/webhooks/${endpointId}/deliveries`, key });
  const [delivery] = res.json().data.items;
  await waitFor(
    async () =>
      (await t.inject({ url: `/v1/webhooks/${endpointId}/deliveries/${delivery.id}`, key })).json().data.status ===
      'delivered',
    { label: 'delivery marked delivered' },
  );
  const { rows: heartbeats } = await t.container.pool.query(
    'SELECT worker_id FROM job_worker_heartbeats WHERE worker_id = $1',
    [locked[0].locked_by],
  );
  assert.equal(heartbeats.length, 0, 'the dead worker was forgotten');
});
