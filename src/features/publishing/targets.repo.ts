// SQL of the publishing engine: claiming a target, its parts, its attempts, and the writes that end an
// attempt. Every write after the claim is fenced by the claim token: a worker that lost its claim (it was
// presumed dead and another took over) changes nothing.
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { PublishedPart } from '../../platforms/types.ts';

export interface ClaimedTarget {
  id: string;
  workspace_id: string;
  post_id: string;
  platform: PlatformName;
  connection_id: string | null;
  claim_token: number;
  attempt_count: number;
  /** Whether a previous holder died mid-attempt (its parts may be in flight: reconcile first). */
  taken_over: boolean;
  /** When the target became due: its schedule, or when it was queued to publish now / to retry. */
  due_at: Date | null;
  first_claim: boolean;
}

/**
 * Claims the target for `jobId` if it is publishable: scheduled for exactly `scheduleAt` (a stale job sees a
 * different schedule and does nothing), or publishing and held by no running job (released for a retry, or
 * held by a job whose worker died and was unlocked). Locks the post first, as post edits do.
 */
export async function claimTarget(db: Queryable, targetId: string, scheduleAt: string | null, jobId: string): Promise<ClaimedTarget | undefined> {
  const { rows } = await db.query<ClaimedTarget>(
    `WITH post AS (
       SELECT p.id, p.schedule_at FROM posts p JOIN post_targets t ON t.post_id = p.id
        WHERE t.id = $1 AND p.deleted_at IS NULL FOR UPDATE OF p
     ), before AS (
       SELECT t.id, t.status, t.claimed_by, t.next_attempt_at, t.first_claimed_at FROM post_targets t WHERE t.id = $1 FOR UPDATE
     )
     UPDATE post_targets t
        SET status = 'publishing', claimed_by = $3, claim_token = t.claim_token + 1, attempt_count = t.attempt_count + 1,
            first_claimed_at = coalesce(t.first_claimed_at, now()), updated_at = now()
       FROM before b, post p
      WHERE t.id = b.id
        AND ((b.status = 'scheduled' AND p.schedule_at IS NOT DISTINCT FROM $2::timestamptz)
          OR (b.status = 'publishing' AND (b.claimed_by IS NULL OR NOT EXISTS (
                SELECT 1 FROM graphile_worker.jobs j WHERE j.id::text = b.claimed_by AND j.locked_at IS NOT NULL))))
      RETURNING t.id, t.workspace_id, t.post_id, t.platform, t.connection_id, t.claim_token, t.attempt_count,
                (b.status = 'publishing' AND b.claimed_by IS NOT NULL) AS taken_over,
                CASE WHEN b.status = 'scheduled' THEN p.schedule_at ELSE b.next_attempt_at END AS due_at,
                (b.first_claimed_at IS NULL) AS first_claim`,
    [targetId, scheduleAt, jobId],
  );
  return rows[0];
}

/** Closes attempts a dead worker left open. */
export async function closeInterruptedAttempts(db: Queryable, workspaceId: string, targetId: string): Promise<void> {
  await db.query(
    `UPDATE target_attempts SET finished_at = now(), outcome = 'interrupted', duration_ms = (extract(epoch FROM now() - started_at) * 1000)::int
      WHERE workspace_id = $1 AND target_id = $2 AND finished_at IS NULL`,
    [workspaceId, targetId],
  );
}

export async function insertAttempt(db: Queryable, workspaceId: string, id: string, targetId: string, workerId: string): Promise<void> {
  await db.query('INSERT INTO target_attempts (id, workspace_id, target_id, worker_id) VALUES ($1, $2, $3, $4)', [id, workspaceId, targetId, workerId]);
}

export interface FinishAttempt {
  outcome: 'published' | 'failed' | 'retry';
  errorCode: string | null;
  error: Record<string, unknown> | null;
}

export async function finishAttempt(db: Queryable, workspaceId: string, attemptId: string, f: FinishAttempt): Promise<void> {
  await db.query(
    `UPDATE target_attempts SET finished_at = now(), outcome = $3, error_code = $4, error = $5,
            duration_ms = (extract(epoch FROM now() - started_at) * 1000)::int
      WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, attemptId, f.outcome, f.errorCode, f.error === null ? null : JSON.stringify(f.error)],
  );
}

export interface PartRow {
  position: number;
  state: 'sending' | 'published';
  idempotency_key: string;
  first_sent_at: Date;
  platform_post_id: string | null;
  url: string | null;
  ref: Record<string, string> | null;
  published_at: Date | null;
}

export async function findParts(db: Queryable, workspaceId: string, targetId: string): Promise<PartRow[]> {
  const { rows } = await db.query<PartRow>(
    `SELECT position, state, idempotency_key, first_sent_at, platform_post_id, url, ref, published_at
       FROM target_parts WHERE workspace_id = $1 AND target_id = $2 ORDER BY position`,
    [workspaceId, targetId],
  );
  return rows;
}

/** Marks a part `sending` with its key, before the platform call. False when the claim was lost. */
export async function markSending(db: Queryable, workspaceId: string, targetId: string, token: number, position: number, key: string): Promise<PartRow | undefined> {
  const { rows } = await db.query<PartRow>(
    `INSERT INTO target_parts (target_id, workspace_id, position, state, idempotency_key)
     SELECT $2, $1, $4, 'sending', $5 WHERE EXISTS (SELECT 1 FROM post_targets WHERE id = $2 AND workspace_id = $1 AND claim_token = $3)
     RETURNING position, state, idempotency_key, first_sent_at, platform_post_id, url, ref, published_at`,
    [workspaceId, targetId, token, position, key],
  );
  return rows[0];
}

export async function markPartPublished(db: Queryable, workspaceId: string, targetId: string, token: number, position: number, part: PublishedPart): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE target_parts SET state = 'published', platform_post_id = $5, url = $6, ref = $7, published_at = now()
      WHERE workspace_id = $1 AND target_id = $2 AND position = $4
        AND EXISTS (SELECT 1 FROM post_targets WHERE id = $2 AND claim_token = $3)`,
    [workspaceId, targetId, token, position, part.id, part.url, part.ref ? JSON.stringify(part.ref) : null],
  );
  return (rowCount ?? 0) > 0;
}

/** Ends the claim with a final state. False when the claim was lost. */
export async function settleTarget(db: Queryable, workspaceId: string, targetId: string, token: number, s: { status: 'published' | 'failed'; platformPostId?: string; url?: string; error: Record<string, unknown> | null }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE post_targets SET status = $4, claimed_by = NULL, next_attempt_at = NULL, error = $5,
            platform_post_id = coalesce($6, platform_post_id), url = coalesce($7, url),
            published_at = CASE WHEN $4 = 'published' THEN now() ELSE published_at END, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND claim_token = $3 AND status = 'publishing'`,
    [workspaceId, targetId, token, s.status, s.error === null ? null : JSON.stringify(s.error), s.platformPostId ?? null, s.url ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Releases the claim until `at` (a retry, or a wait for a rate-limit reset), keeping the last error visible. */
export async function releaseTarget(db: Queryable, workspaceId: string, targetId: string, token: number, at: Date, error: Record<string, unknown> | null): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE post_targets SET claimed_by = NULL, next_attempt_at = $4, error = $5, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND claim_token = $3 AND status = 'publishing'`,
    [workspaceId, targetId, token, at, error === null ? null : JSON.stringify(error)],
  );
  return (rowCount ?? 0) > 0;
}

export interface PostForPublishing {
  id: string;
  workspace_id: string;
  status: string;
  content: string;
  platform_options: Record<string, Record<string, unknown> | undefined>;
  media_ids: string[];
}

export async function findPostForPublishing(db: Queryable, workspaceId: string, postId: string): Promise<PostForPublishing | undefined> {
  const { rows } = await db.query<PostForPublishing>(
    'SELECT id, workspace_id, status, content, platform_options, media_ids FROM posts WHERE workspace_id = $1 AND id = $2',
    [workspaceId, postId],
  );
  return rows[0];
}

/** Marks targets to publish now (POST /publish, POST /retry, publish_now): unclaimed, due now. */
export async function makeTargetsDueNow(db: Queryable, workspaceId: string, postId: string, from: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE post_targets SET status = 'publishing', claimed_by = NULL, next_attempt_at = now(), error = NULL, updated_at = now()
      WHERE workspace_id = $1 AND post_id = $2 AND status = ANY($3::text[]) RETURNING id`,
    [workspaceId, postId, from],
  );
  return rows.map((r) => r.id);
}
