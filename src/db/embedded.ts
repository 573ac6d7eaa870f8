// Herald's embedded PostgreSQL (used when DATABASE_URL is unset): one process per data dir owns a real cluster
// and publishes its address in postgres.json; every other process attaches through that file.

import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  loadOrCreateCredentials,
  readJson,
  releaseLock,
  removeRuntimeInfo,
  runtimeInfoPath,
  tryAcquireLock,
  writeJsonPrivate,
  type LockInfo,
  type RuntimeInfo,
} from './embedded-files.ts';
import { ensureReachableBinaries, isInitialised, resolveClusterDir } from './embedded-location.ts';
import { isProcessAlive, loadPgBinaries, processStartTicks, resolveRunAs } from './embedded-os.ts';
import {
  ensureDatabase,
  initCluster,
  probe,
  startPostmaster,
  stopOrphanPostmaster,
  stopPostmaster,
} from './embedded-server.ts';

/** Where the embedded cluster reports. Normal operation logs one line at start; PostgreSQL's output stays quiet. */
export interface EmbeddedLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** A running embedded cluster, as seen by the process that opened it. */
export interface EmbeddedCluster {
  /** `postgres://herald:<password>@127.0.0.1:<port>/herald`: Herald's database (created if missing). */
  connectionString: string;
  /** The same server's `postgres` database, for creating and dropping databases (tests do). */
  adminConnectionString: string;
  /** True when this process started the cluster and will stop it. */
  owned: boolean;
  /** Owner: fast shutdown, remove postgres.json, release the lock. Attached: does nothing. Idempotent. */
  stop(): Promise<void>;
}

export interface OpenEmbeddedOptions {
  /** Herald's data dir; the cluster lives in `<dataDir>/pg` (or where cluster-location.json says). */
  dataDir: string;
  log: EmbeddedLog;
  /** Extra arguments for `postgres`, e.g. `['-c', 'fsync=off']`. */
  postgresFlags?: string[];
  /** Ceiling for the server to accept connections, and for waiting on another process that is starting it. */
  startTimeoutMs?: number;
}

const DATABASE = 'herald';
const LOCK_POLL_MS = 100;

/** Clusters this process owns, by data dir: a second open in the same process attaches to it. */
const ownedHere = new Map<string, { info: RuntimeInfo }>();
/** Opens in progress in this process, by data dir, so they run one at a time (the lock is per process). */
const opening = new Map<string, Promise<unknown>>();

/**
 * Opens the embedded cluster of a data dir: attaches to the one a live process owns, or else takes the lock,
 * stops a postmaster orphaned by a dead owner, initialises the cluster on first use and starts it as owner.
 * Never installs signal handlers: the caller decides when to call stop().
 */
export async function openEmbeddedCluster(opts: OpenEmbeddedOptions): Promise<EmbeddedCluster> {
  // As root, 0711 lets the postgres user traverse to <dataDir>/pg without listing or reading Herald's files.
  await fs.mkdir(opts.dataDir, { recursive: true, mode: process.getuid?.() === 0 ? 0o711 : 0o700 });
  const dataDir = await fs.realpath(opts.dataDir); // one key per directory, however it is spelled
  const previous = opening.get(dataDir) ?? Promise.resolve();
  const result = previous.catch(() => undefined).then(() => openSerialised({ ...opts, dataDir }));
  opening.set(dataDir, result);
  try {
    return await result;
  } finally {
    if (opening.get(dataDir) === result) opening.delete(dataDir);
  }
}

async function openSerialised(opts: OpenEmbeddedOptions): Promise<EmbeddedCluster> {
  const { dataDir, log } = opts;
  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  const mine = ownedHere.get(dataDir);
  if (mine) return attachedCluster(mine.info);
  const deadline = Date.now() + timeoutMs;
  let holder: LockInfo | undefined;
  let unreachable: { info: RuntimeInfo; error: Error } | undefined;
  for (;;) {
    const found = await tryAttach(dataDir);
    if (found.state === 'attached') {
      log.info(`using embedded PostgreSQL on 127.0.0.1:${found.info.port} owned by pid ${found.info.ownerPid}`);
      return attachedCluster(found.info);
    }
    unreachable = found.state === 'unreachable' ? found : undefined;
    if (!unreachable) {
      const lock = await tryAcquireLock(dataDir);
      if (lock.acquired) {
        try {
          return await startAsOwner(opts, timeoutMs);
        } catch (err) {
          await releaseLock(dataDir);
          throw err;
        }
      }
      holder = lock.holder;
    }
    if (Date.now() > deadline) break;
    await sleep(LOCK_POLL_MS);
  }
  if (unreachable) {
    throw new Error(
      `The embedded PostgreSQL owned by pid ${unreachable.info.ownerPid} (127.0.0.1:${unreachable.info.port}, see ` +
        `${runtimeInfoPath(dataDir)}) does not accept connections: ${unreachable.error.message}. Restart that process.`,
    );
  }
  throw new Error(
    `Timed out after ${timeoutMs} ms waiting for ${holder ? `process ${holder.pid}` : 'another process'} to start ` +
      `embedded PostgreSQL in ${dataDir} (it holds ${path.join(dataDir, 'postgres.lock')}). If it is stuck, stop it and retry.`,
  );
}

type AttachResult =
  | { state: 'none' }
  | { state: 'attached'; info: RuntimeInfo }
  | { state: 'unreachable'; info: RuntimeInfo; error: Error };

/** Attaches through postgres.json when its owner is alive and the server answers. */
async function tryAttach(dataDir: string): Promise<AttachResult> {
  const info = await readJson<RuntimeInfo>(runtimeInfoPath(dataDir));
  if (!info || !isProcessAlive(info.ownerPid, info.ownerStartTicks)) return { state: 'none' };
  try {
    await probe({ port: info.port, user: info.user, password: info.password, database: info.database });
    return { state: 'attached', info };
  } catch (err) {
    return { state: 'unreachable', info, error: err as Error };
  }
}

function attachedCluster(info: RuntimeInfo): EmbeddedCluster {
  return { ...connectionStrings(info), owned: false, stop: async () => undefined };
}

function connectionStrings(info: Pick<RuntimeInfo, 'user' | 'password' | 'port'>) {
  const base = `postgres://${encodeURIComponent(info.user)}:${encodeURIComponent(info.password)}@127.0.0.1:${info.port}`;
  return { connectionString: `${base}/${DATABASE}`, adminConnectionString: `${base}/postgres` };
}

/** Under the lock: clean up after a dead owner, initialise if needed, start, publish postgres.json. */
async function startAsOwner(opts: OpenEmbeddedOptions, timeoutMs: number): Promise<EmbeddedCluster> {
  const { dataDir, log } = opts;
  const began = Date.now();
  const runAs = await resolveRunAs(log);
  const bins = await ensureReachableBinaries(await loadPgBinaries(), runAs, log);
  const clusterDir = await resolveClusterDir(dataDir, runAs, log);
  const ctx = { bins, runAs, log };

  const stale = await readJson<RuntimeInfo>(runtimeInfoPath(dataDir));
  for (const dir of new Set([clusterDir, stale?.clusterDir ?? clusterDir])) await stopOrphanPostmaster(dir, ctx);
  if (stale) {
    if (path.basename(stale.socketDir ?? '').startsWith('herald-pg-sock-'))
      await fs.rm(stale.socketDir, { recursive: true, force: true });
    await fs.rm(runtimeInfoPath(dataDir), { force: true });
  }

  const initialised = await isInitialised(clusterDir);
  const creds = await loadOrCreateCredentials(dataDir, clusterDir, initialised);
  if (!initialised) {
    await initCluster(clusterDir, creds, ctx);
    log.info(`initialised a new PostgreSQL cluster in ${clusterDir} (${Date.now() - began} ms)`);
  }
  const pm = await startPostmaster({ clusterDir, creds, flags: opts.postgresFlags ?? [], timeoutMs }, ctx);
  const info: RuntimeInfo = {
    host: '127.0.0.1',
    port: pm.port,
    socketDir: pm.socketDir,
    user: creds.user,
    password: creds.password,
    database: DATABASE,
    ownerPid: process.pid,
    ownerStartTicks: processStartTicks(process.pid),
    postmasterPid: pm.pid,
    clusterDir,
    startedAt: new Date().toISOString(),
  };
  // A normal exit without stop() (an owning CLI command that forgot, process.exit after a crash) still asks the
  // postmaster for a fast shutdown; postgres.json and the lock are left stale and cleaned up by the next open.
  const onExit = () => {
    if (pm.stopping) return;
    try {
      process.kill(pm.pid, 'SIGINT');
    } catch {
      /* already gone */
    }
    rmSync(pm.socketDir, { recursive: true, force: true });
  };
  try {
    await ensureDatabase({ port: pm.port, ...creds }, DATABASE);
    await writeJsonPrivate(runtimeInfoPath(dataDir), info);
  } catch (err) {
    await stopPostmaster(pm);
    await fs.rm(pm.socketDir, { recursive: true, force: true });
    throw err;
  }
  process.on('exit', onExit);
  ownedHere.set(dataDir, { info });
  log.info(`embedded PostgreSQL started on 127.0.0.1:${pm.port} (cluster ${clusterDir}, ${Date.now() - began} ms)`);

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      ownedHere.delete(dataDir);
      await stopPostmaster(pm);
      process.off('exit', onExit);
      // postgres.json goes before the lock, so a process that gets the lock never sees a live owner's file.
      await removeRuntimeInfo(dataDir, process.pid);
      await fs.rm(pm.socketDir, { recursive: true, force: true });
      await releaseLock(dataDir);
    })());
  return { ...connectionStrings(info), owned: true, stop };
}
