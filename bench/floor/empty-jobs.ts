// The floor for the scheduler benchmark: graphile-worker alone (same version, same concurrency and poll
// interval as Herald's worker) draining N jobs that do nothing, all due at the same whole second. Adds the jobs
// in one statement, waits for the last to finish, prints `{ drainMs, p50Ms, p99Ms }` (start time − due time).
//
//   node bench/floor/empty-jobs.ts <databaseUrl> <jobs> <concurrency> <pollIntervalMs>
import { Logger, run } from 'graphile-worker';
import pg from 'pg';
import { quantile } from '../lib/load.ts';

const [url, jobsArg, concurrencyArg, pollArg] = process.argv.slice(2);
const jobs = Number(jobsArg);
const lateness: number[] = [];
let lastFinished = 0;
let done: () => void = () => {};
const finished = new Promise<void>((resolve) => (done = resolve));

const pool = new pg.Pool({ connectionString: url, max: Number(concurrencyArg) + 2 });
pool.on('error', () => {});
const runner = await run({
  pgPool: pool,
  concurrency: Number(concurrencyArg),
  pollInterval: Number(pollArg),
  noHandleSignals: true,
  logger: new Logger(() => () => {}),
  taskList: {
    bench_noop: async (payload) => {
      lateness.push(Date.now() - Date.parse((payload as { due: string }).due));
      lastFinished = Date.now();
      if (lateness.length === jobs) done();
    },
  },
});
const due = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
await pool.query(`SELECT graphile_worker.add_job('bench_noop', json_build_object('due', $1::text, 'n', g), run_at => $2::timestamptz, max_attempts => 1) FROM generate_series(1, $3::int) AS g`, [due.toISOString(), due, jobs]);
if (Date.now() >= due.getTime()) throw new Error('adding the jobs took longer than the margin before they were due');
await finished;
await runner.stop();
await pool.end();
process.stdout.write(`${JSON.stringify({ drainMs: lastFinished - due.getTime(), p50Ms: quantile(lateness, 0.5), p99Ms: quantile(lateness, 0.99) })}\n`);
