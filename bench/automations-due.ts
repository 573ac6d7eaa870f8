// Benchmark: 1,000 content automations due in the same minute (docs/automations.md "Scheduling") — each a
// library posted daily to X as a draft. At the due second two scheduler passes race (as two workers' crons
// would) and Herald's worker runs the claimed slots; the time is from the due second to the last run finished.
// Asserted, not just timed: every automation has exactly one run for the slot, completed, with exactly one post.
// The floor (bench/floor/draft-jobs.ts) is 1,000 graphile-worker jobs that each insert one draft post with
// Herald's own create SQL. Target: Herald within 2 × the floor's time. `--quick`: 100 automations.
import { loadConfig } from '../src/config.ts';
import { buildContainer } from '../src/container.ts';
import { withTransaction, type Queryable } from '../src/db/pool.ts';
import { insertAutomation } from '../src/features/automations/automations.repo.ts';
import { scheduleDueAutomations } from '../src/features/automations/automations.scheduler.ts';
import { normaliseRule } from '../src/features/automations/schedule.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { newId } from '../src/lib/ids.ts';
import { createLogger } from '../src/lib/logger.ts';
import { drainDraftJobs } from './floor/draft-jobs.ts';
import { prepareWorkspace } from './lib/herald.ts';
import { sleep } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const MAX_RATIO = 2;

export async function automationsDueBenchmark(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.quick ? 100 : 1000;
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const connectionId = ws.connections.get('x')!;
    const config = loadConfig({
      DATABASE_URL: db.url,
      HERALD_SECRET_KEY: ws.secret,
      HERALD_LOG_LEVEL: 'silent',
    });
    const target = { workspaceId: ws.workspaceId, brandId: ws.brandId, userId: ws.userId, connectionId };

    const floor = await drainDraftJobs(db.url, config, target, n);
    if (floor.posts !== n) throw new Error(`automations floor: ${floor.posts} posts, expected ${n}`);
    ctx.log(`automations floor: ${n} draft posts in ${fmt.s(floor.drainMs)}`);

    const container = buildContainer({
      config,
      logger: createLogger('silent'),
      connectionString: db.url,
      keyring: { current: ws.secret, previous: [] },
    });
    let heraldMs: number;
    try {
      const { pool, clock } = container;
      await pool.query(`DELETE FROM posts WHERE workspace_id = $1`, [ws.workspaceId]);
      const now = clock.now();
      const source = { type: 'schedule' as const, rrule: 'FREQ=DAILY', timezone: 'UTC' };
      await withTransaction(pool, async (tx) => {
        for (let i = 0; i < n; i++)
          await insertAutomation(tx, {
            id: newId('auto'),
            workspace_id: ws.workspaceId,
            brand_id: ws.brandId,
            name: `Daily tip ${i}`,
            status: 'active',
            source: { ...source, rrule: normaliseRule(source, now) },
            generator: { type: 'library', items: [`Tip ${i}`] },
            destinations: [{ platform: 'x' }],
            output: { mode: 'draft' },
            options: {},
            event_cursor: null,
            next_run_at: null,
            created_by: ws.userId,
          });
      });
      // All due at the next whole second but two: the slot every automation claims.
      const due = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
      await pool.query(`UPDATE automations SET next_run_at = $1 WHERE workspace_id = $2`, [due, ws.workspaceId]);
      const worker = await startWorker(container);
      try {
        await sleep(Math.max(0, due.getTime() - Date.now()));
        const deps = { pool, clock, batchSize: config.automations.schedulerBatch, rssPollMinutes: 15 };
        const [a, b] = await Promise.all([scheduleDueAutomations(deps), scheduleDueAutomations(deps)]);
        if (a + b !== n) throw new Error(`automations: the two scheduler passes claimed ${a} + ${b}, expected ${n}`);
        for (const giveUp = Date.now() + 600_000; ;) {
          const { rows } = await pool.query<{ open: string }>(
            `SELECT count(*) AS open FROM automation_runs WHERE status IN ('queued', 'running')`,
          );
          if (Number(rows[0]!.open) === 0) break;
          if (Date.now() > giveUp) throw new Error(`automations: ${rows[0]!.open} runs still open after 10 min`);
          await sleep(20);
        }
        const { rows } = await pool.query<{ last: Date }>(`SELECT max(finished_at) AS last FROM automation_runs`);
        heraldMs = rows[0]!.last.getTime() - due.getTime();
      } finally {
        await worker.stop();
      }
      await assertExactlyOnce(pool, ws.workspaceId, n, due);
    } finally {
      await container.close();
    }
    ctx.log(`automations Herald: ${n} runs in ${fmt.s(heraldMs)}`);
    return [
      {
        benchmark: `Automations: ${n.toLocaleString('en')} due in the same minute, each run exactly once (one draft each)`,
        herald: `${fmt.s(heraldMs)} (${Math.round(n / (heraldMs / 1000))} runs/s)`,
        floor: `${fmt.s(floor.drainMs)} (${Math.round(n / (floor.drainMs / 1000))} jobs/s)`,
        // Floor time ÷ Herald time: higher is better; 0.5 is the target's edge.
        ratio: floor.drainMs / heraldMs,
        target: `≤ ${MAX_RATIO} × floor`,
        pass: heraldMs <= MAX_RATIO * floor.drainMs,
        database: ctx.server.label,
      },
    ];
  } finally {
    await db.drop();
  }
}

/** Every automation: one run for the slot, completed, one draft post made by it; nothing else. */
async function assertExactlyOnce(pool: Queryable, workspaceId: string, n: number, due: Date): Promise<void> {
  const { rows } = await pool.query<Record<string, string | number>>(
    `SELECT count(*) AS runs,
            count(DISTINCT r.automation_id) AS automations,
            count(*) FILTER (WHERE r.status = 'completed' AND r.slot = $2 AND cardinality(r.posts_created) = 1) AS good,
            (SELECT count(*) FROM posts p WHERE p.workspace_id = $1 AND p.created_via = 'automation') AS posts,
            (SELECT count(*) FROM graphile_worker._private_jobs j
               JOIN graphile_worker._private_tasks t ON t.id = j.task_id
              WHERE t.identifier = 'run_automation') AS left_jobs
       FROM automation_runs r WHERE r.workspace_id = $1`,
    [workspaceId, due.toISOString()],
  );
  const r = rows[0]!;
  const got = [r.runs, r.automations, r.good, r.posts, r.left_jobs].map(Number);
  const want = [n, n, n, n, 0]; // runs, automations with a run, good runs, posts, run jobs left
  if (JSON.stringify(got) !== JSON.stringify(want))
    throw new Error(`automations: not exactly once: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}
