// SQL for post_targets and target_attempts, both owned here and by targets.batches.repo.ts (docs/tables.md): a
// post's targets as the posts and connections features change them, and one claim's own writes. Every write after a claim is fenced
// by the claim token: a worker that lost its claim (it was presumed dead and another took over) changes nothing.
import { RUNNING_JOB } from '../../app/publish-queue.ts';
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { TargetStatus } from '../posts/posts.repo.ts';
import { moveParts } from './target-parts.repo.ts';
import { finishAttempts, settleTargets, type FinishAttempt, type Settlement } from './targets.batches.repo.ts';

export type { ClaimedTarget, ClaimRequest, FinishAttempt, Settlement } from './targets.batches.repo.ts';

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

export async function finishAttempt(
  db: Queryable,
  workspaceId: string,
  attemptId: string,
  f: FinishAttempt,
): Promise<void> {
  await finishAttempts(db, [{ workspaceId, attemptId, ...f }]);
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
