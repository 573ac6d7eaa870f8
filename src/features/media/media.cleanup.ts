// Housekeeping for media, run by the worker: `purge_media` deletes the bytes and row of a media deleted through
// the API (queued in the DELETE's transaction), and `media_cleanup` (every 15 minutes) removes uploads that never
// completed, media no post refers to after the retention period, purges that failed, and temporary files left by
// a crash mid-upload.
import type { Pool, Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import type { Logger } from '../../lib/logger.ts';
import { completeRemote, type CompleteDeps } from './media.complete.ts';
import { failStalledFetch } from './media.from-url.ts';
import * as repo from './media.repo.ts';
import * as sweeps from './media.sweeps.repo.ts';
import type { MediaRow } from './media.repo.ts';
import { removeVariantBytes } from './media.variants.ts';
import type { MediaStorage } from './storage/storage.ts';

/** An upload whose URL expired this long ago is abandoned (a PUT begun just before expiry may run for hours). */
export const ABANDONED_AFTER_SECONDS = 24 * 3600;
/** A deleted media whose purge job has not removed it after this long is purged by the sweep. */
const PURGE_BACKSTOP_SECONDS = 3600;
/** Temporary upload files untouched this long belong to no live upload (a live one is written continuously). */
const TEMP_MAX_AGE_MS = 6 * 3600 * 1000;
const BATCH = 100;
const MAX_BATCHES = 20;

export interface CleanupDeps extends CompleteDeps {
  pool: Pool;
  storage: MediaStorage;
  logger: Logger;
  retentionDays: number;
}

export async function queueMediaPurge(db: Queryable, workspaceId: string, mediaId: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job('purge_media', json_build_object('workspace_id', $1::text, 'media_id', $2::text),
              job_key => 'purge_media:' || $2, max_attempts => 10)`,
    [workspaceId, mediaId],
  );
}

async function removeBytes(storage: MediaStorage, row: MediaRow): Promise<void> {
  if (row.storage_key) await storage.remove(row.storage_key);
  if (row.upload_key !== row.storage_key) await storage.remove(row.upload_key);
}

/** Deletes the bytes of a deleted media, then its row. Safe to repeat. */
export async function purgeDeleted(
  deps: Pick<CleanupDeps, 'pool' | 'storage'>,
  workspaceId: string,
  mediaId: string,
): Promise<boolean> {
  const row = await repo.findDeleted(deps.pool, workspaceId, mediaId);
  if (!row) return false;
  // Its variants' bytes first: their rows go with the media's (ON DELETE CASCADE), their keys with them.
  await removeVariantBytes(deps.pool, deps.storage, workspaceId, mediaId);
  await removeBytes(deps.storage, row);
  await repo.purgeRow(deps.pool, workspaceId, mediaId);
  return true;
}

/** Marks the media deleted unless a post refers to it — decided under the row lock posts also take. */
async function deleteIfUnreferenced(pool: Pool, row: MediaRow): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const locked = await repo.findMedia(tx, row.workspace_id, row.id, true);
    if (!locked || (await repo.isReferenced(tx, row.workspace_id, row.id))) return false;
    await repo.markDeleted(tx, row.workspace_id, row.id);
    return true;
  });
}

export interface SweepReport {
  abandoned: number;
  expired: number;
  purged: number;
  temporaryFiles: number;
  /** Media by URL failed because their fetch outlived its deadline. */
  stalledFetches: number;
}

export async function sweepMedia(deps: CleanupDeps): Promise<SweepReport> {
  const report: SweepReport = { abandoned: 0, expired: 0, purged: 0, temporaryFiles: 0, stalledFetches: 0 };
  for (const row of await sweeps.findStalledFetches(deps.pool, BATCH))
    if (await failStalledFetch(deps, row)) report.stalledFetches++;
  const purge = async (row: MediaRow) => {
    if (await purgeDeleted(deps, row.workspace_id, row.id)) report.purged++;
  };

  for (let i = 0; i < MAX_BATCHES; i++) {
    const rows = await sweeps.findAbandonedUploads(deps.pool, ABANDONED_AFTER_SECONDS, BATCH);
    let progressed = 0;
    for (const row of rows) {
      // An s3 upload may have arrived without anyone completing it: complete it rather than throw it away.
      if (
        deps.storage.driver === 's3' &&
        (await completeRemote({ ...deps, storage: deps.storage }, row)) !== 'not_uploaded'
      ) {
        progressed++;
        continue;
      }
      if (await deleteIfUnreferenced(deps.pool, row)) {
        report.abandoned++;
        progressed++;
        await purge(row);
      }
    }
    if (rows.length < BATCH || progressed === 0) break;
  }

  for (let i = 0; i < MAX_BATCHES; i++) {
    const rows = await sweeps.findUnreferencedExpired(deps.pool, deps.retentionDays, BATCH);
    let progressed = 0;
    for (const row of rows) {
      if (await deleteIfUnreferenced(deps.pool, row)) {
        report.expired++;
        progressed++;
        await purge(row);
      }
    }
    if (rows.length < BATCH || progressed === 0) break;
  }

  for (const row of await sweeps.findDeletedUnpurged(deps.pool, PURGE_BACKSTOP_SECONDS, BATCH * MAX_BATCHES))
    await purge(row);
  if (deps.storage.driver === 'local') report.temporaryFiles = await deps.storage.sweepTemporary(TEMP_MAX_AGE_MS);
  return report;
}

/** graphile-worker tasks; registered in src/jobs/worker.ts. */
export function mediaTasks(deps: CleanupDeps) {
  return {
    purge_media: async (payload: unknown) => {
      const { workspace_id: workspaceId, media_id: mediaId } = payload as { workspace_id: string; media_id: string };
      await purgeDeleted(deps, workspaceId, mediaId);
    },
    media_cleanup: async () => {
      const report = await sweepMedia(deps);
      if (report.abandoned + report.expired + report.purged + report.temporaryFiles + report.stalledFetches > 0)
        deps.logger.info(report, 'media cleaned up');
    },
  };
}
