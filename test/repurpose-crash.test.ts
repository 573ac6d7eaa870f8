// A repurpose job survives a worker kill and completes exactly once: a real `herald serve --role worker` process
// is SIGKILLed while it fetches the article, a second worker takes the job over once the first one's heartbeat is
// stale, and the job ends `completed` with one post per output and one `repurpose.completed`; running the task again
// for the finished job changes nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { taskList } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { crashWorkers } from './helpers/crash-workers.ts';
import { ARTICLE_HTML, jobEnded, startJob } from './helpers/repurpose.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let server: http.Server;
let dataDir: string;
let hits = 0;
/** While true, the article is held: the first worker dies with the request open. */
let holding = true;
const held = new Set<http.ServerResponse>();
const workers = crashWorkers(() => ({
  DATABASE_URL: t.db.connectionString,
  HERALD_DATA_DIR: dataDir,
  HERALD_SANDBOX_URL: sandbox.url,
  HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1',
}));

before(async () => {
  server = http.createServer((_request, response) => {
    hits++;
    if (holding) {
      held.add(response);
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<html><body>'); // the rest never comes to this worker
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE_HTML);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'herald-repurpose-crash-'));
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1', HERALD_DATA_DIR: dataDir },
  });
});
after(async () => {
  await workers.killAll();
  for (const r of held) r.destroy();
  await t.close();
  await sandbox.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dataDir, { recursive: true, force: true });
});

test('a worker killed mid-job: the next worker completes the job exactly once', async () => {
  const key = await t.key();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/blog/article`;
  const job = await startJob(t, key, {
    source: { type: 'url', url },
    targets: [
      { platform: 'x', format: 'thread' },
      { platform: 'linkedin', format: 'post' },
    ],
  });

  const first = workers.start();
  await pollFor('first worker fetching the article', async () => hits >= 1);
  const row = await t.container.pool.query('SELECT status FROM repurpose_jobs WHERE id = $1', [job.id]);
  assert.equal(row.rows[0].status, 'fetching');
  await workers.kill(first);

  holding = false;
  workers.start();
  const done = await jobEnded(t, key, job.id);
  assert.equal(done.status, 'completed', JSON.stringify(done.error ?? done.outputs));
  assert.equal(done.outputs.length, 2);
  assert.ok(hits >= 2, 'the second worker fetched the article again');

  const posts = await t.container.pool.query(`SELECT id FROM posts WHERE created_via = 'repurpose'`);
  assert.deepEqual(posts.rows.map((r) => r.id).sort(), done.outputs.map((o: { post_id: string }) => o.post_id).sort());
  const events = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [job.id]);
  assert.deepEqual(
    events.rows.map((r) => r.type),
    ['repurpose.completed'],
  );

  // A duplicate run of the task (a retried job, a second queue entry) finds the job finished and writes nothing.
  const run = taskList(t.container).repurpose as (payload: unknown, helpers: unknown) => Promise<void>;
  await run({ workspace_id: t.owner.workspaceId, job_id: job.id }, { job: { attempts: 1, max_attempts: 3 } });
  const after = await t.container.pool.query(`SELECT count(*)::int AS n FROM posts WHERE created_via = 'repurpose'`);
  assert.equal(after.rows[0].n, 2);
});
