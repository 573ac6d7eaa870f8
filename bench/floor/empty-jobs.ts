// The floor for the scheduler benchmark: graphile-worker alone (same version, and the same concurrency, poll
// interval and runner settings — local queue, batched completion — as Herald's worker: runnerPreset) draining N
// jobs that do nothing, all due at the same whole second. Waits for the last to finish and prints
// `{ drainMs, p50Ms, p99Ms, cpuS }` (start time − due time; cpuS: this process's CPU from due to drained).
//
// Given a platform URL (floor/platform-stub.ts), each job instead makes one call there — a JSON POST over a
// keep-alive connection, its answer parsed — and nothing else: the least any publisher could do per post, with
// no bookkeeping at all.
//
//   node bench/floor/empty-jobs.ts <databaseUrl> <jobs> <concurrency> <pollIntervalMs> <localQueue> [platformUrl]
import { Logger, run } from 'graphile-worker';
import http from 'node:http';
import pg from 'pg';
import { runnerPreset } from '../../src/jobs/worker.ts';
import { quantile } from '../lib/load.ts';

const [url, jobsArg, concurrencyArg, pollArg, localQueueArg, platformUrl] = process.argv.slice(2);
const jobs = Number(jobsArg);
const lateness: number[] = [];
let lastFinished = 0;
let failures = 0;
let done: () => void = () => {};
const finished = new Promise<void>((resolve) => (done = resolve));

// The same connection pooling as Herald's outbound client (src/lib/outbound.ts).
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
function publish(text: string): Promise<void> {
  const body = JSON.stringify({ status: text });
  return new Promise((resolve, reject) => {
    const request = http.request(
      platformUrl!,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: 'Bearer bench',
        },
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () =>
          response.statusCode === 200 && (JSON.parse(answer) as { id?: string }).id
            ? resolve()
            : reject(new Error(`platform answered ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

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
    bench_noop: async (payload, helpers) => {
      if (platformUrl) await publish(`Burst post ${(payload as { n: number }).n}`).catch(() => failures++);
      lateness.push(Date.now() - helpers.job.run_at.getTime());
      lastFinished = Date.now();
      if (lateness.length === jobs) done();
    },
  },
});
// Added an hour ahead (one statement, invisible until done), then all made due at the next whole second but
// three: however long adding took, none is due before every one is there.
await pool.query(
  `SELECT graphile_worker.add_job('bench_noop', json_build_object('n', g), run_at => now() + interval '1 hour', max_attempts => 1) FROM generate_series(1, $1::int) AS g`,
  [jobs],
);
const due = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
await pool.query(
  `UPDATE graphile_worker._private_jobs SET run_at = $1 WHERE task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'bench_noop')`,
  [due],
);
await new Promise((resolve) => setTimeout(resolve, due.getTime() - Date.now()));
const cpu = process.cpuUsage();
await finished;
const { user, system } = process.cpuUsage(cpu);
await runner.stop();
await pool.end();
process.stdout.write(
  `${JSON.stringify({ drainMs: lastFinished - due.getTime(), p50Ms: quantile(lateness, 0.5), p99Ms: quantile(lateness, 0.99), cpuS: (user + system) / 1e6, failures })}\n`,
);
