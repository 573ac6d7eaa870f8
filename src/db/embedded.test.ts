// Tests of the embedded PostgreSQL against real clusters: first start, restart, attaching from another process,
// racing starters, a SIGKILLed owner, and (as root) the fallback location for dirs the postgres user cannot reach.

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openEmbeddedCluster, type EmbeddedCluster, type EmbeddedLog } from './embedded.ts';
import type { RuntimeInfo } from './embedded-files.ts';
import { ensureReachableBinaries } from './embedded-location.ts';
import {
  canSearch,
  findBlockingDir,
  isProcessAlive,
  loadPgBinaries,
  resolveRunAs,
  waitForExit,
  type RunAs,
} from './embedded-os.ts';

const isRoot = process.getuid?.() === 0;
const FIXTURE = path.join(import.meta.dirname, 'embedded-fixture.ts');

function recordingLog(): EmbeddedLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

const deferred = new WeakMap<TestContext, Array<() => unknown>>();
/** Runs `fn` after the test, in reverse order of deferral (t.after runs hooks first-in, first-out). */
function defer(t: TestContext, fn: () => unknown): void {
  let stack = deferred.get(t);
  if (!stack) {
    const fns: Array<() => unknown> = (stack = []);
    deferred.set(t, fns);
    t.after(async () => {
      for (const f of fns.reverse()) await f();
    });
  }
  stack.push(fn);
}

/**
 * A fresh data dir under `base` (/root is 0700, so as root the fallback location is exercised), or under a fresh
 * 0700 directory there when `nested`; removed, with its cluster, after the test.
 */
async function dataDirFor(t: TestContext, opts: { base?: string; nested?: boolean } = {}): Promise<string> {
  const top = await fs.mkdtemp(path.join(opts.base ?? '/root', 'herald-embedded-test-'));
  const dataDir = opts.nested ? path.join(top, 'data') : top;
  defer(t, () => fs.rm(top, { recursive: true, force: true }));
  defer(t, () => removeDataDir(dataDir));
  return dataDir;
}

/** Removes a data dir and its fallback cluster dir, first killing a postmaster a failed test left running. */
async function removeDataDir(dataDir: string): Promise<void> {
  const clusterDir = await clusterDirOf(dataDir);
  const pid = Number(
    (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0],
  );
  if (pid && isProcessAlive(pid)) {
    process.kill(pid, 'SIGQUIT');
    await waitForExit(pid, 20_000);
  }
  if (clusterDir.startsWith('/var/lib/herald/herald-pg-'))
    await fs.rm(path.dirname(clusterDir), { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
}

async function clusterDirOf(dataDir: string): Promise<string> {
  const location = JSON.parse(
    await fs.readFile(path.join(dataDir, 'cluster-location.json'), 'utf8').catch(() => '{}'),
  ) as { clusterDir?: string };
  return location.clusterDir ?? path.join(dataDir, 'pg');
}

/** openEmbeddedCluster, with stop() also deferred so a failing test leaves no cluster behind. */
async function open(t: TestContext, opts: Parameters<typeof openEmbeddedCluster>[0]): Promise<EmbeddedCluster> {
  const cluster = await openEmbeddedCluster(opts);
  defer(t, () => cluster.stop());
  return cluster;
}

const postgresProcesses = (clusterDir: string) =>
  spawnSync('pgrep', ['-f', clusterDir], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);

/** Polls (generously) until no process names the cluster dir, then asserts it. */
async function assertNoPostgres(clusterDir: string): Promise<void> {
  for (let i = 0; i < 200 && postgresProcesses(clusterDir).length > 0; i++) await sleep(100);
  assert.deepEqual(postgresProcesses(clusterDir), [], `postgres still running on ${clusterDir}`);
}

async function query<T>(connectionString: string, sql: string): Promise<T[]> {
  const client = new pg.Client(connectionString);
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

interface FixtureReport {
  pid: number;
  owned: boolean;
  connectionString: string;
  one: number;
}

/** Runs embedded-fixture.ts in another process; `report` is its first stdout line. */
function startFixture(t: TestContext, dataDir: string, ...args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, dataDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const report = new Promise<FixtureReport>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as FixtureReport));
    void exited.then((code) => reject(new Error(`fixture exited (${code}) before reporting:\n${stderr}`)));
  });
  report.catch(() => undefined);
  defer(t, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    report,
    exited,
    async stop(): Promise<void> {
      child.stdin!.write('stop\n');
      assert.equal(await exited, 0, stderr);
    },
  };
}

test('fresh cluster: init, start, query, stop; a restart keeps the password and the data', async (t) => {
  const dataDir = await dataDirFor(t);
  const log = recordingLog();

  let began = Date.now();
  const first = await open(t, { dataDir, log });
  t.diagnostic(`fresh cluster (initdb + start): ${Date.now() - began} ms`);
  assert.equal(first.owned, true);
  assert.match(first.connectionString, /^postgres:\/\/herald:[^@]{32}@127\.0\.0\.1:\d+\/herald$/);
  assert.doesNotMatch(first.connectionString, /:5432\//);
  assert.deepEqual(await query(first.connectionString, 'select 1 as one'), [{ one: 1 }]);
  await query(first.connectionString, "create table kept (v text); insert into kept values ('still here')");

  const info = JSON.parse(await fs.readFile(path.join(dataDir, 'postgres.json'), 'utf8')) as RuntimeInfo;
  assert.equal(info.ownerPid, process.pid);
  assert.equal((await fs.stat(path.join(dataDir, 'postgres.json'))).mode & 0o777, 0o600);
  assert.equal((await fs.stat(path.join(dataDir, 'postgres-credentials.json'))).mode & 0o777, 0o600);
  await first.stop();
  await first.stop(); // idempotent
  await assertNoPostgres(info.clusterDir);
  await assert.rejects(fs.access(path.join(dataDir, 'postgres.json')));
  await assert.rejects(fs.access(path.join(dataDir, 'postgres.lock')));

  began = Date.now();
  const second = await open(t, { dataDir, log });
  t.diagnostic(`existing cluster (start only): ${Date.now() - began} ms`);
  assert.equal(second.owned, true);
  assert.equal(new URL(second.connectionString).password, new URL(first.connectionString).password);
  assert.deepEqual(await query(second.connectionString, 'select v from kept'), [{ v: 'still here' }]);
  await second.stop();
  await assertNoPostgres(info.clusterDir);
  assert.ok(!log.lines.some((l) => l.startsWith('warn') || l.startsWith('error')), log.lines.join('\n'));
});

test('a second open in the same process attaches to the cluster it owns', async (t) => {
  const dataDir = await dataDirFor(t);
  const owner = await open(t, { dataDir, log: recordingLog() });
  const again = await open(t, { dataDir, log: recordingLog() });
  assert.equal(again.owned, false);
  assert.equal(again.connectionString, owner.connectionString);
  await again.stop(); // no-op
  assert.deepEqual(await query(owner.connectionString, 'select 1 as one'), [{ one: 1 }]);
  await owner.stop();
  await assertNoPostgres(await clusterDirOf(dataDir));
});

test('another process attaches (owned=false) while this one owns the cluster', async (t) => {
  const dataDir = await dataDirFor(t);
  const owner = await open(t, { dataDir, log: recordingLog() });
  const other = startFixture(t, dataDir);
  const report = await other.report;
  assert.equal(report.owned, false);
  assert.equal(report.one, 1);
  assert.equal(report.connectionString, owner.connectionString);
  await other.stop(); // an attached stop leaves the cluster running
  assert.deepEqual(await query(owner.connectionString, 'select 1 as one'), [{ one: 1 }]);
  await owner.stop();
  await assertNoPostgres(await clusterDirOf(dataDir));
});

test('two processes racing to start a fresh cluster end with exactly one owner', async (t) => {
  const dataDir = await dataDirFor(t);
  const a = startFixture(t, dataDir);
  const b = startFixture(t, dataDir);
  const reports = await Promise.all([a.report, b.report]);
  assert.deepEqual(reports.map((r) => r.owned).sort(), [false, true]);
  assert.equal(reports[0].connectionString, reports[1].connectionString);
  const [owner, attached] = reports[0].owned ? [a, b] : [b, a];
  await attached.stop();
  await owner.stop();
  await assertNoPostgres(await clusterDirOf(dataDir));
});

test('an owner killed with SIGKILL leaves an orphan that the next open stops before owning', async (t) => {
  const dataDir = await dataDirFor(t);
  const victim = startFixture(t, dataDir);
  assert.equal((await victim.report).owned, true);
  const orphan = JSON.parse(await fs.readFile(path.join(dataDir, 'postgres.json'), 'utf8')) as RuntimeInfo;
  victim.child.kill('SIGKILL');
  await victim.exited;
  assert.ok(isProcessAlive(orphan.postmasterPid), 'the postmaster survives its owner');

  const log = recordingLog();
  const began = Date.now();
  const next = await open(t, { dataDir, log });
  t.diagnostic(`open after a SIGKILLed owner (stop orphan + start): ${Date.now() - began} ms`);
  assert.equal(next.owned, true);
  assert.ok(await waitForExit(orphan.postmasterPid, 20_000), 'the orphan was stopped');
  assert.ok(
    log.lines.some((l) => l.includes('orphaned')),
    log.lines.join('\n'),
  );
  assert.deepEqual(await query(next.connectionString, 'select 1 as one'), [{ one: 1 }]);
  await next.stop();
  await assertNoPostgres(orphan.clusterDir);
});

test('an owner that exits without stop() shuts its postmaster down; the next open owns cleanly', async (t) => {
  const dataDir = await dataDirFor(t);
  const quitter = startFixture(t, dataDir, '--exit-without-stop');
  assert.equal((await quitter.report).owned, true);
  assert.equal(await quitter.exited, 0);
  const clusterDir = await clusterDirOf(dataDir);
  await assertNoPostgres(clusterDir);
  const next = await open(t, { dataDir, log: recordingLog() });
  assert.equal(next.owned, true);
  await next.stop();
  await assertNoPostgres(clusterDir);
});

test(
  'as root, a data dir the postgres user cannot reach puts the cluster under /var/lib/herald and records it',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const dataDir = await dataDirFor(t, { nested: true });
    await fs.chmod(path.dirname(dataDir), 0o700);
    const log = recordingLog();
    const cluster = await open(t, { dataDir, log });
    const location = JSON.parse(await fs.readFile(path.join(dataDir, 'cluster-location.json'), 'utf8')) as {
      clusterDir: string;
    };
    assert.match(location.clusterDir, /^\/var\/lib\/herald\/herald-pg-[0-9a-f]{12}\/pg$/);
    assert.equal(
      log.lines.filter((l) => l.includes(location.clusterDir) && l.includes('cannot search')).length,
      1,
      log.lines.join('\n'),
    );
    const runAs = (await resolveRunAs(log))!;
    const st = await fs.stat(location.clusterDir);
    assert.equal(st.uid, runAs.uid);
    assert.equal(st.mode & 0o777, 0o700);
    assert.equal((await fs.stat(path.dirname(location.clusterDir))).mode & 0o777, 0o711);
    await cluster.stop();

    const again = await open(t, { dataDir, log });
    assert.equal(
      JSON.parse(await fs.readFile(path.join(dataDir, 'postgres.json'), 'utf8')).clusterDir,
      location.clusterDir,
    );
    await again.stop();
    await assertNoPostgres(location.clusterDir);
  },
);

test('a data dir the postgres user can reach keeps the cluster inside it', async (t) => {
  const dataDir = await dataDirFor(t, { base: '/tmp' });
  await fs.chmod(dataDir, 0o711);
  const cluster = await open(t, { dataDir, log: recordingLog() });
  await assert.rejects(fs.access(path.join(dataDir, 'cluster-location.json')));
  await fs.access(path.join(dataDir, 'pg', 'PG_VERSION'));
  await cluster.stop();
  await assertNoPostgres(path.join(dataDir, 'pg'));
});

test(
  'as root, binaries the postgres user cannot reach are run from a copy under /var/lib/herald',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const hidden = await dataDirFor(t);
    const real = await loadPgBinaries();
    const nativeDir = path.join(hidden, 'native');
    execFileSync('cp', ['-a', real.nativeDir, nativeDir]);
    const rebase = (p: string) => path.join(nativeDir, path.relative(real.nativeDir, p));
    const bins = {
      ...real,
      nativeDir,
      postgres: rebase(real.postgres),
      initdb: rebase(real.initdb),
      pg_ctl: rebase(real.pg_ctl),
    };
    const runAs = (await resolveRunAs(recordingLog()))!;
    const reachable = await ensureReachableBinaries(bins, runAs, recordingLog());
    defer(t, () => fs.rm(reachable.nativeDir, { recursive: true, force: true }));
    assert.match(reachable.nativeDir, /^\/var\/lib\/herald\/herald-pg-bin-/);
    const version = spawnSync(reachable.postgres, ['--version'], {
      uid: runAs.uid,
      gid: runAs.gid,
      cwd: '/',
      encoding: 'utf8',
    });
    assert.match(version.stdout, /PostgreSQL\) 15\./, version.stderr);
    assert.equal((await ensureReachableBinaries(bins, runAs, recordingLog())).nativeDir, reachable.nativeDir); // reused
  },
);

test('search permission follows the POSIX class of the user (owner, else group, else other)', async () => {
  const pgUser: RunAs = { name: 'postgres', uid: 101, gid: 104, groups: [104, 103] };
  assert.equal(canSearch({ uid: 0, gid: 0, mode: 0o40700 }, pgUser), false);
  assert.equal(canSearch({ uid: 0, gid: 0, mode: 0o40711 }, pgUser), true);
  assert.equal(canSearch({ uid: 0, gid: 103, mode: 0o40710 }, pgUser), true);
  assert.equal(canSearch({ uid: 0, gid: 103, mode: 0o40701 }, pgUser), false); // group class without x wins
  assert.equal(canSearch({ uid: 101, gid: 0, mode: 0o40700 }, pgUser), true);
  assert.equal(canSearch({ uid: 101, gid: 0, mode: 0o40011 }, pgUser), false);
  assert.equal(await findBlockingDir('/usr/share/nonexistent/deeper', pgUser), undefined);
  if (isRoot) assert.equal(await findBlockingDir('/root/some/where', pgUser), '/root');
});
