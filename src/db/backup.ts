// `herald backup` and `herald restore` for the embedded default. The embedded binaries include no pg_dump, so a
// backup is an offline copy of the whole data dir (the cluster, its credentials, the generated secret key and
// local media), taken while no PostgreSQL runs on it: a cluster that is not running is consistent by definition
// (after a crash, PostgreSQL replays its WAL when the restored copy starts). The data dir's lock is held for the
// whole copy, so no Herald can start on it meanwhile. Archives are gzip-compressed tar files with a manifest
// (herald-backup.json); they are written to `<file>.partial` and renamed, so a failed backup leaves no file.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { readJson, releaseLock, runtimeInfoPath, tryAcquireLock, type RuntimeInfo } from './embedded-files.ts';
import { ensureReachableBinaries, isInitialised } from './embedded-location.ts';
import { isProcessAlive, loadPgBinaries, resolveRunAs } from './embedded-os.ts';
import { stopOrphanPostmaster } from './embedded-server.ts';

export const MANIFEST = 'herald-backup.json';

/** A refusal to explain to the operator (a running Herald, a non-empty target, a file that is no backup). */
export class BackupError extends Error {}

export interface Manifest {
  format: 'herald-backup/1';
  herald_version: string;
  postgres_version: string;
  created_at: string;
}

/** Called as bytes go through: done and total in bytes (total 0 when unknown). */
export type Progress = (done: number, total: number) => void;

/** Runtime files of a running cluster: never copied, never restored. */
const RUNTIME = new Set(['postgres.json', 'postgres.lock', 'cluster-location.json', MANIFEST]);

/** Takes an offline copy of the embedded cluster of `dataDir` into `file`. */
export async function backupDataDir(opts: {
  dataDir: string;
  file: string;
  heraldVersion: string;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  progress?: Progress;
}): Promise<{ bytes: number; manifest: Manifest }> {
  const dataDir = path.resolve(opts.dataDir);
  const file = path.resolve(opts.file);
  if (file === dataDir || file.startsWith(`${dataDir}${path.sep}`))
    throw new BackupError(`write the backup outside the data dir ${dataDir}`);
  if (!(await exists(dataDir))) throw new BackupError(`no data dir at ${dataDir} (HERALD_DATA_DIR)`);
  await refuseWhileRunning(dataDir);
  const lock = await tryAcquireLock(dataDir);
  if (!lock.acquired)
    throw new BackupError(
      `a Herald process${lock.holder ? ` (pid ${lock.holder.pid})` : ''} is starting on ${dataDir}; stop it, then run herald backup again`,
    );
  const partial = `${file}.partial-${randomBytes(4).toString('hex')}`;
  let staging: string | undefined;
  try {
    // Inside the try: a target directory that is missing or not writable releases the lock on the way out.
    staging = await fs.mkdtemp(path.join(path.dirname(file), '.herald-backup-')).catch((error: Error) => {
      throw new BackupError(`cannot write beside ${file}: ${error.message}`);
    });
    const clusterDir = await clusterDirOf(dataDir);
    if (!(await isInitialised(clusterDir)))
      throw new BackupError(`no embedded PostgreSQL cluster in ${clusterDir}: nothing to back up`);
    // A postmaster left behind by an owner that died is stopped first (a fast shutdown: a clean copy).
    const runAs = await resolveRunAs(opts.log);
    const bins = await ensureReachableBinaries(await loadPgBinaries(), runAs, opts.log);
    await stopOrphanPostmaster(clusterDir, { bins, runAs, log: opts.log });

    const manifest: Manifest = {
      format: 'herald-backup/1',
      herald_version: opts.heraldVersion,
      postgres_version: (await fs.readFile(path.join(clusterDir, 'PG_VERSION'), 'utf8')).trim(),
      created_at: new Date().toISOString(),
    };
    await fs.writeFile(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const inside = path.dirname(clusterDir) === dataDir && path.basename(clusterDir) === 'pg';
    const entries = (await fs.readdir(dataDir)).filter((n) => !RUNTIME.has(n) && !n.includes('.tmp-')).sort();
    const args = ['-cf', '-', '--exclude=pg/postmaster.pid', '-C', staging, MANIFEST, '-C', dataDir, ...entries];
    // A cluster outside the data dir (the root fallback location) goes into the archive as pg/ all the same.
    if (!inside)
      args.push(
        '--transform',
        `s,^${escapeSed(path.basename(clusterDir))},pg,`,
        '-C',
        path.dirname(clusterDir),
        path.basename(clusterDir),
      );
    let total = 0;
    for (const entry of entries) total += await sizeOf(path.join(dataDir, entry));
    if (!inside) total += await sizeOf(clusterDir);

    const tar = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const failed = collectFailure(tar, 'tar');
    await Promise.all([
      pipeline(tar.stdout, counter(total, opts.progress), createGzip(), createWriteStream(partial, { mode: 0o600 })),
      failed,
    ]);
    await fs.rename(partial, file);
    return { bytes: (await fs.stat(file)).size, manifest };
  } finally {
    await fs.rm(partial, { force: true });
    if (staging) await fs.rm(staging, { recursive: true, force: true });
    await releaseLock(dataDir);
  }
}

/**
 * Restores a backup into `dataDir`, which must be empty or missing; with `force` a non-empty one (no Herald
 * running on it) is moved aside to `<dataDir>.before-restore-<time>`, never deleted. The archive is unpacked
 * beside the target and checked before it takes the target's place.
 */
export async function restoreDataDir(opts: {
  dataDir: string;
  file: string;
  force: boolean;
  progress?: Progress;
}): Promise<{ manifest: Manifest; movedAside?: string }> {
  const dataDir = path.resolve(opts.dataDir);
  const stat = await fs.stat(opts.file).catch(() => undefined);
  if (!stat?.isFile()) throw new BackupError(`no backup file at ${opts.file}`);
  const occupied = (await fs.readdir(dataDir).catch(() => [] as string[])).length > 0;
  if (occupied && !opts.force)
    throw new BackupError(
      `${dataDir} is not empty; restore into an empty data dir (HERALD_DATA_DIR), or add --force to move the present one aside`,
    );
  if (occupied) {
    await refuseWhileRunning(dataDir);
    // Held until the data dir is moved aside, so that no Herald starts on it meanwhile.
    const lock = await tryAcquireLock(dataDir);
    if (!lock.acquired)
      throw new BackupError(
        `a Herald process${lock.holder ? ` (pid ${lock.holder.pid})` : ''} is starting on ${dataDir}; stop it, then run herald restore again`,
      );
  }
  const staging = `${dataDir}.restore-${randomBytes(4).toString('hex')}`;
  let movedAside: string | undefined;
  try {
    await fs.mkdir(path.dirname(dataDir), { recursive: true });
    await fs.mkdir(staging, { mode: process.getuid?.() === 0 ? 0o711 : 0o700 });
    const tar = spawn('tar', ['-xf', '-', '-C', staging], { stdio: ['pipe', 'ignore', 'pipe'] });
    const failed = collectFailure(tar, 'tar');
    // tar stops reading at the archive's end marker, before the block padding after it: its stdin closing early is
    // normal, and its exit code says whether the archive was whole.
    tar.stdin.on('error', () => {});
    const feed = pipeline(
      createReadStream(opts.file),
      counter(stat.size, opts.progress),
      createGunzip(),
      tar.stdin,
    ).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE' && error.code !== 'EPIPE') throw error;
    });
    // Both settle before anything else happens: when the feed fails first (a truncated archive), tar is still
    // writing into the staging dir until it sees its input end, and removing the dir meanwhile fails (ENOTEMPTY)
    // instead of reporting the archive.
    const failure = (await Promise.allSettled([feed, failed])).find((r) => r.status === 'rejected');
    if (failure)
      throw new BackupError(
        `${opts.file} is not a Herald backup that can be read: ${(failure.reason as Error).message}`,
      );
    const manifest = await readJson<Manifest>(path.join(staging, MANIFEST));
    if (manifest?.format !== 'herald-backup/1' || !(await isInitialised(path.join(staging, 'pg'))))
      throw new BackupError(`${opts.file} is not a Herald backup (no ${MANIFEST} with a PostgreSQL cluster)`);
    await fs.rm(path.join(staging, MANIFEST));
    if (await exists(dataDir)) {
      if (occupied) {
        movedAside = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        await fs.rename(dataDir, movedAside);
        await fs.rm(path.join(movedAside, 'postgres.lock'), { force: true });
      } else {
        await fs.rmdir(dataDir);
      }
    }
    await fs.rename(staging, dataDir);
    return { manifest, movedAside };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    if (occupied && !movedAside) await releaseLock(dataDir);
  }
}

async function refuseWhileRunning(dataDir: string): Promise<void> {
  const info = await readJson<RuntimeInfo>(runtimeInfoPath(dataDir));
  if (info && isProcessAlive(info.ownerPid, info.ownerStartTicks))
    throw new BackupError(
      `Herald (pid ${info.ownerPid}) is running on ${dataDir}; stop it first (the embedded backup is an offline copy), or with a managed PostgreSQL use pg_dump`,
    );
}

async function clusterDirOf(dataDir: string): Promise<string> {
  const recorded = await readJson<{ clusterDir?: string }>(path.join(dataDir, 'cluster-location.json'));
  return recorded?.clusterDir ?? path.join(dataDir, 'pg');
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

async function sizeOf(p: string): Promise<number> {
  const st = await fs.lstat(p);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const entry of await fs.readdir(p)) total += await sizeOf(path.join(p, entry));
  return total;
}

function escapeSed(text: string): string {
  return text.replace(/[\\,.*[\]^$]/g, '\\$&');
}

/** Passes bytes through, reporting progress (never above the total: tar adds headers). */
function counter(total: number, progress: Progress | undefined): Transform {
  let done = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, next) {
      done += chunk.length;
      progress?.(Math.min(done, total), total);
      next(null, chunk);
    },
  });
}

/** Resolves when the tool exits 0; rejects with its last stderr lines otherwise. */
function collectFailure(child: ReturnType<typeof spawn>, name: string): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
  return new Promise((resolve, reject) => {
    child.on('error', (error) => reject(new Error(`${name} could not run: ${error.message}`)));
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${name} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`)),
    );
  });
}
