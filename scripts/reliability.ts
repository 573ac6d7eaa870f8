// `npm run test:reliability`: the reliability suite (test/reliability/*.reliability.ts) on a PostgreSQL cluster
// of its own, so that stopping and restarting the database mid-load never touches the machine's shared server.
// It creates the cluster with pg_createcluster on a free port, runs the suite against it and the machine's Redis
// (a database number of its own), prints the figures every file recorded, and always drops the cluster and
// kills whatever the suite started — also when a test fails or the run is interrupted.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.ts';
import type { Figures as CheckFigures } from '../test/reliability/harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const VERSION = process.env.HERALD_REL_PG_VERSION ?? '15';
const CLUSTER = `herald-rel-${process.pid}`;
const REDIS_URL = process.env.HERALD_REL_REDIS_URL ?? 'redis://127.0.0.1:6379/11';

function sh(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

let clusterCreated = false;
function dropCluster(): void {
  if (!clusterCreated) return;
  clusterCreated = false;
  try {
    sh('pg_dropcluster', ['--stop', VERSION, CLUSTER]);
    console.log(`# dropped cluster ${VERSION}/${CLUSTER}`);
  } catch (error) {
    console.error(`# could not drop cluster ${VERSION}/${CLUSTER}: ${(error as Error).message}`);
  }
}

/** One row of the table: a check's figures as the harness records them, one JSON line each. */
type Figures = CheckFigures & { check: string };

const COLUMNS = [
  ['requests', 'requests sent'],
  ['faults', 'faults injected'],
  ['lost', 'posts lost'],
  ['duplicates', 'duplicates'],
  ['unexpected5xx', '5xx'],
] as const;

function printFigures(file: string): void {
  let rows: Figures[] = [];
  try {
    rows = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Figures);
  } catch {
    // no figure was recorded (every file failed before its first)
  }
  const total: Figures = { check: 'total', requests: 0, faults: 0, lost: 0, duplicates: 0, unexpected5xx: 0 };
  for (const r of rows) for (const [key] of COLUMNS) total[key] += r[key];
  const width = Math.max(5, ...rows.map((r) => r.check.length));
  const line = (r: Figures) =>
    `${r.check.padEnd(width)}  ${COLUMNS.map(([key, title]) => String(r[key]).padStart(title.length)).join('  ')}  ${r.notes ?? ''}`;
  console.log(`\nReliability figures (${rows.length} checks)`);
  console.log(`${'check'.padEnd(width)}  ${COLUMNS.map(([, title]) => title).join('  ')}  notes`);
  for (const r of rows) console.log(line(r));
  console.log(line(total));
}

async function main(): Promise<number> {
  // Debian's PostgreSQL tools create clusters owned by the postgres user, which only root may do.
  if (process.getuid?.() !== 0) {
    console.error(
      'The reliability suite creates its own PostgreSQL cluster with pg_createcluster, which must run as root (sudo npm run test:reliability).',
    );
    return 1;
  }
  try {
    sh('sh', ['-c', 'command -v pg_createcluster && command -v pg_ctlcluster && command -v pg_dropcluster']);
  } catch {
    console.error(
      'pg_createcluster is missing: install postgresql-common and PostgreSQL 15 (apt-get install postgresql-15).',
    );
    return 1;
  }
  const port = await freePort();
  const work = mkdtempSync(path.join(os.tmpdir(), 'herald-rel-'));
  const figures = path.join(work, 'figures.jsonl');
  let exitCode: number;
  let suite: ReturnType<typeof spawn> | undefined;
  const interrupt = (signal: NodeJS.Signals) => {
    console.error(`# ${signal}: stopping the suite`);
    if (suite?.pid)
      try {
        process.kill(-suite.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    // Throwaway data: no fsync, and a small footprint on a shared machine.
    sh('pg_createcluster', [
      VERSION,
      CLUSTER,
      '-p',
      String(port),
      '-o',
      'fsync=off',
      '-o',
      'synchronous_commit=off',
      '-o',
      'full_page_writes=off',
      '-o',
      'max_connections=300',
      '-o',
      'shared_buffers=64MB',
      '--',
      '--auth=trust',
    ]);
    clusterCreated = true;
    sh('pg_ctlcluster', ['--skip-systemctl-redirect', VERSION, CLUSTER, 'start']);
    console.log(`# cluster ${VERSION}/${CLUSTER} on 127.0.0.1:${port}`);
    const files = readdirSync(path.join(ROOT, 'test', 'reliability'))
      .filter((f) => f.endsWith('.reliability.ts'))
      .sort()
      .map((f) => path.join('test', 'reliability', f));
    const only = process.argv.slice(2);
    const selected = only.length > 0 ? files.filter((f) => only.some((o) => f.includes(o))) : files;
    // Its own process group, so that everything the tests start (Herald processes) can be killed at once.
    suite = spawn(
      process.execPath,
      ['--test', '--test-concurrency=1', '--test-global-setup=test/global-setup.ts', ...selected],
      {
        cwd: ROOT,
        stdio: 'inherit',
        detached: true,
        env: {
          ...process.env,
          DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
          HERALD_TEST_REDIS_URL: REDIS_URL,
          HERALD_REL_CLUSTER: `${VERSION}/${CLUSTER}`,
          HERALD_REL_FIGURES: figures,
        },
      },
    );
    exitCode = await new Promise<number>((resolve) =>
      suite!.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))),
    );
    printFigures(figures);
  } finally {
    if (suite?.pid)
      try {
        process.kill(-suite.pid, 'SIGKILL');
      } catch {
        /* the group is empty */
      }
    dropCluster();
    rmSync(work, { recursive: true, force: true });
  }
  return exitCode;
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(error);
  dropCluster();
  return 1;
});
