// The scheduler benchmark's floor: the least bookkeeping any exactly-once publisher must do, through
// graphile-worker with Herald's runner settings (runnerPreset: concurrency, local queue, batched completion, poll
// interval). N rows of a bare `floor_targets` table are due at one whole second; each job claims its row with one
// conditional UPDATE … RETURNING (a second job for the same row claims nothing), makes one call to the Mastodon
// simulator Herald's burst publishes to (the same process, the same accounts and tokens), and records the outcome
// with one UPDATE fenced by the claim. Prints `{ drainMs, p50Ms, p99Ms, cpuS, failures }` like empty-jobs.ts.
//
//   node bench/floor/claim-jobs.ts <databaseUrl> <jobs> <concurrency> <pollIntervalMs> <localQueue> <accountsJson> <poolSize>
//
// The jobs' own statements go through a pool of <poolSize> connections, as Herald's go through HERALD_DB_POOL_SIZE.
//
// accountsJson: a file holding `[{ "base": "<simulator base URL>", "token": "<access token>" }, …]`.
import { Logger, run } from 'graphile-worker';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { runnerPreset } from '../../src/jobs/worker.ts';
import { quantile } from '../lib/load.ts';

const [url, jobsArg, concurrencyArg, pollArg, localQueueArg, accountsFile, poolSizeArg] = process.argv.slice(2);
const jobs = Number(jobsArg);
const accounts = JSON.parse(await readFile(accountsFile!, 'utf8')) as Array<{ base: string; token: string }>;
const lateness: number[] = [];
let lastFinished = 0;
let failures = 0;
let done: () => void = () => {};
const finished = new Promise<void>((resolve) => (done = resolve));

// The same connection pooling as Herald's outbound client (src/lib/outbound.ts).
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
function publish(account: { base: string; token: string }, key: string, text: string): Promise<string> {
  const body = JSON.stringify({ status: text });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${account.base}/api/v1/statuses`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${account.token}`,
          'idempotency-key': key,
        },
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () => {
          const id = response.statusCode === 200 ? (JSON.parse(answer) as { id?: string }).id : undefined;
          if (id) resolve(id);
          else reject(new Error(`platform answered ${response.statusCode}: ${answer.slice(0, 200)}`));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const pool = new pg.Pool({ connectionString: url, max: Number(concurrencyArg) + 2 });
pool.on('error', () => {});
pool.on('connect', (client) => client.on('error', () => {}));
const work = new pg.Pool({ connectionString: url, max: Number(poolSizeArg) });
work.on('error', () => {});
await pool.query(`DROP TABLE IF EXISTS floor_targets`);
await pool.query(`CREATE TABLE floor_targets (
  id integer PRIMARY KEY, account integer NOT NULL, content text NOT NULL, status text NOT NULL DEFAULT 'scheduled',
  claim_token integer NOT NULL DEFAULT 0, platform_post_id text, updated_at timestamptz NOT NULL DEFAULT now())`);
await pool.query(
  `INSERT INTO floor_targets (id, account, content) SELECT g, g % $2, 'Floor post ' || g || ' ' || now() FROM generate_series(1, $1::int) AS g`,
  [jobs, accounts.length],
);
const runner = await run({
  pgPool: pool,
  concurrency: Number(concurrencyArg),
  pollInterval: Number(pollArg),
  noHandleSignals: true,
  preset: runnerPreset({ workerLocalQueue: Number(localQueueArg) }),
  logger: new Logger(() => () => {}),
  taskList: {
    bench_claim: async (payload, helpers) => {
      const id = (payload as { n: number }).n;
      const { rows } = await work.query<{ account: number; content: string; claim_token: number }>(
        `UPDATE floor_targets SET status = 'publishing', claim_token = claim_token + 1, updated_at = now()
          WHERE id = $1 AND status = 'scheduled' RETURNING account, content, claim_token`,
        [id],
      );
      const claim = rows[0];
      if (claim) {
        try {
          const platformId = await publish(accounts[claim.account]!, `floor-${id}`, claim.content);
          await work.query(
            `UPDATE floor_targets SET status = 'published', platform_post_id = $3, updated_at = now() WHERE id = $1 AND claim_token = $2`,
            [id, claim.claim_token, platformId],
          );
        } catch {
          failures++;
        }
      }
      lateness.push(Date.now() - helpers.job.run_at.getTime());
      lastFinished = Date.now();
      if (lateness.length === jobs) done();
    },
  },
});
// Added an hour ahead (one statement, invisible until done), then all made due at the next whole second but
// three: however long adding took, none is due before every one is there.
await pool.query(
  `SELECT graphile_worker.add_job('bench_claim', json_build_object('n', g), run_at => now() + interval '1 hour', max_attempts => 1) FROM generate_series(1, $1::int) AS g`,
  [jobs],
);
const due = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
await pool.query(
  `UPDATE graphile_worker._private_jobs SET run_at = $1 WHERE task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'bench_claim')`,
  [due],
);
await new Promise((resolve) => setTimeout(resolve, due.getTime() - Date.now()));
const cpu = process.cpuUsage();
await finished;
const { user, system } = process.cpuUsage(cpu);
await runner.stop();
const { rows } = await pool.query<{ n: number }>(
  `SELECT count(*)::int AS n FROM floor_targets WHERE status = 'published'`,
);
await pool.query(`DROP TABLE floor_targets`);
await work.end();
await pool.end();
process.stdout.write(
  `${JSON.stringify({ drainMs: lastFinished - due.getTime(), p50Ms: quantile(lateness, 0.5), p99Ms: quantile(lateness, 0.99), cpuS: (user + system) / 1e6, failures: failures + (jobs - failures - rows[0]!.n) })}\n`,
);
