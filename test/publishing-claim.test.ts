// The claim statement (targets.batches.repo.ts claimTargets) also writes the attempts: it opens one for each target it
// claims, closes as interrupted the attempt a dead worker left open on a target it takes over, and touches no
// attempt of a target it does not claim. No worker runs here: the test makes the claims itself.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { withTransaction } from '../src/db/pool.ts';
import { claimTargets } from '../src/features/publishing/targets.batches.repo.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

async function scheduledTarget(content: string, scheduleAt: string): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content, platforms: ['mastodon'], schedule_at: scheduleAt },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post.targets[0].id;
}

async function attemptsOf(
  targetId: string,
): Promise<Array<{ id: string; worker_id: string; outcome: string | null; finished: boolean }>> {
  const { rows } = await t.container.pool.query(
    'SELECT id, worker_id, outcome, finished_at IS NOT NULL AS finished FROM target_attempts WHERE target_id = $1 ORDER BY started_at, id',
    [targetId],
  );
  return rows;
}

test('a target taken over from a dead worker: its open attempt is closed as interrupted and the new one opened, in one statement', async () => {
  const targetId = await scheduledTarget(`Taken over ${Date.now()}`, new Date(Date.now() + 86_400_000).toISOString());
  // As a worker that died mid-attempt leaves it: publishing, held by a job that no longer exists, attempt open.
  await t.container.pool.query(
    `UPDATE post_targets SET status = 'publishing', claimed_by = '987654321', claim_token = 1, attempt_count = 1 WHERE id = $1`,
    [targetId],
  );
  await t.container.pool.query(
    `INSERT INTO target_attempts (id, workspace_id, target_id, worker_id) VALUES ('att_dead', $1, $2, 'worker-dead')`,
    [t.owner.workspaceId, targetId],
  );

  const claimed = await withTransaction(t.container.pool, (tx) =>
    claimTargets(tx, [
      { targetId, scheduleAt: null, jobId: '123456789', attemptId: 'att_next', workerId: 'worker-next' },
    ]),
  );
  assert.equal(claimed.length, 1);
  assert.equal(claimed[0]!.taken_over, true);
  assert.equal(claimed[0]!.attempt_id, 'att_next');
  assert.equal(claimed[0]!.claimed_by, '123456789');
  assert.equal(claimed[0]!.claim_token, 2);
  assert.equal(claimed[0]!.attempt_count, 2);
  assert.deepEqual(await attemptsOf(targetId), [
    { id: 'att_dead', worker_id: 'worker-dead', outcome: 'interrupted', finished: true },
    { id: 'att_next', worker_id: 'worker-next', outcome: null, finished: false },
  ]);
});

test('a batch opens an attempt for each target it claims and none for a stale job, whose target keeps its state', async () => {
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const due = await scheduledTarget(`Claimed ${Date.now()}`, at);
  const stale = await scheduledTarget(`Stale ${Date.now()}`, at);
  const claimed = await withTransaction(t.container.pool, (tx) =>
    claimTargets(tx, [
      { targetId: due, scheduleAt: at, jobId: '1001', attemptId: 'att_due', workerId: 'worker-a' },
      // Queued for a schedule the post no longer has: the job is stale and claims nothing.
      {
        targetId: stale,
        scheduleAt: new Date(Date.parse(at) - 60_000).toISOString(),
        jobId: '1002',
        attemptId: 'att_stale',
        workerId: 'worker-a',
      },
    ]),
  );
  assert.deepEqual(
    claimed.map((c) => [c.id, c.attempt_id, c.taken_over, c.first_claim]),
    [[due, 'att_due', false, true]],
  );
  assert.deepEqual(await attemptsOf(due), [{ id: 'att_due', worker_id: 'worker-a', outcome: null, finished: false }]);
  assert.deepEqual(await attemptsOf(stale), []);
  const { rows } = await t.container.pool.query('SELECT status, claimed_by FROM post_targets WHERE id = $1', [stale]);
  assert.deepEqual(rows[0], { status: 'scheduled', claimed_by: null });
});
