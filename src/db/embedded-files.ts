// The embedded cluster's small state files in the data dir: credentials, the running cluster's address
// (postgres.json) and the owner's lock (postgres.lock). All are private (0600) and written atomically.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive, processStartTicks } from './embedded-os.ts';

/** `<dataDir>/postgres-credentials.json`: the superuser's password, chosen at initdb and reused forever. */
export interface Credentials {
  user: string;
  password: string;
}

/** `<dataDir>/postgres.json`: how to reach the running cluster, written by its owner once it accepts connections. */
export interface RuntimeInfo {
  host: string;
  port: number;
  socketDir: string;
  user: string;
  password: string;
  database: string;
  ownerPid: number;
  /** The owner's kernel start ticks (Linux), so a reused pid is not taken for the owner. */
  ownerStartTicks?: string;
  postmasterPid: number;
  clusterDir: string;
  startedAt: string;
}

/** `<dataDir>/postgres.lock`: held by the owning process for its whole life. */
export interface LockInfo {
  pid: number;
  startedAt: string;
  startTicks?: string;
}

export const runtimeInfoPath = (dataDir: string) => path.join(dataDir, 'postgres.json');
const credentialsPath = (dataDir: string) => path.join(dataDir, 'postgres-credentials.json');
const lockPath = (dataDir: string) => path.join(dataDir, 'postgres.lock');

/** Parsed JSON of a file, or undefined when it is missing or not (yet) valid JSON. */
export async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Writes JSON with mode 0600 through a rename, so readers never see a half-written file. */
export async function writeJsonPrivate(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await fs.writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file);
}

/**
 * The cluster's credentials: read from the data dir, or (before initdb only) created with a random 32-character
 * password. An initialised cluster without its credentials file cannot be recovered automatically.
 */
export async function loadOrCreateCredentials(
  dataDir: string,
  clusterDir: string,
  initialised: boolean,
): Promise<Credentials> {
  const existing = await readJson<Credentials>(credentialsPath(dataDir));
  if (existing?.password) return existing;
  if (initialised) {
    throw new Error(
      `The PostgreSQL cluster in ${clusterDir} exists but ${credentialsPath(dataDir)} (its password) is missing. ` +
        `Restore that file, or remove ${clusterDir} to start with an empty database.`,
    );
  }
  const created = { user: 'herald', password: randomBytes(24).toString('base64url') };
  await writeJsonPrivate(credentialsPath(dataDir), created);
  return created;
}

/** Removes postgres.json if it still describes a cluster owned by `ownerPid`. */
export async function removeRuntimeInfo(dataDir: string, ownerPid: number): Promise<void> {
  const info = await readJson<RuntimeInfo>(runtimeInfoPath(dataDir));
  if (info && info.ownerPid !== ownerPid) return;
  await fs.rm(runtimeInfoPath(dataDir), { force: true });
}

export type LockAttempt = { acquired: true } | { acquired: false; holder: LockInfo | undefined };

/**
 * Tries once to take the owner's lock (exclusive create). A lock whose holder is dead is stale: it is broken and
 * the attempt repeated. A live holder, or a lock being written right now, means "not acquired".
 */
export async function tryAcquireLock(dataDir: string): Promise<LockAttempt> {
  const file = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    const mine: LockInfo = {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      startTicks: processStartTicks(process.pid),
    };
    try {
      const handle = await fs.open(file, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(mine)}\n`);
      } finally {
        await handle.close();
      }
      return { acquired: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const raw = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (raw === undefined) continue; // released meanwhile
    const holder = parseLock(raw);
    if (holder && isProcessAlive(holder.pid, holder.startTicks)) return { acquired: false, holder };
    // Empty or partial content: its creator is between create and write, unless that was long ago.
    if (!holder && !(await isOlderThan(file, 5_000))) return { acquired: false, holder: undefined };
    await breakStaleLock(dataDir, raw);
  }
  return { acquired: false, holder: undefined };
}

/** Releases the lock if this process holds it. */
export async function releaseLock(dataDir: string): Promise<void> {
  const holder = parseLock((await fs.readFile(lockPath(dataDir), 'utf8').catch(() => '')) ?? '');
  if (holder?.pid === process.pid) await fs.rm(lockPath(dataDir), { force: true });
}

function parseLock(raw: string): LockInfo | undefined {
  try {
    const parsed = JSON.parse(raw) as LockInfo;
    return Number.isInteger(parsed.pid) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

async function isOlderThan(file: string, ms: number): Promise<boolean> {
  const st = await fs.stat(file).catch(() => undefined);
  return st !== undefined && Date.now() - st.mtimeMs > ms;
}

/**
 * Removes a stale lock. Two processes may judge the same lock stale; if both unlinked it, the slower one could
 * remove the lock the faster one has just created. So breaking is itself serialised by a second lock file, and
 * the lock is removed only if it still holds the stale content.
 */
async function breakStaleLock(dataDir: string, staleContent: string): Promise<void> {
  const breaker = `${lockPath(dataDir)}.break`;
  try {
    await (await fs.open(breaker, 'wx', 0o600)).close();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A breaker that died mid-way leaves this file behind; breaking takes milliseconds, so an old one is stale.
    if (await isOlderThan(breaker, 10_000)) await fs.rm(breaker, { force: true });
    return;
  }
  try {
    const current = await fs.readFile(lockPath(dataDir), 'utf8').catch(() => undefined);
    if (current === staleContent) await fs.rm(lockPath(dataDir), { force: true });
  } finally {
    await fs.rm(breaker, { force: true });
  }
}
