// SQL of the calendar: reads of posts and automations as calendar rows (owned by their features; read here), and
// the calendar_feeds table (owned here). Every function takes the workspace id, except the feed look-up by its
// token's hash (end of file), which is how a request without a key finds its workspace.
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { PostStatus } from '../posts/posts.repo.ts';
import type { CalendarEventType } from './calendar.schemas.ts';

/** A post on the calendar: at its schedule, else (published now) when it went out. */
const STARTS_AT = 'coalesce(p.schedule_at, p.published_at)';

export interface CalendarPostRow {
  id: string;
  brand_id: string;
  content: string;
  platforms: PlatformName[];
  status: PostStatus;
  starts_at: Date;
  updated_at: Date;
  recycled_from: string | null;
  queue_id: string | null;
}

export interface CalendarPostFilters {
  from: Date;
  to: Date;
  brandIds: readonly string[] | null;
  /** Null: every status but `cancelled`. */
  statuses: readonly PostStatus[] | null;
  platforms: readonly string[] | null;
}

/** Posts in `[from, to)` after the keyset position, in (starts_at, id) order: one index range (posts_calendar_idx). */
export async function listCalendarPosts(
  db: Queryable,
  workspaceId: string,
  filters: CalendarPostFilters,
  after: { at: Date; id: string | null } | null,
  limit: number,
): Promise<CalendarPostRow[]> {
  const params: unknown[] = [workspaceId, filters.from, filters.to];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = [
    'p.workspace_id = $1',
    'p.deleted_at IS NULL',
    `${STARTS_AT} IS NOT NULL`,
    `${STARTS_AT} >= $2`,
    `${STARTS_AT} < $3`,
  ];
  // id null: the page ended on an automation run at `at`, which sorts after every post at the same instant.
  if (after)
    where.push(
      after.id === null
        ? `${STARTS_AT} > ${param(after.at)}`
        : `(${STARTS_AT}, p.id) > (${param(after.at)}::timestamptz, ${param(after.id)})`,
    );
  if (filters.brandIds) where.push(`p.brand_id = ANY(${param(filters.brandIds)}::text[])`);
  where.push(filters.statuses ? `p.status = ANY(${param(filters.statuses)}::text[])` : `p.status <> 'cancelled'`);
  if (filters.platforms) where.push(`p.platforms && ${param(filters.platforms)}::text[]`);
  const { rows } = await db.query<CalendarPostRow>(
    `SELECT p.id, p.brand_id, left(p.content, 400) AS content, p.platforms, p.status, ${STARTS_AT} AS starts_at,
            p.updated_at, p.recycled_from, p.queue_id
       FROM posts p
      WHERE ${where.join(' AND ')}
      ORDER BY ${STARTS_AT}, p.id
      LIMIT ${param(limit)}`,
    params,
  );
  return rows;
}

export type FoundCalendarPost = Omit<CalendarPostRow, 'starts_at'> & {
  starts_at: Date | null;
  timezone: string | null;
};

/** One post as a calendar row, whatever its time (null: no such post in the workspace, or deleted). */
export async function findCalendarPost(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<FoundCalendarPost | null> {
  const { rows } = await db.query<FoundCalendarPost>(
    `SELECT p.id, p.brand_id, left(p.content, 400) AS content, p.platforms, p.status, ${STARTS_AT} AS starts_at,
            p.updated_at, p.recycled_from, p.queue_id, p.timezone
       FROM posts p
      WHERE p.workspace_id = $1 AND p.id = $2 AND p.deleted_at IS NULL`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

export interface CalendarAutomationRow {
  id: string;
  brand_id: string;
  name: string;
  source: { type: string; rrule?: string; timezone?: string };
  /** Its destinations' platforms: named, or the platform of the connection named. */
  platforms: PlatformName[];
  updated_at: Date;
}

/**
 * The workspace's active schedule automations (table owned by src/features/automations), optionally one of them:
 * only these have runs at times known in advance.
 */
export async function listScheduleAutomations(
  db: Queryable,
  workspaceId: string,
  brandIds: readonly string[] | null,
  id?: string,
): Promise<CalendarAutomationRow[]> {
  const params: unknown[] = [workspaceId];
  const where = ['a.workspace_id = $1', "a.status = 'active'", "a.source ->> 'type' = 'schedule'"];
  if (brandIds) where.push(`a.brand_id = ANY($${params.push(brandIds)}::text[])`);
  if (id !== undefined) where.push(`a.id = $${params.push(id)}`);
  const { rows } = await db.query<CalendarAutomationRow>(
    `SELECT a.id, a.brand_id, a.name, a.source, a.updated_at,
            ARRAY(SELECT DISTINCT coalesce(d ->> 'platform', c.platform)
                    FROM jsonb_array_elements(a.destinations) AS d
                    LEFT JOIN connections c ON c.id = d ->> 'connection_id' AND c.workspace_id = a.workspace_id
                   WHERE coalesce(d ->> 'platform', c.platform) IS NOT NULL
                   ORDER BY 1) AS platforms
       FROM automations a
      WHERE ${where.join(' AND ')}
      ORDER BY a.id`,
    params,
  );
  return rows;
}

/** Whether the workspace has an automation with this id, whatever its state. */
export async function automationExists(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM automations WHERE workspace_id = $1 AND id = $2', [
    workspaceId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

export interface FeedRow {
  id: string;
  workspace_id: string;
  name: string;
  token_last4: string;
  brand_ids: string[] | null;
  platforms: PlatformName[] | null;
  types: CalendarEventType[];
  created_by: string;
  created_at: Date;
  last_read_at: Date | null;
  revoked_at: Date | null;
}

const FEED_COLUMNS =
  'id, workspace_id, name, token_last4, brand_ids, platforms, types, created_by, created_at, last_read_at, revoked_at';

export async function insertFeed(
  db: Queryable,
  workspaceId: string,
  feed: Pick<FeedRow, 'id' | 'name' | 'token_last4' | 'brand_ids' | 'platforms' | 'types' | 'created_by'> & {
    tokenHash: Buffer;
  },
): Promise<FeedRow> {
  const { rows } = await db.query<FeedRow>(
    `INSERT INTO calendar_feeds (id, workspace_id, name, token_hash, token_last4, brand_ids, platforms, types, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING ${FEED_COLUMNS}`,
    [
      feed.id,
      workspaceId,
      feed.name,
      feed.tokenHash,
      feed.token_last4,
      feed.brand_ids,
      feed.platforms,
      feed.types,
      feed.created_by,
    ],
  );
  return rows[0]!;
}

/** The active feeds, newest first, limited to those whose brands are all within `brandIds` (null: any). */
export async function listFeeds(
  db: Queryable,
  workspaceId: string,
  brandIds: readonly string[] | null,
): Promise<FeedRow[]> {
  const { rows } = await db.query<FeedRow>(
    `SELECT ${FEED_COLUMNS} FROM calendar_feeds
      WHERE workspace_id = $1 AND revoked_at IS NULL
        AND ($2::text[] IS NULL OR (brand_ids IS NOT NULL AND brand_ids <@ $2::text[]))
      ORDER BY created_at DESC, id DESC`,
    [workspaceId, brandIds],
  );
  return rows;
}

export async function countActiveFeeds(db: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM calendar_feeds WHERE workspace_id = $1 AND revoked_at IS NULL',
    [workspaceId],
  );
  return rows[0]!.n;
}

/** Revokes an active feed the caller's brands cover; null when there is none. */
export async function revokeFeed(
  db: Queryable,
  workspaceId: string,
  id: string,
  brandIds: readonly string[] | null,
): Promise<FeedRow | null> {
  const { rows } = await db.query<FeedRow>(
    `UPDATE calendar_feeds SET revoked_at = now()
      WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL
        AND ($3::text[] IS NULL OR (brand_ids IS NOT NULL AND brand_ids <@ $3::text[]))
      RETURNING ${FEED_COLUMNS}`,
    [workspaceId, id, brandIds],
  );
  return rows[0] ?? null;
}

/** One feed, active or revoked, that the caller's brands cover; null when there is none. */
export async function findFeed(
  db: Queryable,
  workspaceId: string,
  id: string,
  brandIds: readonly string[] | null,
): Promise<FeedRow | null> {
  const { rows } = await db.query<FeedRow>(
    `SELECT ${FEED_COLUMNS} FROM calendar_feeds
      WHERE workspace_id = $1 AND id = $2
        AND ($3::text[] IS NULL OR (brand_ids IS NOT NULL AND brand_ids <@ $3::text[]))`,
    [workspaceId, id, brandIds],
  );
  return rows[0] ?? null;
}

/** Notes a read, at most once a minute (a subscribed calendar polls; each poll need not write). */
export async function touchFeed(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query(
    `UPDATE calendar_feeds SET last_read_at = now()
      WHERE workspace_id = $1 AND id = $2 AND (last_read_at IS NULL OR last_read_at < now() - interval '1 minute')`,
    [workspaceId, id],
  );
}

// Across workspaces on purpose: a feed URL carries no key, so its token's hash is what finds the workspace.

/** The active feed whose token hashes to `tokenHash`; null for an unknown or revoked one. */
export async function findFeedByTokenHash(db: Queryable, tokenHash: Buffer): Promise<FeedRow | null> {
  const { rows } = await db.query<FeedRow>(
    `SELECT ${FEED_COLUMNS} FROM calendar_feeds WHERE token_hash = $1 AND revoked_at IS NULL`,
    [tokenHash],
  );
  return rows[0] ?? null;
}
