// SQL of the publishing engine's batches over post_targets and target_attempts (owned with targets.repo.ts,
// docs/tables.md): claims, settlements and the checks a claim batch makes. A batch holds targets of any workspace,
// so these work across workspaces on purpose; every write carries the row's workspace id and is fenced by the claim
// token, so a worker that lost its claim changes nothing.
import { RUNNING_JOB } from '../../app/publish-queue.ts';
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';

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

export interface ClaimRequest {
  targetId: string;
  /** The post's schedule the job was queued for (null: publish now, a retry). */
  scheduleAt: string | null;
  jobId: string;
  /** The attempt a successful claim opens, and the worker making it. */
  attemptId: string;
  workerId: string;
}

export interface FinishAttempt {
  outcome: 'published' | 'failed' | 'retry';
  errorCode: string | null;
  error: Record<string, unknown> | null;
}

export interface Settlement {
  status: 'published' | 'failed';
  platformPostId?: string;
  url?: string;
  error: Record<string, unknown> | null;
}

// ---- Across workspaces on purpose: the publishing engine's batches (a batch holds targets of any workspace; the
// batch writes carry each row's workspace id). Listed in docs/tables.md. ----

/** The targets among these whose connection the platform told to wait, with the time to wait until. */
export async function throttledTargets(
  db: Queryable,
  targetIds: string[],
): Promise<Array<{ id: string; until: Date }>> {
  const { rows } = await db.query<{ id: string; until: Date }>(
    `SELECT t.id, c.throttled_until AS until FROM post_targets t JOIN connections c ON c.id = t.connection_id
      WHERE t.id = ANY($1::text[]) AND c.throttled_until > now()`,
    [targetIds],
  );
  return rows;
}
/** How long a target whose media are still being fetched waits before its job looks again. */
export const MEDIA_WAIT_SECONDS = 3;

/**
 * Targets whose post (or one of its first comments) has a media item still `processing` (media by URL, being
 * fetched): they wait, without taking an attempt, and look again in MEDIA_WAIT_SECONDS — until the fetch's deadline
 * (`upload_expires_at`), after which the target is claimed and fails on the media. A read of the media table
 * (docs/tables.md: reads may join).
 */
export async function targetsAwaitingMedia(
  db: Queryable,
  targetIds: string[],
): Promise<Array<{ id: string; until: Date }>> {
  const { rows } = await db.query<{ id: string; until: Date }>(
    `SELECT t.id, now() + make_interval(secs => $2) AS until
       FROM post_targets t JOIN posts p ON p.id = t.post_id AND p.workspace_id = t.workspace_id
      WHERE t.id = ANY($1::text[])
        AND EXISTS (SELECT 1 FROM media m WHERE m.workspace_id = p.workspace_id
                      AND m.id = ANY(p.media_ids || posts_first_comment_media(p.platform_options))
                      AND m.status = 'processing' AND m.deleted_at IS NULL AND m.upload_expires_at > now())`,
    [targetIds, MEDIA_WAIT_SECONDS],
  );
  return rows;
}

/**
 * Claims each target for its job if it is publishable: scheduled for exactly the job's `scheduleAt` (a stale
 * job sees a different schedule and does nothing), or publishing and held by no running job (released for a
 * retry, or held by a job whose worker died and was unlocked). Locks the posts first, in id order, as post
 * edits and the engine's other batches do. In the same statement, each claim opens its attempt, and the attempt
 * a dead worker left open on a target taken over is closed as interrupted (sub-statements share one snapshot,
 * so that close cannot reach the attempt opened beside it). Returns the claimed targets; `claimed_by` says which
 * job has each.
 */
export async function claimTargets(
  db: Queryable,
  requests: ClaimRequest[],
): Promise<Array<ClaimedTarget & { claimed_by: string; attempt_id: string }>> {
  if (requests.length === 0) return [];
  const { rows } = await db.query<ClaimedTarget & { claimed_by: string; attempt_id: string }>(
    `WITH j AS (
       -- one job per target: a second job for the same target finds it taken, as it would one after the other
       SELECT DISTINCT ON (target_id) * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[])
           AS j(target_id, schedule_at, job_id, attempt_id, worker_id) ORDER BY target_id, job_id
     ), post AS (
       -- by primary key (= ANY of an array), whatever the statistics say: a burst right after a bulk insert
       -- must not be planned as a scan of every post
       SELECT p.id, p.schedule_at FROM posts p
        WHERE p.id = ANY (ARRAY(SELECT t.post_id FROM post_targets t WHERE t.id = ANY ($1::text[]))) AND p.deleted_at IS NULL
        ORDER BY p.id FOR UPDATE OF p
     ), before AS (
       -- each job beside the target it names, locked in id order: joined here, where the planner sees the
       -- target table, rather than job × locked row afterwards (a nested loop over two materialized sets,
       -- quadratic in the batch: 22,350 rows compared for 150 targets)
       SELECT t.id, t.post_id, t.status, t.claimed_by, t.next_attempt_at, t.first_claimed_at,
              j.schedule_at AS job_schedule_at, j.job_id, j.attempt_id, j.worker_id
         FROM post_targets t JOIN j ON j.target_id = t.id
        WHERE t.id = ANY ($1::text[]) ORDER BY t.id FOR UPDATE OF t
     ), claimed AS (
     UPDATE post_targets t
        SET status = 'publishing', claimed_by = b.job_id, claim_token = t.claim_token + 1, attempt_count = t.attempt_count + 1,
            first_claimed_at = coalesce(t.first_claimed_at, now()), updated_at = now()
       FROM before b JOIN post p ON p.id = b.post_id
      WHERE t.id = b.id
        AND ((b.status = 'scheduled' AND p.schedule_at IS NOT DISTINCT FROM b.job_schedule_at)
          OR (b.status = 'publishing' AND (b.claimed_by IS NULL OR NOT ${RUNNING_JOB('b.claimed_by')})))
      RETURNING t.id, t.workspace_id, t.post_id, t.platform, t.connection_id, t.claim_token, t.attempt_count, t.claimed_by,
                (b.status = 'publishing' AND b.claimed_by IS NOT NULL) AS taken_over,
                CASE WHEN b.status = 'scheduled' THEN p.schedule_at ELSE b.next_attempt_at END AS due_at,
                (b.first_claimed_at IS NULL) AS first_claim, b.attempt_id, b.worker_id
     ), interrupted AS (
       UPDATE target_attempts a SET finished_at = now(), outcome = 'interrupted', duration_ms = (extract(epoch FROM now() - a.started_at) * 1000)::int
         FROM claimed c WHERE c.taken_over AND a.workspace_id = c.workspace_id AND a.target_id = c.id AND a.finished_at IS NULL
     ), opened AS (
       INSERT INTO target_attempts (id, workspace_id, target_id, worker_id) SELECT attempt_id, workspace_id, id, worker_id FROM claimed
     )
     SELECT id, workspace_id, post_id, platform, connection_id, claim_token, attempt_count, claimed_by, taken_over, due_at, first_claim, attempt_id
       FROM claimed`,
    [
      requests.map((r) => r.targetId),
      requests.map((r) => r.scheduleAt),
      requests.map((r) => r.jobId),
      requests.map((r) => r.attemptId),
      requests.map((r) => r.workerId),
    ],
  );
  return rows;
}
export async function finishAttempts(
  db: Queryable,
  attempts: Array<FinishAttempt & { workspaceId: string; attemptId: string }>,
): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `UPDATE target_attempts a SET finished_at = now(), outcome = f.outcome, error_code = f.error_code, error = f.error::jsonb,
            duration_ms = (extract(epoch FROM now() - a.started_at) * 1000)::int
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[]) AS f(workspace_id, id, outcome, error_code, error)
      WHERE a.workspace_id = f.workspace_id AND a.id = f.id`,
    [
      attempts.map((a) => a.workspaceId),
      attempts.map((a) => a.attemptId),
      attempts.map((a) => a.outcome),
      attempts.map((a) => a.errorCode),
      attempts.map((a) => (a.error === null ? null : JSON.stringify(a.error))),
    ],
  );
}
/** Ends several claims; returns the ids of the targets whose claim still held (the others changed nothing). */
export async function settleTargets(
  db: Queryable,
  targets: Array<Settlement & { workspaceId: string; targetId: string; token: number }>,
): Promise<Set<string>> {
  if (targets.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `UPDATE post_targets t SET status = s.status, claimed_by = NULL, next_attempt_at = NULL, error = s.error::jsonb,
            platform_post_id = coalesce(s.platform_post_id, t.platform_post_id), url = coalesce(s.url, t.url),
            published_at = CASE WHEN s.status = 'published' THEN now() ELSE t.published_at END, updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
              AS s(workspace_id, id, token, status, error, platform_post_id, url)
      WHERE t.workspace_id = s.workspace_id AND t.id = s.id AND t.claim_token = s.token AND t.status = 'publishing'
     RETURNING t.id`,
    [
      targets.map((t) => t.workspaceId),
      targets.map((t) => t.targetId),
      targets.map((t) => t.token),
      targets.map((t) => t.status),
      targets.map((t) => (t.error === null ? null : JSON.stringify(t.error))),
      targets.map((t) => t.platformPostId ?? null),
      targets.map((t) => t.url ?? null),
    ],
  );
  return new Set(rows.map((r) => r.id));
}
