// The floor of the automations benchmark: graphile-worker alone (same version, concurrency, poll interval and
// runner settings as Herald's worker: runnerPreset) draining N jobs all due at the same whole second, each
// inserting one draft post with Herald's own create SQL (`createPostRows`: the posts_create function of
// migration 0031) and nothing else — no automation, run row, plan, validation, approval gate or event. The pools
// are Herald's: graphile-worker's of `jobPoolSize`, the inserts' of HERALD_DB_POOL_SIZE.
import { Logger, run } from 'graphile-worker';
import pg from 'pg';
import type { Config } from '../../src/config.ts';
import { createPostRows } from '../../src/features/posts/posts.create.repo.ts';
import { jobPoolSize, runnerPreset } from '../../src/jobs/worker.ts';
import { newId } from '../../src/lib/ids.ts';

export interface DraftJobsFloor {
  /** Due time to the last job's end. */
  drainMs: number;
  posts: number;
}

export async function drainDraftJobs(
  url: string,
  config: Pick<Config, 'workerConcurrency' | 'workerPollIntervalMs' | 'workerLocalQueue' | 'databasePoolSize'>,
  target: { workspaceId: string; brandId: string; userId: string; connectionId: string },
  jobs: number,
): Promise<DraftJobsFloor> {
  let finishedCount = 0;
  let firstError: unknown;
  let lastFinished = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const pool = new pg.Pool({ connectionString: url, max: jobPoolSize(config) });
  const work = new pg.Pool({ connectionString: url, max: config.databasePoolSize });
  for (const p of [pool, work]) {
    p.on('error', () => {});
    p.on('connect', (client) => client.on('error', () => {}));
  }
  const runner = await run({
    pgPool: pool,
    concurrency: config.workerConcurrency,
    pollInterval: config.workerPollIntervalMs,
    noHandleSignals: true,
    preset: runnerPreset(config),
    logger: new Logger(() => () => {}),
    taskList: {
      bench_create_draft: async (payload) => {
        // A failed job is counted (and reported below), never left for the drain to wait on.
        await createPostRows(
          work,
          {
            id: newId('post'),
            workspaceId: target.workspaceId,
            brandId: target.brandId,
            content: `Tip ${(payload as { n: number }).n}`,
            platforms: ['x'],
            platformOptions: {},
            mediaIds: [],
            status: 'draft',
            publishNow: false,
            scheduleAt: null,
            createdVia: 'automation',
            createdBy: target.userId,
          },
          [{ id: newId('tgt'), platform: 'x', connectionId: target.connectionId }],
          { sandbox: true, status: 'pending', jobsAt: null },
        ).catch((error: unknown) => (firstError ??= error));
        lastFinished = Date.now();
        if (++finishedCount === jobs) done();
      },
    },
  });
  try {
    // Added an hour ahead, then all made due at the next whole second but two (as bench/floor/empty-jobs.ts).
    await pool.query(
      `SELECT graphile_worker.add_job('bench_create_draft', json_build_object('n', g), run_at => now() + interval '1 hour', max_attempts => 1) FROM generate_series(1, $1::int) AS g`,
      [jobs],
    );
    const due = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
    await pool.query(
      `UPDATE graphile_worker._private_jobs SET run_at = $1 WHERE task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'bench_create_draft')`,
      [due],
    );
    await finished;
    if (firstError) throw new Error(`automations floor: a job failed: ${String(firstError)}`);
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM posts WHERE workspace_id = $1 AND created_via = 'automation'`,
      [target.workspaceId],
    );
    return { drainMs: lastFinished - due.getTime(), posts: Number(rows[0]!.n) };
  } finally {
    await runner.stop();
    await pool.end();
    await work.end();
  }
}
