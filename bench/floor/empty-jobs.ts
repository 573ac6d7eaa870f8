// The floor for the scheduler benchmark: graphile-worker alone (same version, and the same concurrency, poll
// interval and runner settings — local queue, batched completion — as Herald's worker: runnerPreset) draining N
// jobs that do nothing, all due at the same whole second. Waits for the last to finish and prints
// `{ drainMs, p50Ms, p99Ms }` (start time − due time).
//
//   node bench/floor/empty-jobs.ts <databaseUrl> <jobs> <concurrency> <pollIntervalMs> <localQueue>
import { Logger, run } from 'graphile-worker';
import pg from 'pg';
import { runnerPreset } from '../../src/jobs/worker.ts';
import { quantile } from '../lib/load.ts';

const [url, jobsArg, concurrencyArg, pollArg, localQueueArg] = process.argv.slice(2);
const jobs = Number(jobsArg);
const lateness: number[] = [];
let lastFinished = 0;
let done: () => void = () => {};
const finished = new Promise<void>((resolve) => (done = resolve));

const pool = new pg.Pool({ connectionString: url, max: Number(concurrencyArg) + 2 });
pool.on('error', () => {});
pool.on('connect', (client) => client.on('error', () => {}));
const runner = await run({
  pgPool: pool,
  concurrency: Number(concurrencyArg),
  pollInterval: Number(pollArg),
  noHandleSignals: true,
  preset: runnerPreset({ workerLocalQueue: Number(localQueueArg) }),
  logger: new Logger(() => () => {}),
  taskList: {
    bench_noop: async (_payload, helpers) => {
      lateness.push(Date.now() - helpers.job.run_at.getTime());
      lastFinished = Date.now();
      if (lateness.length === jobs) done();
    },
  },
});
// Added an hour ahead (one statement, invisible until done), then all made due at the next whole second but
// three: however long adding took, none is due before every one is there.
await pool.query(`SELECT graphile_worker.add_job('bench_noop', json_build_object('n', g), run_at => now() + interval '1 hour', max_attempts => 1) FROM generate_series(1, $1::int) AS g`, [jobs]);
const due = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
await pool.query(`UPDATE graphile_worker._private_jobs SET run_at = $1 WHERE task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'bench_noop')`, [due]);
await finished;
await runner.stop();
await pool.end();
process.stdout.write(`${JSON.stringify({ drainMs: lastFinished - due.getTime(), p50Ms: quantile(lateness, 0.5), p99Ms: quantile(lateness, 0.99) })}\n`);
