// Benchmark 3: the scheduler. (a) Single posts under no load: one post due each second, created through the API,
// lateness of publication against schedule_at. (b) A burst: N posts (10,000) due in the same whole second, spread
// over 100 sandbox Mastodon accounts with unique texts, seeded by SQL and queued with Herald's own
// queuePublishJobs; time until the last is published, the lateness distribution, and the CPU that Herald, the
// simulators (a second Herald process, as a platform is elsewhere) and PostgreSQL spent meanwhile. The floor:
// graphile-worker with the same runner settings (concurrency, local queue, poll interval) draining N empty jobs due
// in one second. The floor: the least bookkeeping an exactly-once publisher needs, through the same runner settings
// (concurrency, local queue, poll interval): each job claims its row with one conditional UPDATE … RETURNING, makes
// one call to the same simulator process Herald's burst publishes to, and records the outcome with one UPDATE
// (floor/claim-jobs.ts). For the record: N empty jobs (floor/empty-jobs.ts), the same jobs each making one call
// to a bare platform stub (floor/platform-stub.ts) and nothing else, and empty jobs under graphile-worker's defaults.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { queuePublishJobs } from '../src/app/publish-queue.ts';
import { openCredentials } from '../src/features/connections/platform-access.ts';
import {
  addSandboxAccounts,
  adminContainer,
  prepareWorkspace,
  startHerald,
  type HeraldProcess,
  type Workspace,
} from './lib/herald.ts';
import { quantile } from './lib/load.ts';
import { cpuOf, cpuOfAll, freePort, runNode, sleep, startNodeServer } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const ACCOUNTS = 100;
const DRAIN_TARGET = 1.5;
const SINGLE_TARGET_MS = 1000;

interface Lateness {
  /** Due → last target published. */
  drainMs: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
}

interface BurstCpu {
  herald: number;
  platform: number;
  /** Every PostgreSQL process on the machine (the server's own background work included). */
  postgres: number;
}

async function burstCpu(heraldPid: number, platformPid: number): Promise<BurstCpu> {
  return { herald: await cpuOf(heraldPid), platform: await cpuOf(platformPid), postgres: await cpuOfAll('postgres') };
}

/**
 * Waits until no target of the workspace is still scheduled or publishing (counted through the in-flight
 * index, so the poll costs the database next to nothing while Herald drains), then measures lateness of
 * publication of `postIds`.
 */
async function awaitPublished(
  client: pg.Client,
  workspaceId: string,
  postIds: string[],
  ceilingMs: number,
  log?: (m: string) => void,
): Promise<Lateness> {
  const started = Date.now();
  for (let lastReport = 0; ;) {
    const { rows } = await client.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM post_targets WHERE status IN ('scheduled', 'publishing') AND workspace_id = $1`,
      [workspaceId],
    );
    const open = rows[0]!.open;
    if (open === 0) break;
    if (Date.now() - started > ceilingMs) throw new Error(`${open} posts still unpublished after ${fmt.s(ceilingMs)}`);
    if (log && Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`scheduler: ${open} of ${postIds.length} still to publish`);
    }
    await sleep(250);
  }
  const { rows } = await client.query<{ late: number; published: boolean }>(
    `SELECT extract(epoch FROM t.updated_at - p.schedule_at)::float * 1000 AS late, t.status = 'published' AS published
       FROM post_targets t JOIN posts p ON p.id = t.post_id WHERE t.post_id = ANY($1::text[])`,
    [postIds],
  );
  const late = rows.filter((r) => r.published).map((r) => r.late);
  return {
    drainMs: Math.max(...late),
    p50Ms: quantile(late, 0.5),
    p99Ms: quantile(late, 0.99),
    failed: rows.length - late.length,
  };
}

/**
 * N scheduled posts (one target each) spread over the given connections, all due at one whole second, queued
 * with Herald's own queuePublishJobs, in one transaction so the worker sees none of them before all are there.
 * Queueing 10,000 jobs takes a while on a loaded machine, so it is timed first with a placeholder due time
 * a day ahead, and the real due time (3 × that, plus 5 s: replacing jobs can take longer than adding them)
 * replaces it (job_key_mode 'replace').
 */
async function seedBurst(
  client: pg.Client,
  ws: Workspace,
  connectionIds: string[],
  count: number,
  tag: string,
): Promise<{ postIds: string[]; due: Date }> {
  await client.query('BEGIN');
  const placeholder = new Date(Math.ceil((Date.now() + 86_400_000) / 1000) * 1000);
  const { rows } = await client.query<{ post_id: string; target_id: string }>(
    `WITH c AS (SELECT id, brand_id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM connections WHERE workspace_id = $1 AND id = ANY($2::text[])),
          p AS (INSERT INTO posts (id, workspace_id, brand_id, content, platforms, status, schedule_at, created_via, created_by)
                SELECT 'post_burst' || $3 || lpad(g::text, 8, '0'), $1, c.brand_id, 'Burst ' || $3 || ' post ' || g || ' of ' || $4, ARRAY['mastodon'], 'scheduled', $5, 'api', $6
                  FROM generate_series(1, $4::int) AS g JOIN c ON c.n = g % cardinality($2::text[])
                RETURNING id, content)
     INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status)
     SELECT 'tgt_burst' || substr(p.id, 11), $1, p.id, 0, 'mastodon', c.id, true, 'scheduled'
       FROM p JOIN c ON c.n = split_part(p.content, ' ', 4)::int % cardinality($2::text[])
     RETURNING post_id, id AS target_id`,
    [ws.workspaceId, connectionIds, tag, count, placeholder, ws.userId],
  );
  const postIds = rows.map((r) => r.post_id);
  const targetIds = rows.map((r) => r.target_id);
  const began = Date.now();
  await queuePublishJobs(client, targetIds, placeholder, placeholder);
  const due = new Date(Math.ceil((Date.now() + 3 * (Date.now() - began) + 5000) / 1000) * 1000);
  await client.query('UPDATE posts SET schedule_at = $2 WHERE id = ANY($1::text[])', [postIds, due]);
  await queuePublishJobs(client, targetIds, due, due);
  await client.query('COMMIT');
  if (Date.now() >= due.getTime()) throw new Error('seeding the burst took longer than the margin before it was due');
  return { postIds, due };
}

/** The simulator's base URL and access token of each sandbox account, for the claim floor's calls. */
async function simulatorAccounts(
  url: string,
  secret: string,
  connectionIds: string[],
  platformPort: number,
): Promise<Array<{ base: string; token: string }>> {
  const container = adminContainer(url, secret);
  try {
    const { rows } = await container.pool.query<{ id: string; platform: string; credentials: Buffer }>(
      'SELECT id, platform, credentials FROM connections WHERE id = ANY($1::text[]) ORDER BY id',
      [connectionIds],
    );
    return rows.map((r) => ({
      base: `http://127.0.0.1:${platformPort}/sandbox/${r.platform}`,
      token: openCredentials(container.platformAccess.keyring, r.credentials).accessToken,
    }));
  } finally {
    await container.close();
  }
}

export async function schedulerBenchmark(ctx: BenchContext): Promise<Row[]> {
  const burstSize = ctx.quick ? 1000 : 10_000;
  const singles = ctx.quick ? 5 : 20;
  // Herald's settings as this run gives them to it (its defaults unless the environment changes them).
  const settings = loadConfig({ ...process.env, DATABASE_URL: undefined });
  const { workerConcurrency: concurrency, workerPollIntervalMs: pollMs, workerLocalQueue: localQueue } = settings;
  const db = await ctx.server.createDatabase();
  const client = new pg.Client({ connectionString: db.url });
  try {
    const ws = await prepareWorkspace(db.url);
    const accounts = await addSandboxAccounts(db.url, ws, 'mastodon', ACCOUNTS);
    await client.connect();
    // The simulators answer from a second Herald process (an API node: `serve --role api`), reached through
    // HERALD_SANDBOX_URL as a worker reaches any API node's: a platform's work is not Herald's, and this way the
    // CPU each side spends during the burst is told apart.
    const drain = async (
      jobsConcurrency: number,
      jobsLocalQueue: number,
      platformUrl?: string,
      script = 'floor/empty-jobs.ts',
    ) => {
      const out = await runNode([
        path.join(import.meta.dirname, script),
        db.url,
        String(burstSize),
        String(jobsConcurrency),
        String(pollMs),
        String(jobsLocalQueue),
        ...(platformUrl ? [platformUrl] : []),
        ...(script === 'floor/claim-jobs.ts' ? [String(settings.databasePoolSize)] : []),
      ]);
      return JSON.parse(out.trim().split('\n').at(-1)!) as Lateness & {
        cpuS: number;
        failures: number;
        cpuSplit?: BurstCpu;
      };
    };
    const platformPort = await freePort();
    const herald = await startHerald({
      databaseUrl: db.url,
      dataDir: path.join(ctx.scratch, 'scheduler'),
      secret: ws.secret,
      env: { HERALD_SANDBOX_URL: `http://127.0.0.1:${platformPort}/sandbox` },
    });
    let platform: HeraldProcess | undefined;
    let claimFloor: Awaited<ReturnType<typeof drain>>;
    let single: Lateness;
    let burst: Lateness;
    let cpu: BurstCpu;
    try {
      platform = await startHerald({
        databaseUrl: db.url,
        dataDir: path.join(ctx.scratch, 'scheduler-platform'),
        secret: ws.secret,
        role: 'api',
        port: platformPort,
      });
      // (a) one post due each second, nothing else running
      const first = Math.ceil((Date.now() + 3000) / 1000) * 1000;
      const ids: string[] = [];
      for (let i = 0; i < singles; i++) {
        const res = await fetch(`${herald.url}/v1/posts`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ws.key}`,
            'content-type': 'application/json',
            'idempotency-key': `single-${i}`,
          },
          body: JSON.stringify({
            content: `Single scheduled post ${i} ${first}`,
            platforms: ['mastodon'],
            schedule_at: new Date(first + i * 1000).toISOString(),
          }),
        });
        const body = (await res.json()) as { data: { post_id: string } };
        if (res.status !== 201) throw new Error(`creating a single post: ${res.status} ${JSON.stringify(body)}`);
        ids.push(body.data.post_id);
      }
      single = await awaitPublished(client, ws.workspaceId, ids, 120_000 + singles * 1000);
      ctx.log(`scheduler, single posts: lateness p50 ${fmt.ms(single.p50Ms)}, p99 ${fmt.ms(single.p99Ms)}`);

      // (b) the burst
      const seeded = await seedBurst(client, ws, accounts, burstSize, String(Date.now() % 100000));
      ctx.log(`scheduler: ${burstSize} posts over ${ACCOUNTS} accounts due at ${seeded.due.toISOString()}`);
      await sleep(Math.max(0, seeded.due.getTime() - Date.now()));
      const before = await burstCpu(herald.pid, platform.pid);
      burst = await awaitPublished(client, ws.workspaceId, seeded.postIds, 3_600_000, ctx.log);
      const after = await burstCpu(herald.pid, platform.pid);
      cpu = {
        herald: after.herald - before.herald,
        platform: after.platform - before.platform,
        postgres: after.postgres - before.postgres,
      };
      ctx.log(
        `scheduler, CPU during the burst: Herald ${cpu.herald.toFixed(1)} s, simulators ${cpu.platform.toFixed(1)} s, PostgreSQL ${cpu.postgres.toFixed(1)} s`,
      );
      ctx.log(
        `scheduler, burst: all published ${fmt.s(burst.drainMs)} after due; lateness p50 ${fmt.s(burst.p50Ms)}, p99 ${fmt.s(burst.p99Ms)}; ${burst.failed} failed`,
      );
      // The floor publishes through the same simulator process, with Herald stopped: the same accounts' tokens.
      await herald.stop();
      const accountsFile = path.join(ctx.scratch, 'floor-accounts.json');
      await mkdir(ctx.scratch, { recursive: true });
      await writeFile(accountsFile, JSON.stringify(await simulatorAccounts(db.url, ws.secret, accounts, platformPort)));
      const claimBefore = await burstCpu(process.pid, platform.pid);
      claimFloor = await drain(concurrency, localQueue, accountsFile, 'floor/claim-jobs.ts');
      const claimAfter = await burstCpu(process.pid, platform.pid);
      claimFloor.cpuSplit = {
        herald: claimFloor.cpuS,
        platform: claimAfter.platform - claimBefore.platform,
        postgres: claimAfter.postgres - claimBefore.postgres,
      };
      if (claimFloor.failures > 0) throw new Error(`the claim floor: ${claimFloor.failures} jobs did not publish`);
      ctx.log(
        `scheduler, claim floor: ${burstSize} claimed, published and recorded in ${fmt.s(claimFloor.drainMs)}; CPU: worker ${claimFloor.cpuS.toFixed(1)} s, simulators ${claimFloor.cpuSplit.platform.toFixed(1)} s, PostgreSQL ${claimFloor.cpuSplit.postgres.toFixed(1)} s`,
      );
    } finally {
      await platform?.stop();
      await herald.stop();
    }
    const floor = await drain(concurrency, localQueue);
    ctx.log(`scheduler, floor: ${burstSize} empty jobs drained ${fmt.s(floor.drainMs)} after due`);
    // For the record, not the ratio: (1) the same jobs each making one call to a bare platform stub and nothing
    // else (no claim, no record of the result): what the least possible publisher costs on this machine; (2) empty
    // jobs under graphile-worker's defaults (what Herald ran before its local queue), to show how much of the
    // floor is the queue's settings.
    const stub = await startNodeServer([path.join(import.meta.dirname, 'floor/platform-stub.ts')]);
    let calls: Awaited<ReturnType<typeof drain>>;
    try {
      calls = await drain(concurrency, localQueue, stub.url);
    } finally {
      await stub.stop();
    }
    if (calls.failures > 0) throw new Error(`the call floor: ${calls.failures} calls to the platform stub failed`);
    ctx.log(
      `scheduler, floor with one platform call per job: drained ${fmt.s(calls.drainMs)} after due (worker CPU ${calls.cpuS.toFixed(1)} s)`,
    );
    const plain = await drain(10, 1);
    ctx.log(`scheduler, empty jobs at concurrency 10, one job per poll: drained ${fmt.s(plain.drainMs)} after due`);
    const ratio = claimFloor.drainMs / burst.drainMs;
    const split = claimFloor.cpuSplit!;
    const setting = `concurrency ${concurrency}, local queue ${localQueue}, poll ${pollMs} ms`;
    return [
      {
        benchmark: `Scheduler: ${burstSize.toLocaleString('en')} posts due in one second, ${ACCOUNTS} accounts (${setting})`,
        herald: `all published in ${fmt.s(burst.drainMs)} (${(burstSize / (burst.drainMs / 1000)).toFixed(0)}/s); lateness p50 ${fmt.s(burst.p50Ms)}, p99 ${fmt.s(burst.p99Ms)}${burst.failed ? `; ${burst.failed} FAILED` : ''}; CPU during it: Herald ${cpu.herald.toFixed(1)} s, simulators ${cpu.platform.toFixed(1)} s, PostgreSQL ${cpu.postgres.toFixed(1)} s`,
        floor: `claim, one simulator call, record: ${fmt.s(claimFloor.drainMs)}; p50 ${fmt.s(claimFloor.p50Ms)}, p99 ${fmt.s(claimFloor.p99Ms)}; CPU: worker ${split.herald.toFixed(1)} s, simulators ${split.platform.toFixed(1)} s, PostgreSQL ${split.postgres.toFixed(1)} s`,
        ratio,
        target: `drain ≤ ${DRAIN_TARGET} × floor (ratio ≥ ${(1 / DRAIN_TARGET).toFixed(1)})`,
        pass: ratio >= 1 / DRAIN_TARGET && burst.failed === 0,
        database: ctx.server.label,
      },
      {
        benchmark: `Scheduler, for the record: ${burstSize.toLocaleString('en')} empty jobs, same settings`,
        herald: '—',
        floor: `${fmt.s(floor.drainMs)}; p50 ${fmt.s(floor.p50Ms)}, p99 ${fmt.s(floor.p99Ms)} (at concurrency 10, one job per poll: ${fmt.s(plain.drainMs)})`,
        ratio: floor.drainMs / burst.drainMs,
        target: "— (ratio: this ÷ Herald's drain)",
        pass: null,
        database: ctx.server.label,
      },
      {
        benchmark: `Scheduler, for the record: the same ${burstSize.toLocaleString('en')} jobs each making one call to a bare platform stub, nothing else`,
        herald: '—',
        floor: `drained in ${fmt.s(calls.drainMs)} (worker CPU ${calls.cpuS.toFixed(1)} s): ${(calls.drainMs / floor.drainMs).toFixed(1)} × the empty jobs`,
        ratio: calls.drainMs / burst.drainMs,
        target: "— (ratio: this ÷ Herald's drain)",
        pass: null,
        database: ctx.server.label,
      },
      {
        benchmark: `Scheduler: single due post, no load (${singles} posts, 1 s apart)`,
        herald: `lateness p50 ${fmt.ms(single.p50Ms)}, p99 ${fmt.ms(single.p99Ms)}`,
        floor: '—',
        ratio: null,
        target: `p99 < ${SINGLE_TARGET_MS} ms`,
        pass: single.p99Ms < SINGLE_TARGET_MS && single.failed === 0,
        database: ctx.server.label,
      },
    ];
  } finally {
    await client.end().catch(() => {});
    await db.drop();
  }
}
