// Benchmark 5: start-up. `npm start` on an existing data dir and an already migrated database, timed from spawn
// to the first 200 of /health/ready, and Herald's RSS after 3 s idle; the floor is `node -e` opening one `pg`
// connection to the same cluster (spawn → connected, and its idle RSS). On the embedded server, also the start
// of a data dir that owns its embedded cluster (Herald starts PostgreSQL itself; no floor for that).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RAISED_LIMITS, prepareWorkspace } from './lib/herald.ts';
import { quantile } from './lib/load.ts';
import { freePort, REPO, rssOf, sleep, stopChild, waitForOk } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

/** Issue 33's footprint targets: start to ready and idle RSS as multiples of the bare-node floor's. */
export const START_TARGET = 15;
export const RSS_TARGET = 2.3;

const IDLE_MS = 3000;

/** The descendant of `pid` that runs bin/herald.js as its script (npm → sh → node; not the shell). */
async function heraldPid(pid: number, ceilingMs = 30_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const queue = [pid];
    while (queue.length > 0) {
      const p = queue.shift()!;
      const cmdline = await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
      if (p !== pid && cmdline.split('\0').some((arg) => arg.endsWith('bin/herald.js'))) return p;
      const children = await readFile(`/proc/${p}/task/${p}/children`, 'utf8').catch(() => '');
      queue.push(...children.split(' ').filter(Boolean).map(Number));
    }
    if (Date.now() - started > ceilingMs) throw new Error('npm start did not run bin/herald.js');
    await sleep(20);
  }
}

interface Start {
  readyMs: number;
  idleRss: number;
}

/** One `npm start`: time to ready, idle RSS of the Herald process, then SIGTERM to it. */
async function npmStart(env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const full: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    HERALD_PUBLIC_URL: `http://127.0.0.1:${port}`,
    HERALD_LOG_LEVEL: 'warn',
    ...RAISED_LIMITS,
    ...env,
  };
  if (!env.DATABASE_URL) delete full.DATABASE_URL;
  const started = performance.now();
  const npm: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: REPO,
    env: full,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  try {
    await waitForOk(`http://127.0.0.1:${port}/health/ready`, 180_000, npm);
    const readyMs = performance.now() - started;
    const pid = await heraldPid(npm.pid!);
    await sleep(IDLE_MS);
    const idleRss = await rssOf(pid);
    process.kill(pid, 'SIGTERM');
    await new Promise<void>((resolve) => (npm.exitCode !== null ? resolve() : npm.once('exit', () => resolve())));
    return { readyMs, idleRss };
  } finally {
    await stopChild(npm);
  }
}

const FLOOR_SCRIPT = `const pg = require('pg'); const c = new pg.Client({ connectionString: process.argv[1] });
c.connect().then(() => c.query('SELECT 1')).then(() => process.stdout.write('ready\\n'));`;

/** The floor: `node -e` opening one pg connection; time to connected, idle RSS. */
async function floorStart(url: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', FLOOR_SCRIPT, url], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`the floor exited with ${code}`)));
    });
    const readyMs = performance.now() - started;
    await sleep(IDLE_MS);
    return { readyMs, idleRss: await rssOf(child.pid!) };
  } finally {
    await stopChild(child);
  }
}

export async function startupBenchmark(ctx: BenchContext): Promise<Row[]> {
  const runs = ctx.quick ? 2 : 5;
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const env = {
      DATABASE_URL: db.url,
      HERALD_SECRET_KEY: ws.secret,
      HERALD_DATA_DIR: path.join(ctx.scratch, 'startup'),
    };
    await npmStart(env); // the first start makes the data dir; the measured ones find it
    const heralds: Start[] = [];
    const floors: Start[] = [];
    for (let i = 0; i < runs; i++) {
      heralds.push(await npmStart(env));
      floors.push(await floorStart(db.url));
    }
    const median = (xs: Start[], f: (s: Start) => number) => quantile(xs.map(f), 0.5);
    const h = { ready: median(heralds, (s) => s.readyMs), rss: median(heralds, (s) => s.idleRss) };
    const f = { ready: median(floors, (s) => s.readyMs), rss: median(floors, (s) => s.idleRss) };
    ctx.log(`start-up: Herald ${fmt.ms(h.ready)}, ${fmt.mib(h.rss)}; floor ${fmt.ms(f.ready)}, ${fmt.mib(f.rss)}`);
    const rows: Row[] = [
      {
        benchmark: `Start-up: npm start → ready, existing data dir (median of ${runs})`,
        herald: fmt.ms(h.ready),
        floor: `${fmt.ms(f.ready)} (node -e, one pg connection)`,
        ratio: f.ready / h.ready,
        target: `Herald ≤ ${START_TARGET} × floor (ratio ≥ ${(1 / START_TARGET).toFixed(3)})`,
        pass: h.ready <= START_TARGET * f.ready,
        database: ctx.server.label,
      },
      {
        benchmark: 'Start-up: idle RSS',
        herald: fmt.mib(h.rss),
        floor: fmt.mib(f.rss),
        ratio: f.rss / h.rss,
        target: `Herald ≤ ${RSS_TARGET} × floor (ratio ≥ ${(1 / RSS_TARGET).toFixed(3)})`,
        pass: h.rss <= RSS_TARGET * f.rss,
        database: ctx.server.label,
      },
    ];
    if (ctx.server.kind === 'embedded') {
      const own = { HERALD_DATA_DIR: path.join(ctx.scratch, 'startup-own-cluster') };
      await npmStart(own); // initdb, migrations, first-start bootstrap
      const starts: Start[] = [];
      for (let i = 0; i < Math.min(runs, 3); i++) starts.push(await npmStart(own));
      rows.push({
        benchmark: `Start-up: npm start → ready, data dir with its own embedded cluster (median of ${starts.length})`,
        herald: `${fmt.ms(median(starts, (s) => s.readyMs))}, idle RSS ${fmt.mib(median(starts, (s) => s.idleRss))} (Herald's process; PostgreSQL's own not counted)`,
        floor: '—',
        ratio: null,
        target: '—',
        pass: null,
        database: 'embedded, started by Herald',
      });
    }
    return rows;
  } finally {
    await db.drop();
  }
}
