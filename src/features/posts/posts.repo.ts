// SQL for posts (owned here), and reads of their targets, attempts and parts (written by publishing/targets.repo.ts
// and publishing/target-parts.repo.ts).
// Every function takes the workspace id, except the engine's batches (section at the end; docs/tables.md).
import type { Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import type { CursorPosition } from '../../app/cursor.ts';
import { JOB_ID } from '../../app/publish-queue.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { PlatformOptions } from './posts.schemas.ts';
import type { BrandAdditions } from '../brands/brand-rules.ts';

export type PostStatus =
  | 'draft'
  | 'pending_approval'
  | 'scheduled'
  | 'publishing'
  | 'published'
  | 'partially_published'
  | 'failed'
  | 'cancelled';
export type TargetStatus = 'pending' | 'scheduled' | 'publishing' | 'published' | 'failed' | 'cancelled';

export interface PostRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  content: string;
  platforms: PlatformName[];
  platform_options: PlatformOptions;
  media_ids: string[];
  status: PostStatus;
  publish_now: boolean;
  schedule_at: Date | null;
  /** The IANA zone the post was scheduled in; null when scheduled at an absolute time. */
  timezone: string | null;
  metadata: Record<string, string>;
  /** What the brand's rules added to each platform's first part, fixed at create/edit (src/features/brands). */
  brand_additions: BrandAdditions;
  published_at: Date | null;
  created_via: ServiceContext['via'];
  approval: Record<string, unknown> | null;
  /** A recycled copy: the original post it was made from, the family's id (docs/queues.md "Recycling"). */
  recycled_from: string | null;
  created_at: Date;
  updated_at: Date;
  /** The queue the post was added to (src/features/queues), and the slot it holds there (null: none, or pinned). */
  queue_id: string | null;
  queue_slot: Date | null;
}

export interface TargetRow {
  id: string;
  post_id: string;
  position: number;
  platform: PlatformName;
  connection_id: string | null;
  sandbox: boolean;
  status: TargetStatus;
  platform_post_id: string | null;
  url: string | null;
  published_at: Date | null;
  attempt_count: number;
  error: Record<string, unknown> | null;
  /**
   * When a `publishing` target that no running job holds is attempted next: its retry time (or when the job holding
   * it runs again), or its connection's rate-limit reset when that is later (the claim waits for it). Null otherwise,
   * and while a running job holds it.
   */
  next_attempt_at: Date | null;
}

export interface AttemptRow {
  target_id: string;
  started_at: Date;
  finished_at: Date | null;
  outcome: string | null;
  error_code: string | null;
  duration_ms: number | null;
}

export const POST_COLUMNS = `id, workspace_id, brand_id, content, platforms, platform_options, media_ids, status, publish_now,
  schedule_at, timezone, metadata, brand_additions, published_at, created_via, approval, created_at, updated_at,
  queue_id, queue_slot, recycled_from`;
// next_attempt_at: a target no running job holds waits (the same test as cancel's, RUNNING_JOB). Released, it is
// due at its own next_attempt_at; held by a job that is not running (failed and awaiting graphile's retry, or
// unlocked after its worker died), when that job runs again. Either way not before its connection's reset.
// Joined, not sub-queried per row: the statement is planned for every post rendered, and three correlated
// sub-queries over graphile's jobs view cost more to plan than to run (a 10,000-post burst: 7.7 s became 11.5 s).
const TARGETS_FROM = `SELECT t.id, t.post_id, t.position, t.platform, t.connection_id, t.sandbox, t.status, t.platform_post_id,
    t.url, t.published_at, t.attempt_count, t.error,
    CASE WHEN t.status = 'publishing' AND j.locked_at IS NULL THEN greatest(
      CASE WHEN t.claimed_by IS NULL THEN t.next_attempt_at ELSE coalesce(j.run_at, t.next_attempt_at, now()) END,
      c.throttled_until) END AS next_attempt_at
  FROM post_targets t
  LEFT JOIN graphile_worker.jobs j ON t.status = 'publishing' AND j.id = ${JOB_ID('t.claimed_by')}
  LEFT JOIN connections c ON t.status = 'publishing' AND c.id = t.connection_id`;

export interface NewPost {
  id: string;
  workspaceId: string;
  brandId: string;
  content: string;
  platforms: PlatformName[];
  platformOptions: PlatformOptions;
  mediaIds: string[];
  status: PostStatus;
  publishNow: boolean;
  scheduleAt: Date | null;
  createdVia: PostRow['created_via'];
  createdBy: string;
  timezone?: string | null;
  metadata?: Record<string, string>;
  brandAdditions?: BrandAdditions;
}

/** A new post's columns in the order of insertPost's statement (and of posts_create's first arguments). */
export function postValues(p: NewPost): unknown[] {
  return [
    p.id,
    p.workspaceId,
    p.brandId,
    p.content,
    p.platforms,
    JSON.stringify(p.platformOptions),
    p.mediaIds,
    p.status,
    p.publishNow,
    p.scheduleAt,
    p.createdVia,
    p.createdBy,
    p.timezone ?? null,
    JSON.stringify(p.metadata ?? {}),
    JSON.stringify(p.brandAdditions ?? {}),
  ];
}

export async function insertPost(db: Queryable, p: NewPost): Promise<PostRow> {
  const { rows } = await db.query<PostRow>(
    `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, platform_options, media_ids, status, publish_now, schedule_at, created_via, created_by, timezone, metadata, brand_additions)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING ${POST_COLUMNS}`,
    postValues(p),
  );
  return rows[0]!;
}

/** A live (not deleted) post; `lock` takes a row lock for a read-modify-write. */
export async function findPost(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<PostRow | undefined> {
  const { rows } = await db.query<PostRow>(
    `SELECT ${POST_COLUMNS} FROM posts WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function findTargets(db: Queryable, workspaceId: string, postIds: string[]): Promise<TargetRow[]> {
  if (postIds.length === 0) return [];
  const { rows } = await db.query<TargetRow>({
    name: 'posts.findTargets',
    text: `${TARGETS_FROM} WHERE t.workspace_id = $1 AND t.post_id = ANY($2::text[]) ORDER BY t.post_id, t.position`,
    values: [workspaceId, postIds],
  });
  return rows;
}

export async function findAttempts(db: Queryable, workspaceId: string, targetIds: string[]): Promise<AttemptRow[]> {
  if (targetIds.length === 0) return [];
  const { rows } = await db.query<AttemptRow>(
    `SELECT target_id, started_at, finished_at, outcome, error_code, duration_ms FROM target_attempts
      WHERE workspace_id = $1 AND target_id = ANY($2::text[]) ORDER BY target_id, started_at, id`,
    [workspaceId, targetIds],
  );
  return rows;
}

/** What the posts API shows of a target's part (a post of a thread); a part never attempted has no row. */
export interface TargetPartRow {
  target_id: string;
  position: number;
  state: 'sending' | 'published';
  platform_post_id: string | null;
  url: string | null;
}

export async function findParts(db: Queryable, workspaceId: string, targetIds: string[]): Promise<TargetPartRow[]> {
  if (targetIds.length === 0) return [];
  const { rows } = await db.query<TargetPartRow>(
    `SELECT target_id, position, state, platform_post_id, url FROM target_parts
      WHERE workspace_id = $1 AND target_id = ANY($2::text[]) ORDER BY target_id, position`,
    [workspaceId, targetIds],
  );
  return rows;
}

export interface PostChanges {
  content?: string;
  platforms?: PlatformName[];
  platformOptions?: PlatformOptions;
  mediaIds?: string[];
  status?: PostStatus;
  scheduleAt?: Date | null;
  timezone?: string | null;
  metadata?: Record<string, string>;
  brandAdditions?: BrandAdditions;
  publishNow?: boolean;
  deleted?: boolean;
  /** The post's view of its approval request (src/features/approvals); null clears it. */
  approval?: Record<string, unknown> | null;
}

export async function updatePost(db: Queryable, workspaceId: string, id: string, c: PostChanges): Promise<PostRow> {
  const sets: string[] = ['updated_at = now()'];
  const values: unknown[] = [workspaceId, id];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (c.content !== undefined) set('content', c.content);
  if (c.platforms !== undefined) set('platforms', c.platforms);
  if (c.platformOptions !== undefined) set('platform_options', JSON.stringify(c.platformOptions));
  if (c.mediaIds !== undefined) set('media_ids', c.mediaIds);
  if (c.status !== undefined) set('status', c.status);
  if (c.scheduleAt !== undefined) set('schedule_at', c.scheduleAt);
  if (c.timezone !== undefined) set('timezone', c.timezone);
  if (c.metadata !== undefined) set('metadata', JSON.stringify(c.metadata));
  if (c.brandAdditions !== undefined) set('brand_additions', JSON.stringify(c.brandAdditions));
  if (c.publishNow !== undefined) set('publish_now', c.publishNow);
  if (c.approval !== undefined) set('approval', c.approval === null ? null : JSON.stringify(c.approval));
  if (c.deleted) sets.push('deleted_at = now()');
  const { rows } = await db.query<PostRow>(
    `UPDATE posts SET ${sets.join(', ')} WHERE workspace_id = $1 AND id = $2 RETURNING ${POST_COLUMNS}`,
    values,
  );
  return rows[0]!;
}

/** Links a recycled copy, just created, to its family's original (docs/queues.md "Recycling"). */
export async function setRecycledFrom(
  db: Queryable,
  workspaceId: string,
  id: string,
  originalId: string,
): Promise<PostRow> {
  const { rows } = await db.query<PostRow>(
    `UPDATE posts SET recycled_from = $3 WHERE workspace_id = $1 AND id = $2 RETURNING ${POST_COLUMNS}`,
    [workspaceId, id, originalId],
  );
  return rows[0]!;
}

export type PostSort = '-created_at' | 'schedule_at' | '-schedule_at';

export interface PostFilters {
  statuses?: PostStatus[];
  brandIds?: readonly string[];
  platform?: PlatformName;
  scheduledFrom?: Date;
  scheduledTo?: Date;
  createdFrom?: Date;
  createdTo?: Date;
  /** Posts whose metadata holds every one of these pairs. */
  metadata?: Record<string, string>;
  /** Only the copies of this post made by its recycling rule. */
  recycledFrom?: string;
}

/**
 * One page of posts in keyset order; returns up to `limit` rows (the caller asks for one more to see if there is a next
 * page).
 */
export async function listPosts(
  db: Queryable,
  workspaceId: string,
  filters: PostFilters,
  sort: PostSort,
  after: CursorPosition | undefined,
  limit: number,
): Promise<PostRow[]> {
  const where: string[] = ['workspace_id = $1', 'deleted_at IS NULL'];
  const values: unknown[] = [workspaceId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filters.statuses) where.push(`status = ANY(${param(filters.statuses)}::text[])`);
  if (filters.brandIds) where.push(`brand_id = ANY(${param(filters.brandIds)}::text[])`);
  if (filters.platform) where.push(`${param(filters.platform)} = ANY(platforms)`);
  if (filters.scheduledFrom) where.push(`schedule_at >= ${param(filters.scheduledFrom)}`);
  if (filters.scheduledTo) where.push(`schedule_at < ${param(filters.scheduledTo)}`);
  if (filters.createdFrom) where.push(`created_at >= ${param(filters.createdFrom)}`);
  if (filters.createdTo) where.push(`created_at < ${param(filters.createdTo)}`);
  if (filters.recycledFrom) where.push(`recycled_from = ${param(filters.recycledFrom)}`);
  // Containment, with the predicate of the partial GIN index (posts_metadata_idx) spelled out so it can be used.
  if (filters.metadata && Object.keys(filters.metadata).length > 0)
    where.push(`metadata @> ${param(JSON.stringify(filters.metadata))}::jsonb AND metadata <> '{}'::jsonb`);

  let order: string;
  if (sort === '-created_at') {
    order = 'created_at DESC, id DESC';
    if (after) where.push(`(created_at, id) < (${param(after.value)}::timestamptz, ${param(after.id)})`);
  } else {
    const asc = sort === 'schedule_at';
    order = asc ? 'schedule_at ASC NULLS LAST, id ASC' : 'schedule_at DESC NULLS LAST, id DESC';
    if (after && after.value !== null) {
      where.push(
        `((schedule_at, id) ${asc ? '>' : '<'} (${param(after.value)}::timestamptz, ${param(after.id)}) OR schedule_at IS NULL)`,
      );
    } else if (after) {
      where.push(`(schedule_at IS NULL AND id ${asc ? '>' : '<'} ${param(after.id)})`);
    }
  }
  const { rows } = await db.query<PostRow>(
    `SELECT ${POST_COLUMNS} FROM posts WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

// ---- Across workspaces on purpose: the publishing engine's batches (docs/tables.md) ----

/**
 * Live posts by id, across workspaces, locked in id order — the order every writer of several posts at once
 * keeps, so two of them cannot deadlock.
 */
export async function lockPosts(db: Queryable, ids: string[]): Promise<PostRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<PostRow>(
    `SELECT ${POST_COLUMNS} FROM posts WHERE id = ANY($1::text[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE`,
    [ids],
  );
  return rows;
}

/** Sets several posts' status and published_at at once; returns the updated rows. */
export async function setPostStatuses(
  db: Queryable,
  changes: Array<{ id: string; status: PostStatus; publishedAt: Date | null }>,
): Promise<PostRow[]> {
  if (changes.length === 0) return [];
  const { rows } = await db.query<PostRow>(
    `UPDATE posts SET status = c.next_status, published_at = c.next_published_at, updated_at = now()
       FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS c(post_id, next_status, next_published_at)
      WHERE posts.id = c.post_id
     RETURNING ${POST_COLUMNS.split(',')
       .map((c) => `posts.${c.trim()}`)
       .join(', ')}`,
    [changes.map((c) => c.id), changes.map((c) => c.status), changes.map((c) => c.publishedAt)],
  );
  return rows;
}

/** The targets of these posts whatever their workspace (the engine's batches span workspaces). */
export async function findTargetsOfPosts(db: Queryable, postIds: string[]): Promise<TargetRow[]> {
  if (postIds.length === 0) return [];
  const { rows } = await db.query<TargetRow>({
    name: 'posts.findTargetsOfPosts',
    text: `${TARGETS_FROM} WHERE t.post_id = ANY($1::text[]) ORDER BY t.post_id, t.position`,
    values: [postIds],
  });
  return rows;
}

/**
 * What of each of these targets is on the platform or may be: when its last part was published (null: none is), and
 * whether a part was sent without an answer (`sending`). Targets without parts are absent. Across workspaces (the
 * engine's batches derive statuses too).
 */
export async function partsOutOf(
  db: Queryable,
  targetIds: string[],
): Promise<Array<{ target_id: string; published_at: Date | null; unknown: boolean }>> {
  if (targetIds.length === 0) return [];
  const { rows } = await db.query<{ target_id: string; published_at: Date | null; unknown: boolean }>(
    `SELECT target_id, max(published_at) AS published_at, bool_or(state = 'sending') AS unknown FROM target_parts
      WHERE target_id = ANY($1::text[]) GROUP BY target_id`,
    [targetIds],
  );
  return rows;
}
