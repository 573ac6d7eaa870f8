// The waker arms one timer for the next publish job due; a job further out than setTimeout can wait must not
// make it spin (a longer delay fires after 1 ms).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/db.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { createLogger } from '../lib/logger.ts';
import { queuePublishJobs } from '../app/publish-queue.ts';
import { NEXT_PUBLISH_JOB, startWaker } from './waker.ts';

let db: TestDatabase;
let pool: Pool;
before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.connectionString, 4);
});
after(async () => {
  await pool.end();
  await db.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a post scheduled two months ahead does not make the waker nudge the workers in a loop', async () => {
  const due = new Date(Date.now() + 60 * 86_400_000);
  await queuePublishJobs(pool, ['tgt_far_ahead'], due, due);
  let nudges = 0;
  const waker = await startWaker({ pool, logger: createLogger('silent'), nudge: () => nudges++, refreshMs: 60_000 });
  try {
    await sleep(500);
    assert.equal(nudges, 0, `nudged ${nudges} times for a job due in 60 days`);
  } finally {
    await waker.stop();
  }
});

test('a post due in a moment still wakes the workers at its time', async () => {
  const due = new Date(Date.now() + 300);
  await queuePublishJobs(pool, ['tgt_soon'], due, due);
  let nudged = 0;
  const waker = await startWaker({ pool, logger: createLogger('silent'), nudge: () => nudged++, refreshMs: 60_000 });
  try {
    for (let waited = 0; nudged === 0 && waited < 30_000; waited += 50) await sleep(50);
    assert.ok(nudged > 0, 'the waker never nudged for a job due within a second');
  } finally {
    await waker.stop();
  }
});

test('the next publish job is the earliest available one, read through the due-time index', async () => {
  const { rows: indexes } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = 'graphile_worker' AND indexname = 'herald_jobs_due_idx'`,
  );
  assert.equal(indexes[0]!.n, 1, 'migrate() makes the due-time index on the publishing queue');
  const base = Date.now() + 10 * 86_400_000;
  await queuePublishJobs(pool, ['tgt_next_locked'], new Date(base), null);
  await queuePublishJobs(pool, ['tgt_next_open'], new Date(base + 1000), null);
  await queuePublishJobs(pool, ['tgt_next_later'], new Date(base + 2000), null);
  // The earliest is being run by a worker (locked): the waker arms for the next one still waiting.
  await pool.query(`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'test' WHERE key = $1`, [
    'publish:tgt_next_locked',
  ]);
  const { rows } = await pool.query<{ at: Date }>(NEXT_PUBLISH_JOB);
  const { rows: earliest } = await pool.query<{ at: Date }>(
    `SELECT min(run_at) AS at FROM graphile_worker.jobs WHERE task_identifier = 'publish_target' AND locked_at IS NULL AND run_at > now()`,
  );
  assert.equal(rows[0]?.at.getTime(), earliest[0]?.at.getTime());
  assert.ok(rows[0]!.at.getTime() <= base + 1000);
  await pool.query(`SELECT graphile_worker.remove_job(k) FROM unnest($1::text[]) AS k`, [
    ['publish:tgt_next_open', 'publish:tgt_next_later'],
  ]);
  await pool.query(`DELETE FROM graphile_worker._private_jobs WHERE key = 'publish:tgt_next_locked'`);
});
