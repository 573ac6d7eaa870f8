// SQL for the media cleanup sweeps (media.cleanup.ts). They work across workspaces on purpose (docs/tables.md) and
// return each row's workspace id; every other media statement is in media.repo.ts and takes the workspace id.
import type { Queryable } from '../../db/pool.ts';
import { BRAND_USES, COLUMNS, postUses, type MediaRow } from './media.repo.ts';

/** Pending uploads whose URL expired more than `graceSeconds` ago. */
export async function findAbandonedUploads(db: Queryable, graceSeconds: number, limit: number): Promise<MediaRow[]> {
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media
      WHERE status = 'pending_upload' AND deleted_at IS NULL AND upload_expires_at < now() - make_interval(secs => $1)
      ORDER BY upload_expires_at LIMIT $2`,
    [graceSeconds, limit],
  );
  return rows;
}

/**
 * Completed media older than the retention period that no live post refers to, in its media or a first comment's
 * (re-checked under a lock before deletion).
 */
export async function findUnreferencedExpired(
  db: Queryable,
  retentionDays: number,
  limit: number,
): Promise<MediaRow[]> {
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media m
      WHERE m.deleted_at IS NULL AND m.status <> 'pending_upload' AND m.created_at < now() - make_interval(days => $1)
        AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.workspace_id = m.workspace_id AND ${postUses('m.id')})
        AND NOT ${BRAND_USES}
      ORDER BY m.created_at LIMIT $2`,
    [retentionDays, limit],
  );
  return rows;
}

/** Media by URL still `processing` past their fetch deadline (`upload_expires_at`). */
export async function findStalledFetches(db: Queryable, limit: number): Promise<MediaRow[]> {
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE status = 'processing' AND deleted_at IS NULL AND upload_expires_at < now()
      ORDER BY upload_expires_at LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Deleted media whose bytes have not been purged yet (the purge job failed or has not run). */
export async function findDeletedUnpurged(db: Queryable, olderThanSeconds: number, limit: number): Promise<MediaRow[]> {
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE deleted_at IS NOT NULL AND deleted_at < now() - make_interval(secs => $1) ORDER BY deleted_at LIMIT $2`,
    [olderThanSeconds, limit],
  );
  return rows;
}
