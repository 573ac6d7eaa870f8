// SQL for post_targets and target_attempts, both owned here (docs/tables.md): a post's targets as the posts
// and connections features change them, and the publishing engine's claims. Every write after a claim is fenced
// by the claim token: a worker that lost its claim (it was presumed dead and another took over) changes nothing.
import { RUNNING_JOB } from '../../app/publish-queue.ts';
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { TargetStatus } from '../posts/posts.repo.ts';
import { moveParts } from './target-parts.repo.ts';

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

export interface NewTarget {
  id: string;
  platform: PlatformName;
  connectionId: string | null;
  sandbox: boolean;
  status: TargetStatus;
}

// ---- Within one workspace: what the posts and connections features change, and one claim's own writes ----

export async function insertTargets(
  db: Queryable,
  workspaceId: string,
  postId: string,
  targets: NewTarget[],
): Promise<void> {
  if (targets.length === 0) return;
  await db.query(
    `INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status)
     SELECT t.id, $1, $2, t.ord - 1, t.platform, t.connection_id, t.sandbox, t.status
       FROM unnest($3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[]) WITH ORDINALITY AS t(id, platform, connection_id, sandbox, status, ord)`,
    [
      workspaceId,
      postId,
      targets.map((t) => t.id),
      targets.map((t) => t.platform),
      targets.map((t) => t.connectionId),
      targets.map((t) => t.sandbox),
      targets.map((t) => t.status),
    ],
  );
}

export async function setTargetStatus(
  db: Queryable,
  workspaceId: string,
  postId: string,
  from: TargetStatus[],
  to: TargetStatus,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE post_targets SET status = $4, updated_at = now()
      WHERE workspace_id = $1 AND post_id = $2 AND status = ANY($3::text[]) RETURNING id`,
    [workspaceId, postId, from, to],
  );
  return rows.map((r) => r.id);
}

/** Moves a target to another connection, its parts with it (call in one transaction). */
export async function setTargetConnection(
  db: Queryable,
  workspaceId: string,
  targetId: string,
  connectionId: string,
): Promise<void> {
  await db.query('UPDATE post_targets SET connection_id = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2', [
    workspaceId,
    targetId,
    connectionId,
  ]);
  await moveParts(db, workspaceId, targetId, connectionId);
}

export async function deleteTargets(db: Queryable, workspaceId: string, postId: string): Promise<void> {
  await db.query('DELETE FROM post_targets WHERE workspace_id = $1 AND post_id = $2', [workspaceId, postId]);
}

/** Marks targets to publish now (POST /publish, POST /retry, publish_now): unclaimed, due now. */
export async function makeTargetsDueNow(
  db: Queryable,
  workspaceId: string,
  postId: string,
  from: string[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE post_targets SET status = 'publishing', claimed_by = NULL, next_attempt_at = now(), error = NULL, updated_at = now()
      WHERE workspace_id = $1 AND post_id = $2 AND status = ANY($3::text[]) RETURNING id`,
    [workspaceId, postId, from],
  );
  return rows.map((r) => r.id);
}

/**
 * The post's targets a worker is publishing right now: `publishing` and claimed by a running job. A target that
 * waits between attempts (released, or left by a job that is no longer running) is not among them.
 */
export async function targetsInFlight(
  db: Queryable,
  workspaceId: string,
  postId: string,
): Promise<Array<{ id: string; platform: PlatformName }>> {
  const { rows } = await db.query<{ id: string; platform: PlatformName }>(
    `SELECT t.id, t.platform FROM post_targets t
      WHERE t.workspace_id = $1 AND t.post_id = $2 AND t.status = 'publishing' AND t.claimed_by IS NOT NULL
        AND ${RUNNING_JOB('t.claimed_by')}
      ORDER BY t.position`,
    [workspaceId, postId],
  );
  return rows;
}

/**
 * Cancels the post's targets that have not gone out and that no worker is publishing: pending, scheduled, or
 * `publishing` and waiting for an attempt. The claim token moves on, so a holder presumed dead that wakes up
 * writes nothing, and the attempt such a holder left open is closed as interrupted; the claim refuses a cancelled
 * target, so a job already queued for it does nothing. Call with the post locked. Returns the cancelled ids.
 */
export async function cancelTargets(db: Queryable, workspaceId: string, postId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH cancelled AS (
       UPDATE post_targets t SET status = 'cancelled', claimed_by = NULL, next_attempt_at = NULL,
              claim_token = t.claim_token + 1, updated_at = now()
        WHERE t.workspace_id = $1 AND t.post_id = $2
          AND (t.status IN ('pending', 'scheduled')
            OR (t.status = 'publishing' AND (t.claimed_by IS NULL OR NOT ${RUNNING_JOB('t.claimed_by')})))
       RETURNING t.id, t.workspace_id
     ), interrupted AS (
       UPDATE target_attempts a SET finished_at = now(), outcome = 'interrupted',
              duration_ms = (extract(epoch FROM now() - a.started_at) * 1000)::int
         FROM cancelled c WHERE a.workspace_id = c.workspace_id AND a.target_id = c.id AND a.finished_at IS NULL
     )
     SELECT id FROM cancelled`,
    [workspaceId, postId],
  );
  return rows.map((r) => r.id);
}

/**
 * Brings the next attempt of these targets forward to now where they wait between attempts (POST /retry); the
 * caller queues their jobs for now. Returns the ids it moved.
 */
export async function bringAttemptsForward(db: Queryable, workspaceId: string, targetIds: string[]): Promise<string[]> {
  if (targetIds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `UPDATE post_targets SET next_attempt_at = now(), updated_at = now()
      WHERE workspace_id = $1 AND id = ANY($2::text[]) AND status = 'publishing' RETURNING id`,
    [workspaceId, targetIds],
  );
  return rows.map((r) => r.id);
}

/** Scheduled targets that still depend on a connection. */
export async function scheduledTargetsOfConnection(
  db: Queryable,
  workspaceId: string,
  connectionId: string,
): Promise<Array<{ id: string; post_id: string }>> {
  const { rows } = await db.query<{ id: string; post_id: string }>(
    `SELECT id, post_id FROM post_targets WHERE workspace_id = $1 AND connection_id = $2 AND status = 'scheduled'`,
    [workspaceId, connectionId],
  );
  return rows;
}

/** Fails these targets with `error` where they are still scheduled (their connection is being disconnected). */
export async function failScheduledTargets(
  db: Queryable,
  workspaceId: string,
  targetIds: string[],
  error: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `UPDATE post_targets SET status = 'failed', error = $3, updated_at = now() WHERE workspace_id = $1 AND id = ANY($2::text[]) AND status = 'scheduled'`,
    [workspaceId, targetIds, JSON.stringify(error)],
  );
}

export interface FinishAttempt {
  outcome: 'published' | 'failed' | 'retry';
  errorCode: string | null;
  error: Record<string, unknown> | null;
}
export async function finishAttempt(
  db: Queryable,
  workspaceId: string,
  attemptId: string,
  f: FinishAttempt,
): Promise<void> {
  await finishAttempts(db, [{ workspaceId, attemptId, ...f }]);
}
export interface Settlement {
  status: 'published' | 'failed';
  platformPostId?: string;
  url?: string;
  error: Record<string, unknown> | null;
}
/** Ends the claim with a final state. False when the claim was lost. */
export async function settleTarget(
  db: Queryable,
  workspaceId: string,
  targetId: string,
  token: number,
  s: Settlement,
): Promise<boolean> {
  return (await settleTargets(db, [{ workspaceId, targetId, token, ...s }])).has(targetId);
}
/** Releases the claim until `at` (a retry, or a wait for a rate-limit reset), keeping the last error visible. */
export async function releaseTarget(
  db: Queryable,
  workspaceId: string,
  targetId: string,
  token: number,
  at: Date,
  error: Record<string, unknown> | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE post_targets SET claimed_by = NULL, next_attempt_at = $4, error = $5, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND claim_token = $3 AND status = 'publishing'`,
    [workspaceId, targetId, token, at, error === null ? null : JSON.stringify(error)],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Releases the claim until `at` without counting it as an attempt (a target waiting for its media variants): the
 * attempt the claim opened is removed and `attempt_count` given back. False when the claim was lost.
 */
export async function deferTarget(
  db: Queryable,
  workspaceId: string,
  targetId: string,
  token: number,
  attemptId: string,
  at: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE post_targets SET claimed_by = NULL, next_attempt_at = $4, attempt_count = greatest(attempt_count - 1, 0),
            updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND claim_token = $3 AND status = 'publishing'`,
    [workspaceId, targetId, token, at],
  );
  if ((rowCount ?? 0) === 0) return false;
  await db.query('DELETE FROM target_attempts WHERE workspace_id = $1 AND id = $2', [workspaceId, attemptId]);
  return true;
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
 * Targets whose post has a media item still `processing` (media by URL, being fetched): they wait, without taking
 * an attempt, and look again in MEDIA_WAIT_SECONDS — until the fetch's deadline (`upload_expires_at`), after which
 * the target is claimed and fails on the media. A read of the media table (docs/tables.md: reads may join).
 */
export async function targetsAwaitingMedia(
  db: Queryable,
  targetIds: string[],
): Promise<Array<{ id: string; until: Date }>> {
  const { rows } = await db.query<{ id: string; until: Date }>(
    `SELECT t.id, now() + make_interval(secs => $2) AS until
       FROM post_targets t JOIN posts p ON p.id = t.post_id AND p.workspace_id = t.workspace_id
      WHERE t.id = ANY($1::text[]) AND cardinality(p.media_ids) > 0
        AND EXISTS (SELECT 1 FROM media m WHERE m.workspace_id = p.workspace_id AND m.id = ANY(p.media_ids)
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
