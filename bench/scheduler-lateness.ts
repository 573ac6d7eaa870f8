// Scheduler lateness: how long after `schedule_at` a scheduled post's target is taken by a worker, with
// graphile-worker's polling alone (the baseline) and with Herald's waker (src/jobs/waker.ts), side by side.
// Two loads: posts spread over a window, and a burst all due at the same instant. Publishing goes to the
// simulators, so the figures are Herald's own.
//
//   node bench/scheduler-lateness.ts [posts=200] [spreadSeconds=8] [queued=0]
//
// With `queued` (e.g. 1000000), the spread posts with the waker run once more after that many posts have been
// scheduled between a day and years ahead (bench/lib/seed-queue.ts): a due post's lateness must not grow with the
// size of the future (docs/decisions.md "Due jobs are found by due time").
//
// Uses DATABASE_URL (a throwaway database is created and dropped) or an embedded PostgreSQL in a temp dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { buildContainer, type Container } from '../src/container.ts';
import { openEmbeddedCluster } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedSandboxConnections } from '../src/features/connections/sandbox-seed.ts';
import { createKey } from '../src/features/keys/keys.service.ts';
import { SCOPES } from '../src/features/keys/scopes.ts';
import { ensureOwnerAndSandbox } from '../src/features/workspaces/workspaces.service.ts';
import { buildServer } from '../src/http/server.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { hmac } from '../src/lib/crypto.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { seedFutureQueue } from './lib/seed-queue.ts';

const POSTS = Number(process.argv[2] ?? 200);
const SPREAD_S = Number(process.argv[3] ?? 8);
const QUEUED = Number(process.argv[4] ?? 0);
const SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuv';

function quantiles(values: number[]): Record<string, number> {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s.at(-1) ?? NaN };
}

async function scenario(
  container: Container,
  key: string,
  waker: boolean,
  burst: boolean,
): Promise<{ claim: number[]; published: number[] }> {
  const app = await buildServer(container);
  const worker = await startWorker(container, { waker });
  // Stopped whatever happens: a run that throws must not leave the worker polling a pool main() then ends (which
  // hid the real error behind "Cannot use a pool after calling end on the pool").
  try {
    return await publishAndMeasure(container, app, key, waker, burst);
  } finally {
    await worker.stop();
    await app.close();
  }
}

/** Longest wait for a run's posts to publish before the run is reported as failed. */
const RUN_CEILING_MS = 10 * 60_000;

async function publishAndMeasure(
  container: Container,
  app: Awaited<ReturnType<typeof buildServer>>,
  key: string,
  waker: boolean,
  burst: boolean,
): Promise<{ claim: number[]; published: number[] }> {
  const start = Date.now() + 3000;
  const ids: string[] = [];
  for (let i = 0; i < POSTS; i++) {
    const at = new Date(burst ? start : start + Math.random() * SPREAD_S * 1000);
    const res = await app.inject({
      method: 'POST',
      url: '/v1/posts',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': `bench-${waker}-${burst}-${i}-${Date.now()}` },
      payload: {
        content: `bench ${waker} ${burst} ${i} ${Date.now()}`,
        platforms: ['mastodon'],
        schedule_at: at.toISOString(),
      },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    ids.push(res.json().data.post.id);
  }
  for (;;) {
    const { rows } = await container.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM posts WHERE id = ANY($1) AND status <> 'published'`,
      [ids],
    );
    if (rows[0]!.n === 0) break;
    if (Date.now() - start > RUN_CEILING_MS)
      throw new Error(`${rows[0]!.n} of ${POSTS} posts still unpublished ${RUN_CEILING_MS / 1000} s after their time`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const { rows } = await container.pool.query<{ claim: number; published: number }>(
    `SELECT (extract(epoch FROM a.started_at - p.schedule_at) * 1000)::float AS claim, (extract(epoch FROM t.published_at - p.schedule_at) * 1000)::float AS published
       FROM posts p JOIN post_targets t ON t.post_id = p.id JOIN target_attempts a ON a.target_id = t.id WHERE p.id = ANY($1)`,
    [ids],
  );
  return { claim: rows.map((r) => r.claim), published: rows.map((r) => r.published) };
}

async function main(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  let cleanup = async () => {};
  if (!adminUrl) {
    const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-'));
    const cluster = await openEmbeddedCluster({
      dataDir: dir,
      log: { info: () => {}, warn: () => {}, error: console.error },
      postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    });
    adminUrl = cluster.adminConnectionString;
    cleanup = async () => {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const name = `herald_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sandbox = await startSandbox({
    secret: hmac({ current: SECRET, previous: [] }, 'sandbox-simulators', 'v1'),
    rateLimitFactor: 1000,
    platforms: ['mastodon'],
  });
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    HERALD_SECRET_KEY: SECRET,
    HERALD_SANDBOX_URL: sandbox.url,
    HERALD_LOG_LEVEL: 'silent',
    HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000',
  });
  const container = buildContainer({
    config,
    logger: createLogger('silent'),
    connectionString: url.toString(),
    keyring: { current: SECRET, previous: [] },
  });
  try {
    await migrate(container.pool);
    const boot = await ensureOwnerAndSandbox(container.pool, 'bench@herald.local');
    const seeded = await seedSandboxConnections({
      pool: container.pool,
      access: container.platformAccess,
      simulators: container.simulators,
      workspaceId: boot.workspaceId,
      brandId: boot.brandId,
    });
    const { key } = await createKey(container.pool, {
      userId: boot.userId,
      name: 'bench',
      scopes: [...SCOPES],
      workspaceIds: [boot.workspaceId],
      expiresAt: null,
    });
    console.log(
      `Scheduler lateness, ${POSTS} scheduled posts per run (Mastodon simulator), poll interval ${config.workerPollIntervalMs} ms, concurrency ${config.workerConcurrency}`,
    );
    console.log('ms after schedule_at          claimed p50/p90/p99/max          published p50/p90/p99/max');
    const fmt = (x: Record<string, number>) =>
      `${x.p50!.toFixed(0)}/${x.p90!.toFixed(0)}/${x.p99!.toFixed(0)}/${x.max!.toFixed(0)}`.padEnd(32);
    if (QUEUED > 0) {
      // A first run is discarded: the first worker start and first creates pay for JIT and connections (seconds
      // on a busy machine), which would flatter the queued run against the empty one.
      await scenario(container, key, true, false);
      const empty = await scenario(container, key, true, false);
      console.log(
        `${'spread'.padEnd(10)} ${'empty queue'.padEnd(16)} ${fmt(quantiles(empty.claim))} ${fmt(quantiles(empty.published))}`,
      );
      const started = Date.now();
      await seedFutureQueue(
        url.toString(),
        {
          secret: SECRET,
          userId: boot.userId,
          workspaceId: boot.workspaceId,
          brandId: boot.brandId,
          key,
          connections: new Map(seeded.map((c) => [c.platform, c.id])),
        },
        QUEUED,
      );
      console.error(`seeded ${QUEUED} future posts in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      const full = await scenario(container, key, true, false);
      console.log(
        `${'spread'.padEnd(10)} ${`${QUEUED.toLocaleString('en')} ahead`.padEnd(16)} ${fmt(quantiles(full.claim))} ${fmt(quantiles(full.published))}`,
      );
      console.log(
        `published p99: ${(quantiles(full.published).p99! / quantiles(empty.published).p99!).toFixed(2)} × the empty queue's (target ≤ 1.5)`,
      );
      return;
    }
    for (const burst of [false, true]) {
      for (const waker of [false, true]) {
        const r = await scenario(container, key, waker, burst);
        const c = quantiles(r.claim);
        const p = quantiles(r.published);
        console.log(
          `${(burst ? 'burst' : `spread ${SPREAD_S}s`).padEnd(10)} ${(waker ? 'waker' : 'polling only').padEnd(16)} ${fmt(c)} ${fmt(p)}`,
        );
      }
    }
  } finally {
    await container.close();
    await sandbox.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await cleanup();
  }
}

await main();
