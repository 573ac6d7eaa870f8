// Runs that arrive together (docs/automations.md "Runs"): thirty slots due at once, run by the worker, share their
// start and end transactions, and each runs exactly once — a run whose post the posts service refuses and a run
// whose destination is gone fail on their own without failing their neighbours, and approval runs in the same
// transaction keep one approval batch each (none when all their posts were refused); a run that throws in a shared
// end is retried on its own and fails alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { feedCaps } from '../src/features/automations/automations.feed.ts';
import { automationRunner } from '../src/features/automations/automations.run.ts';
import { scheduleDueAutomations } from '../src/features/automations/automations.scheduler.ts';
import { RUN_ATTEMPTS } from '../src/features/automations/automations.service.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({});
  key = await t.key();
});
after(() => t.close());

async function create(i: number): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/automations',
    key,
    payload: {
      name: `Tips ${i}`,
      source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'UTC' },
      generator: { type: 'library', items: [`Tip number ${i}.`] },
      destinations: [{ platform: 'x' }],
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id as string;
}

test('thirty slots due at once each run exactly once; a refused post and a lost destination fail alone', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push(await create(i));
  const [refused, lost] = [ids[7]!, ids[19]!];
  const { pool } = t.container;
  // Changed behind the API's checks: a text too long for X (the posts service refuses it) and a connection that
  // is not the brand's (the plan cannot resolve it).
  await pool.query(`UPDATE automations SET generator = jsonb_set(generator, '{items}', $2) WHERE id = $1`, [
    refused,
    JSON.stringify(['y'.repeat(400)]),
  ]);
  await pool.query(`UPDATE automations SET destinations = $2 WHERE id = $1`, [
    lost,
    JSON.stringify([{ connection_id: 'conn_gone' }]),
  ]);
  const approval = async (id: string, items: string[]) =>
    pool.query(`UPDATE automations SET output = '{"mode": "approval"}', generator = $2 WHERE id = $1`, [
      id,
      JSON.stringify({ type: 'library', items, count: items.length }),
    ]);
  const [held, halfHeld, noneHeld] = [ids[3]!, ids[4]!, ids[5]!];
  await approval(held, ['First held tip.', 'Second held tip.']);
  await approval(halfHeld, ['A held tip.', 'y'.repeat(400)]);
  await approval(noneHeld, ['y'.repeat(400)]);
  await pool.query(`UPDATE automations SET next_run_at = now() - interval '1 minute' WHERE id = ANY($1)`, [ids]);
  const queued = await scheduleDueAutomations({ pool, clock: t.container.clock, batchSize: 100, rssPollMinutes: 15 });
  assert.equal(queued, 30);
  // Queued with one add_jobs call: a job per run, keyed by automation and slot, with the run's attempts.
  const { rows: jobs } = await pool.query<{ key: string; max_attempts: number; payload: { run_id: string } }>(
    `SELECT j.key, j.max_attempts, j.payload FROM graphile_worker._private_jobs j
       JOIN graphile_worker._private_tasks k ON k.id = j.task_id WHERE k.identifier = 'run_automation'`,
  );
  assert.equal(jobs.length, 30);
  for (const job of jobs) {
    assert.match(job.key, /^automation:auto_/);
    assert.equal(job.max_attempts, RUN_ATTEMPTS);
  }
  assert.equal(new Set(jobs.map((j) => j.payload.run_id)).size, 30);
  const worker = await startWorker(t.container);
  try {
    const runs = await pollFor('30 finished runs', async () => {
      const { rows } = await pool.query<{
        automation_id: string;
        status: string;
        posts_created: string[];
        approval_batch_id: string | null;
        error: { code: string } | null;
        finished_at: Date | null;
      }>(
        `SELECT automation_id, status, posts_created, approval_batch_id, error, finished_at FROM automation_runs
           WHERE automation_id = ANY($1)`,
        [ids],
      );
      return rows.filter((r) => r.finished_at).length === 30 ? rows : undefined;
    });
    const byAutomation = Map.groupBy(runs, (r) => r.automation_id);
    for (const id of ids) assert.equal(byAutomation.get(id)?.length, 1, `one run for ${id}`);
    const runOf = (id: string) => byAutomation.get(id)![0]!;
    assert.equal(runOf(refused).status, 'failed');
    assert.equal(runOf(refused).error?.code, 'posts_refused');
    assert.deepEqual(runOf(refused).posts_created, []);
    assert.equal(runOf(lost).status, 'failed');
    assert.equal(runOf(lost).error?.code, 'destination_missing');
    assert.equal(runOf(held).posts_created.length, 2);
    assert.ok(runOf(held).approval_batch_id);
    assert.equal(runOf(halfHeld).status, 'completed');
    assert.equal(runOf(halfHeld).error?.code, 'posts_refused');
    assert.equal(runOf(halfHeld).posts_created.length, 1);
    assert.ok(runOf(halfHeld).approval_batch_id);
    assert.equal(runOf(noneHeld).status, 'failed');
    assert.equal(runOf(noneHeld).approval_batch_id, null);
    const { rows: batches } = await pool.query<{ id: string }>('SELECT id FROM approval_batches');
    assert.deepEqual(
      batches.map((b) => b.id).sort(),
      [runOf(held).approval_batch_id, runOf(halfHeld).approval_batch_id].sort(),
    );
    const { rows: pending } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM posts WHERE status = 'pending_approval' AND id = ANY($1)`,
      [[...runOf(held).posts_created, ...runOf(halfHeld).posts_created]],
    );
    assert.equal(pending[0]!.n, 3);
    const others = ids.filter((id) => ![refused, lost, held, halfHeld, noneHeld].includes(id)).map(runOf);
    for (const run of others) {
      assert.equal(run.status, 'completed', JSON.stringify(run));
      assert.equal(run.posts_created.length, 1);
    }
    const { rows: posts } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM posts WHERE created_via = 'automation' AND workspace_id = $1`,
      [t.owner.workspaceId],
    );
    assert.equal(posts[0]!.n, 28, 'one post per completed run, none for the failed ones');
    // The runs shared their end: one transaction stamps its runs with one finish time.
    const finishTimes = new Set(others.map((r) => r.finished_at!.getTime()));
    assert.ok(finishTimes.size < others.length, `${finishTimes.size} end transactions for ${others.length} runs`);
    const { rows: events } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE type LIKE 'automation.run.%' AND data->>'automation_id' = ANY($1)`,
      [ids],
    );
    assert.equal(events[0]!.n, 30, 'one run event per run');
  } finally {
    await worker.stop();
  }
});

test('a run that throws in a shared end is retried alone: its neighbours complete, its last attempt fails it', async () => {
  const { container } = t;
  const posts = {
    ...container.posts,
    create: ((ctx, body, origin) => {
      if (body.content === 'Boom.') throw new Error('a bug in one run');
      return container.posts.create(ctx, body, origin);
    }) as typeof container.posts.create,
  };
  const run = automationRunner({
    pool: container.pool,
    ai: container.ai,
    posts,
    media: container.media,
    clock: container.clock,
    logger: container.logger,
    caps: feedCaps(container.outboundGuard, 5),
    pauseAfterFailures: 3,
  });
  const ids = [await create(100), await create(101), await create(102)];
  await container.pool.query(
    `UPDATE automations SET generator = '{"type": "library", "items": ["Boom."]}' WHERE id = $1`,
    [ids[1]],
  );
  const trigger = async (id: string) => {
    const res = await t.inject({ method: 'POST', url: `/v1/automations/${id}/trigger`, key });
    assert.equal(res.statusCode, 202, res.body);
    return { workspace_id: t.owner.workspaceId, automation_id: id, run_id: res.json().data.id as string };
  };
  const payloads = await Promise.all(ids.map(trigger));
  const outcomes = await Promise.allSettled(payloads.map((p) => run(p, false)));
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const statusOf = async (runId: string) =>
    (await container.pool.query('SELECT status, error FROM automation_runs WHERE id = $1', [runId])).rows[0];
  assert.equal((await statusOf(payloads[0]!.run_id)).status, 'completed');
  assert.equal((await statusOf(payloads[2]!.run_id)).status, 'completed');
  assert.equal((await statusOf(payloads[1]!.run_id)).status, 'running', 'left for the job’s retry');
  await run(payloads[1]!, true);
  const last = await statusOf(payloads[1]!.run_id);
  assert.equal(last.status, 'failed');
  assert.equal(last.error.code, 'internal_error');
});
