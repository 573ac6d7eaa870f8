// What the reliability files share: a fleet of real Herald processes (`herald serve --role api|worker`) on one
// test database with the simulators in this process, control of the suite's own PostgreSQL cluster, plain HTTP
// calls, and the figures each file records for the table `npm run test:reliability` prints at the end.
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createPool } from '../../src/db/pool.ts';
import { pgStore } from '../../src/sandbox/framework/store-pg.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { unsettledTargets } from '../helpers/exactly-once.ts';
import { pollFor } from '../helpers/poll.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnHerald, type HeraldProcess } from '../helpers/processes.ts';

/** The figures of one check, for the table `npm run test:reliability` prints at the end. */
export interface Figures {
  requests: number;
  faults: number;
  lost: number;
  duplicates: number;
  /** 5xx answers other than the ones the check expects (the 503s while the database is down). */
  unexpected5xx: number;
  /** What the faults were, latencies seen, expected 503s. */
  notes?: string;
}

/** Records a check's figures (and prints them, so a single file run shows them too). */
export function recordFigures(check: string, figures: Figures): void {
  console.log(`# figures of "${check}": ${JSON.stringify(figures)}`);
  const out = process.env.HERALD_REL_FIGURES;
  if (out) appendFileSync(out, `${JSON.stringify({ check, ...figures })}\n`);
}

/** The cluster `npm run test:reliability` created for this run ("15/herald-rel-<pid>"); never the machine's. */
export function suiteCluster(): { version: string; name: string } {
  const id = process.env.HERALD_REL_CLUSTER;
  if (!id)
    throw new Error('HERALD_REL_CLUSTER is not set: run the reliability suite through `npm run test:reliability`.');
  const [version, name] = id.split('/');
  if (!version || !name?.startsWith('herald-rel-'))
    throw new Error(`refusing to control cluster ${id}: not one the suite created`);
  return { version, name };
}

export function clusterCtl(action: 'start' | 'stop'): void {
  const { version, name } = suiteCluster();
  execFileSync(
    'pg_ctlcluster',
    ['--skip-systemctl-redirect', version, name, action, ...(action === 'stop' ? ['-m', 'fast'] : [])],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

export interface Fleet {
  t: TestApp;
  sandbox: RunningSandbox;
  apis: HeraldProcess[];
  workers: HeraldProcess[];
  urls: string[];
  env: Record<string, string>;
  startWorker(): HeraldProcess;
  /** Tells crashed() that this process was stopped on purpose. */
  markStopped(p: HeraldProcess): void;
  /** Processes that exited although nobody stopped them, with their last output. */
  crashed(): string[];
  /**
   * Stops the simulators and starts them again on the same port (a sandbox restart under load). Only with
   * `sandboxInDatabase`: their state is in the test database, as in Herald's own mount, so nothing is forgotten.
   */
  restartSandbox(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fresh test database with the Sandbox seeded (buildTestApp), the simulators started here (so the test reads
 * what each platform holds), and `apis` API plus `workers` worker processes on that database and the suite's Redis.
 */
export async function startFleet(options: {
  apis: number;
  workers: number;
  env?: Record<string, string>;
  /** Keep the simulators' state in the test database (the `sandbox` schema), so `restartSandbox` loses nothing. */
  sandboxInDatabase?: boolean;
}): Promise<Fleet> {
  const redisUrl = process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
  const port = await freePort();
  const t = await buildTestApp({
    sandboxUrl: `http://127.0.0.1:${port}`,
    env: { REDIS_URL: redisUrl, ...options.env },
  });
  const sandboxPool = options.sandboxInDatabase ? createPool(t.db.connectionString, 8, 'herald-sandbox') : undefined;
  const startSimulators = () =>
    startSandbox({
      secret: sandboxSecret(),
      rateLimitFactor: 1000,
      port,
      ...(sandboxPool ? { store: (name) => pgStore(sandboxPool, name) } : {}),
    });
  let current = await startSimulators();
  // Tests hold this object across restarts: it always answers for the simulators running now.
  const sandbox: RunningSandbox = {
    get url() {
      return current.url;
    },
    baseUrl: (platform) => current.baseUrl(platform),
    simulator: (platform) => current.simulator(platform),
    close: () => current.close(),
  };
  const env: Record<string, string> = {
    DATABASE_URL: t.db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    PORT: '0',
    REDIS_URL: redisUrl,
    // Workers refuse to start without it; the simulators are this process's (HERALD_SANDBOX_URL).
    HERALD_PUBLIC_URL: 'http://herald.test',
    HERALD_SANDBOX_URL: sandbox.url,
    HERALD_WORKER_POLL_INTERVAL_MS: '200',
    HERALD_HEARTBEAT_INTERVAL_MS: '250',
    HERALD_WORKER_DEAD_AFTER_MS: '1500',
    HERALD_PLATFORM_TIMEOUT_MS: '3000',
    HERALD_OVERDUE_AFTER_MS: '5000',
    HERALD_WORKER_CONCURRENCY: '8',
    HERALD_PUBLISH_MAX_ATTEMPTS: '12',
    ...options.env,
  };
  const stopped = new Set<HeraldProcess>();
  const all: HeraldProcess[] = [];
  const spawn = (role: 'api' | 'worker') => {
    const p = spawnHerald(['serve', '--role', role], env);
    all.push(p);
    return p;
  };
  const apis = Array.from({ length: options.apis }, () => spawn('api'));
  const workers = Array.from({ length: options.workers }, () => spawn('worker'));
  const fleet: Fleet = {
    t,
    sandbox,
    apis,
    workers,
    env,
    urls: [],
    startWorker() {
      const p = spawn('worker');
      workers.push(p);
      return p;
    },
    markStopped(p) {
      stopped.add(p);
    },
    async restartSandbox() {
      if (!sandboxPool) throw new Error('restartSandbox needs startFleet({ sandboxInDatabase: true })');
      await current.close();
      current = await startSimulators();
    },
    crashed() {
      return all
        .filter((p) => !stopped.has(p) && (p.child.exitCode !== null || p.child.signalCode !== null))
        .map((p) => `exit ${p.child.exitCode ?? p.child.signalCode}: ${p.output().slice(-2000)}`);
    },
    async close() {
      for (const p of all) stopped.add(p);
      await Promise.all(all.map((p) => p.stop('SIGKILL')));
      await sandbox.close();
      await sandboxPool?.end();
      await t.close();
    },
  };
  try {
    fleet.urls = await Promise.all(apis.map((a) => a.url));
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet;
}

/** SIGKILLs a worker on purpose (crashed() does not report it). */
export async function killWorker(fleet: Fleet, worker: HeraldProcess): Promise<void> {
  fleet.workers.splice(fleet.workers.indexOf(worker), 1);
  fleet.markStopped(worker);
  await worker.stop('SIGKILL');
}

/** SIGKILLs a worker picked at random, if any is running; true when one was killed. */
export async function killRandomWorker(fleet: Fleet): Promise<boolean> {
  const victim = fleet.workers[Math.floor(Math.random() * fleet.workers.length)];
  if (!victim) return false;
  await killWorker(fleet, victim);
  return true;
}

/** Waits, up to `ceilingMs`, until every target of `postIds` is published or failed. */
export async function targetsSettled(
  fleet: Fleet,
  what: string,
  postIds: string[],
  ceilingMs: number,
  intervalMs = 500,
): Promise<void> {
  await pollFor(
    what,
    async () => ((await unsettledTargets(fleet.t.container.pool, postIds)) === 0 ? true : undefined),
    ceilingMs,
    intervalMs,
  );
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json:
    | {
        success?: boolean;
        data?: Record<string, unknown> & { post_id?: string };
        error?: { code: string; message: string };
        request_id?: string;
      }
    | undefined;
}

/** One HTTP call; a body that is not JSON leaves `json` undefined (the caller decides whether that is a fault). */
export async function call(
  url: string,
  init: { method?: string; key?: string; idem?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.idem) headers['idempotency-key'] = init.idem;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let json: HttpAnswer['json'];
  try {
    json = JSON.parse(text) as HttpAnswer['json'];
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
