// SQL for media records. Every function takes the workspace id; the cleanup sweeps, which work across workspaces by
// design, are in media.sweeps.repo.ts.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';
import type { Unreadable } from './sniff/sniff.ts';
import type { UploadKind } from './media.types.ts';

export type MediaStatus = 'pending_upload' | 'processing' | 'ready' | 'failed';

export interface MediaRow {
  id: string;
  workspace_id: string;
  filename: string;
  /** Null only while a media made from a URL is `processing` (or failed before its bytes were known). */
  content_type: string | null;
  kind: UploadKind | null;
  status: MediaStatus;
  failure_reason: string | null;
  declared_size: number | null;
  max_bytes: number;
  size_bytes: number | null;
  sha256: string | null;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  unreadable: Unreadable[];
  metadata: Record<string, string>;
  source_url: string | null;
  container: string | null;
  video_codec: string | null;
  audio_codec: string | null;
  frame_rate: number | null;
  probed_with: 'ffprobe' | 'isobmff' | null;
  /** Video variants being made or made with FFmpeg (fit/video.ts), with their progress. */
  transcodes: Transcode[];
  storage_driver: 'local' | 's3';
  upload_key: string;
  storage_key: string | null;
  upload_expires_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export const COLUMNS = `id, workspace_id, filename, content_type, kind, status, failure_reason, declared_size, max_bytes, size_bytes,
  sha256, width, height, duration_ms, unreadable, metadata, source_url, container, video_codec, audio_codec, frame_rate, probed_with, transcodes, storage_driver, upload_key, storage_key, upload_expires_at, created_at,
  updated_at, completed_at`;

export interface NewMedia {
  id: string;
  workspaceId: string;
  filename: string;
  contentType: string;
  kind: UploadKind;
  declaredSize: number | null;
  maxBytes: number;
  storageDriver: 'local' | 's3';
  uploadKey: string;
  uploadExpiresAt: Date;
  createdBy: string;
  metadata?: Record<string, string>;
}

export async function insertMedia(db: Queryable, m: NewMedia): Promise<MediaRow> {
  const { rows } = await db.query<MediaRow>(
    `INSERT INTO media (id, workspace_id, filename, content_type, kind, status, declared_size, max_bytes, storage_driver, upload_key, upload_expires_at, created_by, metadata)
     VALUES ($1, $2, $3, $4, $5, 'pending_upload', $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
    [
      m.id,
      m.workspaceId,
      m.filename,
      m.contentType,
      m.kind,
      m.declaredSize,
      m.maxBytes,
      m.storageDriver,
      m.uploadKey,
      m.uploadExpiresAt,
      m.createdBy,
      JSON.stringify(m.metadata ?? {}),
    ],
  );
  return rows[0]!;
}

/** A live (not deleted) media record; `lock` takes a row lock for a read-modify-write. */
export async function findMedia(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<MediaRow | undefined> {
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

/**
 * Live media with these ids. `share` locks them until the caller's transaction ends: a post that attaches media
 * holds them so the cleanup job and DELETE (which lock them for update, then look for posts) see the post.
 */
export async function findManyMedia(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
  share = false,
): Promise<MediaRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE workspace_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL ORDER BY id${share ? ' FOR SHARE' : ''}`,
    [workspaceId, ids],
  );
  return rows;
}

/** What completing an upload found out about the bytes. */
export interface Completion {
  status: 'ready' | 'failed';
  failureReason: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  unreadable: Unreadable[];
  storageKey: string | null;
  /** What the probe read from a video (null for other kinds). */
  video: VideoFacts | null;
}

/** One transcode of a video to a platform's rules, as the media record shows it. */
export interface Transcode {
  variant_id: string;
  platform: string;
  status: 'pending' | 'ready' | 'failed';
  /** 0 to 1. */
  progress: number;
  error: string | null;
}

/** Sets the entry of one transcode (added, or replaced by its variant id); undefined when the media is gone. */
export async function setTranscode(
  db: Queryable,
  workspaceId: string,
  id: string,
  entry: Transcode,
): Promise<MediaRow | undefined> {
  const { rows } = await db.query<MediaRow>(
    `UPDATE media SET transcodes = (
        SELECT coalesce(jsonb_agg(t), '[]'::jsonb) FROM jsonb_array_elements(transcodes) t
         WHERE t->>'variant_id' <> $3
      ) || jsonb_build_array($4::jsonb), updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [workspaceId, id, entry.variant_id, JSON.stringify(entry)],
  );
  return rows[0];
}

export interface VideoFacts {
  container: string | null;
  videoCodec: string | null;
  audioCodec: string | null;
  frameRate: number | null;
  probedWith: 'ffprobe' | 'isobmff';
}

const COMPLETION_SET = `status = $3, failure_reason = $4, size_bytes = $5, sha256 = $6, width = $7, height = $8,
  duration_ms = $9, unreadable = $10, storage_key = $11, container = $12, video_codec = $13, audio_codec = $14,
  frame_rate = $15, probed_with = $16, completed_at = now(), updated_at = now()`;

const completionValues = (workspaceId: string, id: string, c: Completion) => [
  workspaceId,
  id,
  c.status,
  c.failureReason,
  c.sizeBytes,
  c.sha256,
  c.width,
  c.height,
  c.durationMs,
  JSON.stringify(c.unreadable),
  c.storageKey,
  c.video?.container ?? null,
  c.video?.videoCodec ?? null,
  c.video?.audioCodec ?? null,
  c.video?.frameRate ?? null,
  c.video?.probedWith ?? null,
];

/** Records a completion if the media is still pending; undefined when another completion got there first. */
export async function completeMedia(
  db: Queryable,
  workspaceId: string,
  id: string,
  c: Completion,
): Promise<MediaRow | undefined> {
  const { rows } = await db.query<MediaRow>(
    `UPDATE media SET ${COMPLETION_SET}
      WHERE workspace_id = $1 AND id = $2 AND status = 'pending_upload' AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    completionValues(workspaceId, id, c),
  );
  return rows[0];
}

export interface NewFetchedMedia {
  id: string;
  workspaceId: string;
  filename: string;
  sourceUrl: string;
  maxBytes: number;
  storageDriver: 'local' | 's3';
  /** Where the fetched bytes will be stored. */
  uploadKey: string;
  /** When the fetch is given up (reported as nothing: `upload_expires_at` is shown only for uploads). */
  deadline: Date;
  createdBy: string;
  metadata?: Record<string, string>;
}

/** A media made from a URL: `processing`, its type unknown until the job has fetched and sniffed the bytes. */
export async function insertFetchedMedia(db: Queryable, m: NewFetchedMedia): Promise<MediaRow> {
  const { rows } = await db.query<MediaRow>(
    `INSERT INTO media (id, workspace_id, filename, content_type, kind, status, source_url, max_bytes, storage_driver, upload_key, upload_expires_at, created_by, metadata)
     VALUES ($1, $2, $3, NULL, NULL, 'processing', $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      m.id,
      m.workspaceId,
      m.filename,
      m.sourceUrl,
      m.maxBytes,
      m.storageDriver,
      m.uploadKey,
      m.deadline,
      m.createdBy,
      JSON.stringify(m.metadata ?? {}),
    ],
  );
  return rows[0]!;
}

/**
 * Records the end of a fetch (the type the bytes sniffed as, or null when they never arrived) if the media is still
 * `processing`; undefined when it is not (deleted meanwhile).
 */
export async function completeFetchedMedia(
  db: Queryable,
  workspaceId: string,
  id: string,
  c: Completion & { contentType: string | null; kind: UploadKind | null },
): Promise<MediaRow | undefined> {
  const { rows } = await db.query<MediaRow>(
    `UPDATE media SET ${COMPLETION_SET}, content_type = $17, kind = $18
      WHERE workspace_id = $1 AND id = $2 AND status = 'processing' AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [...completionValues(workspaceId, id, c), c.contentType, c.kind],
  );
  return rows[0];
}

/** Replaces the media's metadata (the caller merged the edit into what it read under a lock). */
export async function setMetadata(
  db: Queryable,
  workspaceId: string,
  id: string,
  metadata: Record<string, string>,
): Promise<MediaRow> {
  const { rows } = await db.query<MediaRow>(
    `UPDATE media SET metadata = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [workspaceId, id, JSON.stringify(metadata)],
  );
  return rows[0]!;
}

export async function markDeleted(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query(
    'UPDATE media SET deleted_at = now(), updated_at = now() WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL',
    [workspaceId, id],
  );
}

/** Whether any live post refers to the media (run after locking the media row, so the answer is current). */
/** A live brand uses the media `m` as its logo or one of its documents (src/features/brands). */
export const BRAND_USES = `EXISTS (SELECT 1 FROM brands b WHERE b.workspace_id = m.workspace_id AND b.deleted_at IS NULL
    AND (b.logo_media_id = m.id OR b.documents @> jsonb_build_array(jsonb_build_object('media_id', m.id))))`;

/**
 * A live post `p` uses the media `id`: in its `media_ids`, or in a first comment's (`platform_options.<platform>
 * .first_comment.media_ids`, read by the indexed function of migration 0036).
 */
export const postUses = (id: string) =>
  `(p.media_ids @> ARRAY[${id}] OR (posts_first_comment_media(p.platform_options) <> '{}' AND posts_first_comment_media(p.platform_options) @> ARRAY[${id}])) AND p.deleted_at IS NULL`;

export async function isReferenced(db: Queryable, workspaceId: string, mediaId: string): Promise<boolean> {
  const { rows } = await db.query<{ used: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM posts p WHERE p.workspace_id = $1 AND ${postUses('$2::text')})
         OR ${BRAND_USES.replace('m.workspace_id', '$1').replaceAll('m.id', '$2::text')} AS used`,
    [workspaceId, mediaId],
  );
  return rows[0]!.used;
}

/** Posts that will still be published (so their media must stay): scheduled, awaiting approval, or publishing. */
export async function postsAwaitingPublication(db: Queryable, workspaceId: string, mediaId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT p.id FROM posts p
      WHERE p.workspace_id = $1 AND ${postUses('$2::text')}
        AND p.status IN ('scheduled', 'pending_approval', 'publishing')
      ORDER BY p.created_at LIMIT 10`,
    [workspaceId, mediaId],
  );
  return rows.map((r) => r.id);
}

export interface MediaFilters {
  statuses?: MediaStatus[];
  kinds?: UploadKind[];
}

export async function listMedia(
  db: Queryable,
  workspaceId: string,
  filters: MediaFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<MediaRow[]> {
  const where = ['workspace_id = $1', 'deleted_at IS NULL'];
  const values: unknown[] = [workspaceId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filters.statuses) where.push(`status = ANY(${param(filters.statuses)}::text[])`);
  if (filters.kinds) where.push(`kind = ANY(${param(filters.kinds)}::text[])`);
  if (after) where.push(`(created_at, id) < (${param(after.value)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

/** The row of a deleted media, for the purge job. */
export async function findDeleted(db: Queryable, workspaceId: string, id: string): Promise<MediaRow | undefined> {
  const { rows } = await db.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NOT NULL`,
    [workspaceId, id],
  );
  return rows[0];
}

/** Removes the row of a deleted media once its bytes are gone. */
export async function purgeRow(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query('DELETE FROM media WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NOT NULL', [workspaceId, id]);
}
