// How a created post's publish jobs are queued (docs/decisions.md "Creating a post in one statement"): a post due
// further ahead than the waker's horizon gets its job without add_job, in the same shape add_job gives it, so a
// reschedule replaces it and a cancel removes it; a post due within the horizon goes through add_job as before.
// Jobs are read from graphile-worker's table: its `jobs` view has no payload.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { postRequests } from './helpers/posts.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

const { create } = postRequests(() => ({ t, key }));

interface JobRow {
  task_identifier: string;
  payload: { target_id: string; schedule_at: string };
  run_at: Date;
  max_attempts: number;
  attempts: number;
  locked_at: Date | null;
}

async function jobOf(targetId: string): Promise<JobRow | undefined> {
  const { rows } = await t.container.pool.query<JobRow>(
    `SELECT t.identifier AS task_identifier, j.payload, j.run_at, j.max_attempts, j.attempts, j.locked_at
       FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE j.key = $1`,
    [`publish:${targetId}`],
  );
  return rows[0];
}

test('a post due next month has one publish job per target, as add_job would have queued it', async () => {
  const at = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const post = (await create({ content: 'later', platforms: ['x', 'mastodon'], schedule_at: at })).json().data.post;
  assert.equal(post.status, 'scheduled');
  for (const target of post.targets) {
    const job = await jobOf(target.id);
    assert.ok(job, `no job for ${target.platform}`);
    assert.equal(job.task_identifier, 'publish_target');
    assert.deepEqual(job.payload, { target_id: target.id, schedule_at: at });
    assert.equal(job.run_at.toISOString(), at);
    assert.equal(job.max_attempts, 10);
    assert.equal(job.attempts, 0);
    assert.equal(job.locked_at, null);
  }
});

test('rescheduling replaces the job and cancelling removes it', async () => {
  const at = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const post = (await create({ content: 'moved', platforms: ['x'], schedule_at: at })).json().data.post;
  const target = post.targets[0].id;
  const later = new Date(Date.now() + 40 * 86_400_000).toISOString();
  const moved = await t.inject({ method: 'PATCH', url: `/v1/posts/${post.id}`, key, payload: { schedule_at: later } });
  assert.equal(moved.statusCode, 200, moved.body);
  const job = await jobOf(target);
  assert.equal(job?.run_at.toISOString(), later);
  assert.equal(job?.payload.schedule_at, later);
  const { rows } = await t.container.pool.query('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1', [
    `publish:${target}`,
  ]);
  assert.equal(rows[0].n, 1);
  const cancelled = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
  assert.equal(cancelled.statusCode, 200);
  assert.equal(await jobOf(target), undefined);
});

test('a post due within the waker’s horizon is queued through add_job, due at its time', async () => {
  const at = new Date(Date.now() + 60_000).toISOString();
  const post = (await create({ content: 'soon', platforms: ['mastodon'], schedule_at: at })).json().data.post;
  const job = await jobOf(post.targets[0].id);
  assert.equal(job?.run_at.toISOString(), at);
  assert.deepEqual(job?.payload, { target_id: post.targets[0].id, schedule_at: at });
});

// posts_create writes graphile-worker's private job table itself (migration 0031). These two tests fail loudly when
// an upgrade of graphile-worker changes that table or what add_job writes: the direct insert must then be re-checked.
const KNOWN_JOB_COLUMNS = [
  'id',
  'job_queue_id',
  'task_id',
  'payload',
  'priority',
  'run_at',
  'attempts',
  'max_attempts',
  'last_error',
  'created_at',
  'updated_at',
  'key',
  'locked_at',
  'locked_by',
  'revision',
  'flags',
  'is_available',
];

test('graphile-worker’s job table is the one posts_create was written against', async () => {
  const { rows } = await t.container.pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'graphile_worker' AND table_name = '_private_jobs' ORDER BY ordinal_position`,
  );
  assert.deepEqual(
    rows.map((r) => r.column_name),
    KNOWN_JOB_COLUMNS,
    'graphile_worker._private_jobs changed: re-check posts_create (migration 0031) against add_job',
  );
  const latest = await t.container.pool.query<{ id: number }>('SELECT max(id) AS id FROM graphile_worker.migrations');
  assert.equal(latest.rows[0]?.id, 20, 'graphile-worker’s schema moved on: re-check posts_create against add_job');
});

test('a far-future job equals, column by column, the one add_job queues for the same key', async () => {
  const at = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const post = (await create({ content: 'same as add_job', platforms: ['x'], schedule_at: at })).json().data.post;
  const jobKey = `publish:${post.targets[0].id}`;
  // Generated and per-row columns (id, timestamps of the write) are left out; every other column must match.
  const row = `to_jsonb(j) - 'id' - 'created_at' - 'updated_at'`;
  const client = await t.container.pool.connect();
  try {
    await client.query('BEGIN');
    const direct = await client.query<{ job: Record<string, unknown> }>(
      `DELETE FROM graphile_worker._private_jobs j WHERE key = $1 RETURNING ${row} AS job`,
      [jobKey],
    );
    assert.equal(direct.rowCount, 1);
    const viaAddJob = await client.query<{ job: Record<string, unknown> }>(
      `SELECT ${row} AS job FROM graphile_worker.add_job('publish_target',
         json_build_object('target_id', $2::text, 'schedule_at', $3::text), run_at => $3::timestamptz,
         job_key => $1, max_attempts => 10, job_key_mode => 'replace') j`,
      [jobKey, post.targets[0].id, at],
    );
    assert.deepEqual(direct.rows[0]!.job, viaAddJob.rows[0]!.job);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
});
