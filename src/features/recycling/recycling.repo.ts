// SQL of post_recycle_rules (owned here; docs/tables.md). Every function takes the workspace id, except the
// recycle_posts task's claim of due rules (section at the end), which spans workspaces on purpose.
import type { Queryable } from '../../db/pool.ts';
import type { RecycleStatus, RecycleVary } from './recycling.schemas.ts';

export interface RecycleRuleRow {
  post_id: string;
  workspace_id: string;
  every_days: number;
  times: number;
  until: Date | null;
  vary: RecycleVary;
  variants: string[];
  status: RecycleStatus;
  done: number;
  next_at: Date | null;
  last_copy_id: string | null;
  last_error: { code: string; message: string } | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `post_id, workspace_id, every_days, times, until, vary, variants, status, done, next_at, last_copy_id,
  last_error, created_by, created_at, updated_at`;

export interface NewRule {
  postId: string;
  everyDays: number;
  times: number;
  until: Date | null;
  vary: RecycleVary;
  variants: string[];
  nextAt: Date;
  createdBy: string | null;
}

/** A post's rule, new or replacing the one it had (which starts over: no copy made yet). */
export async function upsertRule(db: Queryable, workspaceId: string, r: NewRule): Promise<RecycleRuleRow> {
  const { rows } = await db.query<RecycleRuleRow>(
    `INSERT INTO post_recycle_rules (post_id, workspace_id, every_days, times, until, vary, variants, status, done,
                                     next_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', 0, $8, $9)
     ON CONFLICT (post_id) DO UPDATE SET every_days = excluded.every_days, times = excluded.times,
       until = excluded.until, vary = excluded.vary, variants = excluded.variants, status = 'active', done = 0,
       next_at = excluded.next_at, last_copy_id = NULL, last_error = NULL, created_by = excluded.created_by,
       created_at = now(), updated_at = now()
     WHERE post_recycle_rules.workspace_id = excluded.workspace_id
     RETURNING ${COLUMNS}`,
    [r.postId, workspaceId, r.everyDays, r.times, r.until, r.vary, r.variants, r.nextAt, r.createdBy],
  );
  return rows[0]!;
}

/** The rules of these posts (a page of posts rendered at once). */
export async function findRules(db: Queryable, workspaceId: string, postIds: string[]): Promise<RecycleRuleRow[]> {
  if (postIds.length === 0) return [];
  const { rows } = await db.query<RecycleRuleRow>(
    `SELECT ${COLUMNS} FROM post_recycle_rules WHERE workspace_id = $1 AND post_id = ANY($2::text[])`,
    [workspaceId, postIds],
  );
  return rows;
}

/** Stops a post's active rule; null when it had none active (stopping is idempotent). */
export async function stopRule(db: Queryable, workspaceId: string, postId: string): Promise<RecycleRuleRow | null> {
  const { rows } = await db.query<RecycleRuleRow>(
    `UPDATE post_recycle_rules SET status = 'stopped', next_at = NULL, updated_at = now()
      WHERE workspace_id = $1 AND post_id = $2 AND status = 'active'
      RETURNING ${COLUMNS}`,
    [workspaceId, postId],
  );
  return rows[0] ?? null;
}

export interface RuleAdvance {
  /** The copy made for this occurrence, or null when the occurrence was refused (see `error`). */
  copyId: string | null;
  nextAt: Date | null;
  status: RecycleStatus;
  error: { code: string; message: string } | null;
}

/**
 * Records the occurrence `done` as handled. Conditional on the rule still being at that occurrence, so a claim that
 * lost a race (another worker, a stop, a new rule) changes nothing: the caller rolls its copy back on `false`.
 */
export async function advanceRule(
  db: Queryable,
  workspaceId: string,
  postId: string,
  done: number,
  a: RuleAdvance,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE post_recycle_rules
        SET done = done + (CASE WHEN $4::text IS NULL THEN 0 ELSE 1 END), last_copy_id = coalesce($4, last_copy_id),
            next_at = $5, status = $6, last_error = $7, updated_at = now()
      WHERE workspace_id = $1 AND post_id = $2 AND done = $3 AND status = 'active'`,
    [workspaceId, postId, done, a.copyId, a.nextAt, a.status, a.error === null ? null : JSON.stringify(a.error)],
  );
  return rowCount === 1;
}

// ---- Across workspaces on purpose: the recycle_posts task's claim (docs/tables.md) ----

/**
 * One active rule due by `by`, locked for the caller's transaction; rules other workers hold are skipped, so two
 * passes never take the same occurrence. Null when none is due.
 */
export async function lockDueRule(db: Queryable, by: Date): Promise<RecycleRuleRow | null> {
  const { rows } = await db.query<RecycleRuleRow>(
    `SELECT ${COLUMNS} FROM post_recycle_rules
      WHERE status = 'active' AND next_at <= $1
      ORDER BY next_at
      LIMIT 1
      FOR UPDATE SKIP LOCKED`,
    [by],
  );
  return rows[0] ?? null;
}
