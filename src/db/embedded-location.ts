// Where the embedded cluster's files and binaries live. As root, PostgreSQL runs as the `postgres` user, which
// must reach both; when it cannot (a checkout or data dir under a 0700 /root), they move to /var/lib/herald.

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { findBlockingDir, type PgBinaries, type RunAs } from './embedded-os.ts';
import { readJson, writeJsonPrivate } from './embedded-files.ts';

/** `<dataDir>/cluster-location.json`: where the cluster went when `<dataDir>/pg` was unreachable. */
export interface ClusterLocation {
  clusterDir: string;
  reason: string;
  createdAt: string;
}

// /var/lib, not /var/tmp: tmpfiles cleaners delete old files under /var/tmp, and a database must not age out.
const FALLBACK_BASE = '/var/lib/herald';

/** The fallback parent directory for a data dir: one per data dir, named by a hash of its real path. */
export async function fallbackClusterParent(dataDir: string): Promise<string> {
  const hash = createHash('sha256')
    .update(await fs.realpath(dataDir))
    .digest('hex')
    .slice(0, 12);
  return path.join(FALLBACK_BASE, `herald-pg-${hash}`);
}

/**
 * Decides and prepares the cluster directory: a location recorded earlier wins; else `<dataDir>/pg`, unless the
 * PostgreSQL user cannot reach it, in which case a root-owned 0711 directory under /var/lib/herald holds it and the
 * choice is recorded in `<dataDir>/cluster-location.json`. The returned directory exists, mode 0700, owned by
 * the user PostgreSQL runs as.
 */
export async function resolveClusterDir(
  dataDir: string,
  runAs: RunAs | undefined,
  log: { info(msg: string): void },
): Promise<string> {
  const recorded = await readJson<ClusterLocation>(path.join(dataDir, 'cluster-location.json'));
  if (recorded?.clusterDir) {
    const parent = path.dirname(recorded.clusterDir);
    if (parent.startsWith(path.join(FALLBACK_BASE, 'herald-pg-'))) await prepareFallbackParent(parent);
    await prepareClusterDir(recorded.clusterDir, runAs);
    return recorded.clusterDir;
  }
  const inside = path.join(dataDir, 'pg');
  const blocker = runAs ? await findBlockingDir(dataDir, runAs) : undefined;
  if (!blocker) {
    await prepareClusterDir(inside, runAs);
    return inside;
  }
  if (await isInitialised(inside)) {
    throw new Error(
      `The PostgreSQL cluster in ${inside} cannot be reached by the "${runAs!.name}" OS user: ${blocker} is not ` +
        `searchable by it. Allow it (chmod o+x ${blocker}) or move the data dir.`,
    );
  }
  const parent = await fallbackClusterParent(dataDir);
  const clusterDir = path.join(parent, 'pg');
  const reason = `the "${runAs!.name}" OS user that runs PostgreSQL (Herald runs as root) cannot search ${blocker}`;
  await prepareFallbackParent(parent);
  await prepareClusterDir(clusterDir, runAs);
  await writeJsonPrivate(path.join(dataDir, 'cluster-location.json'), {
    clusterDir,
    reason,
    createdAt: new Date().toISOString(),
  } satisfies ClusterLocation);
  log.info(
    `embedded PostgreSQL cluster placed in ${clusterDir} (recorded in ${path.join(dataDir, 'cluster-location.json')}): ${reason}`,
  );
  return clusterDir;
}

/** Whether a directory holds an initialised cluster. */
export async function isInitialised(clusterDir: string): Promise<boolean> {
  return fs.access(path.join(clusterDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

async function prepareClusterDir(clusterDir: string, runAs: RunAs | undefined): Promise<void> {
  await fs.mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const st = await fs.stat(clusterDir);
  if (runAs && st.uid !== runAs.uid) {
    if (await isInitialised(clusterDir)) {
      throw new Error(
        `The PostgreSQL cluster in ${clusterDir} belongs to uid ${st.uid}, but as root Herald runs PostgreSQL as ` +
          `"${runAs.name}" (uid ${runAs.uid}). Run Herald as uid ${st.uid}, or chown -R ${runAs.name}: ${clusterDir}.`,
      );
    }
    await fs.chown(clusterDir, runAs.uid, runAs.gid);
  }
  // PostgreSQL refuses a data directory with group or other permissions.
  if ((st.mode & 0o077) !== 0) await fs.chmod(clusterDir, 0o700);
}

/**
 * Creates (or checks) a root-owned directory under /var/lib/herald. Another user could have created the
 * name first to read or swap the cluster, so anything not a plain directory owned by us is refused.
 */
async function prepareFallbackParent(parent: string): Promise<void> {
  await fs.mkdir(path.dirname(parent), { recursive: true, mode: 0o711 });
  await fs.mkdir(parent, { mode: 0o711 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  const st = await fs.lstat(parent);
  if (!st.isDirectory() || st.uid !== process.getuid?.()) {
    throw new Error(`${parent} exists but is not a directory owned by this user; remove it and restart Herald.`);
  }
  if ((st.mode & 0o777) !== 0o711) await fs.chmod(parent, 0o711);
}

/**
 * Binaries the PostgreSQL user can execute: the installed ones when it can reach them, else a copy of the
 * package's native/ tree under /var/lib/herald (made once per package version and path, refreshed if incomplete).
 */
export async function ensureReachableBinaries(
  bins: PgBinaries,
  runAs: RunAs | undefined,
  log: { info(msg: string): void },
): Promise<PgBinaries> {
  if (!runAs) return bins;
  const blocker = await findBlockingDir(path.join(bins.nativeDir, 'bin'), runAs);
  if (!blocker) return bins;
  const hash = createHash('sha256')
    .update(await fs.realpath(bins.nativeDir))
    .digest('hex')
    .slice(0, 8);
  const copy = path.join(FALLBACK_BASE, `herald-pg-bin-${bins.version}-${hash}`);
  if (!(await isCompleteCopy(bins.nativeDir, copy))) {
    log.info(`copying the PostgreSQL binaries to ${copy}: the "${runAs.name}" OS user cannot search ${blocker}`);
    const staging = `${copy}.tmp-${process.pid}-${Date.now()}`;
    await fs.cp(bins.nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await fs.chmod(staging, 0o755);
    // Clusters of other data dirs may share the copy, so it is only ever replaced by renames: a reader sees the
    // old tree or the new one, and a loser of a race to install drops its own staging copy.
    const aside = `${copy}.old-${process.pid}-${Date.now()}`;
    if (
      await fs.rename(copy, aside).then(
        () => true,
        () => false,
      )
    )
      await fs.rm(aside, { recursive: true, force: true });
    await fs.rename(staging, copy).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      await fs.rm(staging, { recursive: true, force: true });
    });
  }
  const rebase = (p: string) => path.join(copy, path.relative(bins.nativeDir, p));
  return {
    ...bins,
    postgres: rebase(bins.postgres),
    initdb: rebase(bins.initdb),
    pg_ctl: rebase(bins.pg_ctl),
    nativeDir: copy,
  };
}

/** Whether `copy` holds every file of `source` with the same size (a cheap check against partial copies). */
async function isCompleteCopy(source: string, copy: string): Promise<boolean> {
  const st = await fs.lstat(copy).catch(() => undefined);
  if (!st?.isDirectory() || st.uid !== process.getuid?.()) return false;
  for (const entry of await fs.readdir(source, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = path.relative(source, path.join(entry.parentPath, entry.name));
    const [a, b] = await Promise.all([
      fs.stat(path.join(source, rel)),
      fs.stat(path.join(copy, rel)).catch(() => undefined),
    ]);
    if (!b || a.size !== b.size) return false;
  }
  return true;
}
