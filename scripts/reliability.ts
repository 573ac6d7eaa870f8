// `npm run test:reliability`: the reliability suite (test/reliability/*.reliability.ts) on a PostgreSQL cluster
// of its own, so that stopping and restarting the database mid-load never touches the machine's shared server.
// It creates the cluster with pg_createcluster on a free port, runs the suite against it and the machine's Redis
// (a database number of its own), prints the figures every file recorded, and always drops the cluster and
// kills whatever the suite started — also when a test fails or the run is interrupted.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const VERSION = process.env.HERALD_REL_PG_VERSION ?? '15';
const CLUSTER = `herald-rel-${process.pid}`;
const REDIS_URL = process.env.HERALD_REL_REDIS_URL ?? 'redis://127.0.0.1:6379/11';

function sh(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A port nobody listens on right now: bind port 0, read what the kernel chose, let it go. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
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

interface Figure {
  file: string;
  name: string;
  value: number;
}

function printFigures(file: string): void {
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    // no figure was recorded (every file failed before its first)
  }
  const figures = lines.map((line) => JSON.parse(line) as Figure);
  const totals = new Map<string, number>();
  for (const f of figures) totals.set(f.name, (totals.get(f.name) ?? 0) + f.value);
  const width = Math.max(10, ...figures.map((f) => f.file.length));
  const nameWidth = Math.max(10, ...figures.map((f) => f.name.length));
  console.log('\nReliability figures');
  console.log(`${'file'.padEnd(width)}  ${'figure'.padEnd(nameWidth)}  value`);
  for (const f of figures) console.log(`${f.file.padEnd(width)}  ${f.name.padEnd(nameWidth)}  ${f.value}`);
  console.log('\nTotals');
  for (const [name, value] of totals) console.log(`${name.padEnd(nameWidth)}  ${value}`);
}

async function main(): Promise<number> {
  const port = await freePort();
  const work = mkdtempSync(path.join(os.tmpdir(), 'herald-rel-'));
  const figures = path.join(work, 'figures.jsonl');
  let exitCode: number;
  let suite: ReturnType<typeof spawn> | undefined;
  const interrupt = (signal: NodeJS.Signals) => {
    console.error(`# ${signal}: stopping the suite`);
    if (suite?.pid) try { process.kill(-suite.pid, 'SIGKILL'); } catch { /* already gone */ }
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    // Throwaway data: no fsync, and a small footprint on a shared machine.
    sh('pg_createcluster', [VERSION, CLUSTER, '-p', String(port), '-o', 'fsync=off', '-o', 'synchronous_commit=off', '-o', 'full_page_writes=off', '-o', 'max_connections=300', '-o', 'shared_buffers=64MB', '--', '--auth=trust']);
    clusterCreated = true;
    sh('pg_ctlcluster', ['--skip-systemctl-redirect', VERSION, CLUSTER, 'start']);
    console.log(`# cluster ${VERSION}/${CLUSTER} on 127.0.0.1:${port}`);
    const files = readdirSync(path.join(ROOT, 'test', 'reliability')).filter((f) => f.endsWith('.reliability.ts')).sort().map((f) => path.join('test', 'reliability', f));
    const only = process.argv.slice(2);
    const selected = only.length > 0 ? files.filter((f) => only.some((o) => f.includes(o))) : files;
    // Its own process group, so that everything the tests start (Herald processes) can be killed at once.
    suite = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-global-setup=test/global-setup.ts', ...selected], {
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
    });
    exitCode = await new Promise<number>((resolve) => suite!.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
    printFigures(figures);
  } finally {
    if (suite?.pid) try { process.kill(-suite.pid, 'SIGKILL'); } catch { /* the group is empty */ }
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
