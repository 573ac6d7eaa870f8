// SQL of media variants (migration 0016): one row per media and rule key, made pending with its job in the caller's
// transaction, then made ready (or failed, with the reason) by the `make_media_variant` job. Every function takes
// the workspace id.
import type { Queryable } from '../../db/pool.ts';
import type { MediaStorage } from './storage/storage.ts';

export type VariantStatus = 'pending' | 'ready' | 'failed';

export interface VariantRow {
  id: string;
  workspace_id: string;
  media_id: string;
  rule_key: string;
  platform: string;
  spec: Record<string, unknown> & { kind: string };
  status: VariantStatus;
  error: string | null;
  content_type: string | null;
  width: number | null;
  height: number | null;
  size_bytes: number | null;
  sha256: string | null;
  storage_key: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, workspace_id, media_id, rule_key, platform, spec, status, error, content_type, width, height,
  size_bytes::float8 AS size_bytes, sha256, storage_key, created_at, updated_at`;

export interface NewVariant {
  id: string;
  mediaId: string;
  ruleKey: string;
  platform: string;
  spec: object;
}

/** How long a failed variant stays failed before a newly written post may ask for it again. */
export const RETRY_FAILED_AFTER_SECONDS = 300;

/**
 * Records each variant not yet known (pending) and queues its job, both in the caller's transaction; returns every
 * asked-for variant as it now is. A variant already there is reused, never made twice. With `retryFailed` (a post
 * was just written, not a publish attempt), a variant that failed more than RETRY_FAILED_AFTER_SECONDS ago is made
 * again: its failure may have been a passing storage or database outage, and a new post deserves a new try, while
 * the targets already waiting on it keep the answer they got.
 */
export async function requestVariants(
  db: Queryable,
  workspaceId: string,
  variants: NewVariant[],
  retryFailed = false,
): Promise<VariantRow[]> {
  if (variants.length === 0) return [];
  await db.query(
    `WITH made AS (
       INSERT INTO media_variants (id, workspace_id, media_id, rule_key, platform, spec)
       SELECT v.id, $1, v.media_id, v.rule_key, v.platform, v.spec
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[]) AS v(id, media_id, rule_key, platform, spec)
       ON CONFLICT (media_id, rule_key) DO NOTHING
       RETURNING id
     ), retried AS (
       UPDATE media_variants SET status = 'pending', error = NULL, updated_at = now()
        WHERE $7::boolean AND workspace_id = $1 AND status = 'failed'
          AND updated_at < now() - make_interval(secs => $8)
          AND (media_id, rule_key) IN (SELECT * FROM unnest($3::text[], $4::text[]))
       RETURNING id
     )
     SELECT graphile_worker.add_job('make_media_variant', json_build_object('workspace_id', $1::text, 'variant_id', id),
              job_key => 'make_media_variant:' || id, max_attempts => 5)
       FROM (SELECT id FROM made UNION ALL SELECT id FROM retried) AS queued`,
    [
      workspaceId,
      variants.map((v) => v.id),
      variants.map((v) => v.mediaId),
      variants.map((v) => v.ruleKey),
      variants.map((v) => v.platform),
      variants.map((v) => JSON.stringify(v.spec)),
      retryFailed,
      RETRY_FAILED_AFTER_SECONDS,
    ],
  );
  const { rows } = await db.query<VariantRow>(
    `SELECT ${COLUMNS} FROM media_variants
      WHERE workspace_id = $1 AND (media_id, rule_key) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
    [workspaceId, variants.map((v) => v.mediaId), variants.map((v) => v.ruleKey)],
  );
  return rows;
}

export async function findVariant(db: Queryable, workspaceId: string, id: string): Promise<VariantRow | undefined> {
  const { rows } = await db.query<VariantRow>(
    `SELECT ${COLUMNS} FROM media_variants WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
  return rows[0];
}

/** Every variant of these media, oldest first. */
export async function variantsOf(
  db: Queryable,
  workspaceId: string,
  mediaIds: readonly string[],
): Promise<VariantRow[]> {
  if (mediaIds.length === 0) return [];
  const { rows } = await db.query<VariantRow>(
    `SELECT ${COLUMNS} FROM media_variants WHERE workspace_id = $1 AND media_id = ANY($2::text[]) ORDER BY created_at, id`,
    [workspaceId, mediaIds],
  );
  return rows;
}

export interface MadeVariant {
  contentType: string;
  width: number;
  height: number;
  sizeBytes: number;
  sha256: string;
  storageKey: string;
}

/**
 * Marks a pending variant ready; false when it was no longer pending (another run got there first) or its media was
 * deleted meanwhile. The media row is share-locked, so a deletion either waits for this write (and the purge then
 * sees the key) or comes first (and this write does nothing): the caller removes the bytes it stored on false.
 */
export async function markVariantReady(
  db: Queryable,
  workspaceId: string,
  id: string,
  v: MadeVariant,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE media_variants v SET status = 'ready', content_type = $3, width = $4, height = $5, size_bytes = $6,
            sha256 = $7, storage_key = $8, error = NULL, updated_at = now()
      WHERE v.workspace_id = $1 AND v.id = $2 AND v.status = 'pending'
        AND EXISTS (SELECT 1 FROM media m WHERE m.workspace_id = v.workspace_id AND m.id = v.media_id
                       AND m.deleted_at IS NULL FOR SHARE)`,
    [workspaceId, id, v.contentType, v.width, v.height, v.sizeBytes, v.sha256, v.storageKey],
  );
  return (rowCount ?? 0) > 0;
}

export async function markVariantFailed(db: Queryable, workspaceId: string, id: string, error: string): Promise<void> {
  await db.query(
    `UPDATE media_variants SET status = 'failed', error = $3, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`,
    [workspaceId, id, error],
  );
}

/**
 * Removes bytes stored for a variant whose row was not made ready with them (its media deleted meanwhile), unless
 * another run of the same variant recorded that very key, so no bytes stay in storage that no row names. The one
 * function here that touches storage: the check and the removal belong together.
 */
export async function discardUnrecorded(
  db: Queryable,
  storage: MediaStorage,
  variant: VariantRow,
  key: string,
): Promise<void> {
  const now = await findVariant(db, variant.workspace_id, variant.id);
  if (now?.status === 'ready' && now.storage_key === key) return;
  await storage.remove(key);
}
