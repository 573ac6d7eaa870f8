// SQL of queue_claims (owned here; migration 0035): slots given to adds by a claim transaction, until each add's
// own transaction writes its post there and deletes the claim (posts_create_claimed). Every function takes the
// workspace id; all run under the queue's row lock.
import type { Queryable } from '../../db/pool.ts';

/** How long a claim holds its slot for an add that has not written its post (a failed add's slot comes back then). */
export const CLAIM_TTL_SECONDS = 60;

/**
 * Deletes the queue's expired claims (their adds failed, or are very late) and moves the queue's fill hint back to
 * the earliest of them, so `next` finds their slots again; returns that earliest slot (null: none expired).
 * `skipLocked`: claims an add is deleting right now (it writes its post) are left alone; a claim transaction needs
 * it, since adds go on beside it.
 */
export async function reapClaims(
  db: Queryable,
  workspaceId: string,
  queueId: string,
  skipLocked: boolean,
): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `WITH gone AS (
       DELETE FROM queue_claims WHERE ctid IN (
         SELECT ctid FROM queue_claims WHERE queue_id = $2 AND workspace_id = $1 AND expires_at < now()
            FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''})
       RETURNING slot),
     moved AS (
       UPDATE queues SET fill_hint = least(fill_hint, (SELECT min(slot) FROM gone))
        WHERE workspace_id = $1 AND id = $2 AND fill_hint IS NOT NULL AND EXISTS (SELECT 1 FROM gone))
     SELECT min(slot) AS at FROM gone`,
    [workspaceId, queueId],
  );
  return rows[0]?.at ?? null;
}

/**
 * Claims for `claimIds.length` `next` adds in one statement (queue_claims_take, migration 0035): the first free of
 * `candidates` (the queue's consecutive slots from `start`, by the rules of the row as of `updatedAt`) from the fill
 * hint on, or null when they cannot answer (the caller then claims from the locked row).
 */
export async function takeClaims(
  db: Queryable,
  workspaceId: string,
  queueId: string,
  c: { updatedAt: Date; now: Date; start: Date; candidates: readonly Date[]; claimIds: readonly string[] },
  lockTimeoutMs: number,
): Promise<Date[] | null> {
  const { rows } = await db.query<{ slots: Date[] | null }>({
    name: 'queues.claims-take',
    text: `SELECT queue_claims_take($1, $2, $3, $4, $5, $6, $7, $8, $9) AS slots`,
    values: [
      workspaceId,
      queueId,
      c.updatedAt,
      c.now,
      c.start,
      c.candidates,
      c.claimIds,
      CLAIM_TTL_SECONDS,
      `${lockTimeoutMs}ms`,
    ],
  });
  return rows[0]?.slots ?? null;
}

/** Records the claims (slot and claim id, in pairs) and moves the fill hint to `hint` when given. */
export async function insertClaims(
  db: Queryable,
  workspaceId: string,
  queueId: string,
  claims: ReadonlyArray<{ slot: Date; claimId: string }>,
  hint: Date | null,
): Promise<void> {
  await db.query(
    `WITH c AS (
       INSERT INTO queue_claims (queue_id, slot, workspace_id, claim_id, expires_at)
       SELECT $2, s, $1, c, now() + make_interval(secs => $5)
         FROM unnest($3::timestamptz[], $4::text[]) AS x(s, c))
     UPDATE queues SET fill_hint = coalesce($6, fill_hint) WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, queueId, claims.map((c) => c.slot), claims.map((c) => c.claimId), CLAIM_TTL_SECONDS, hint],
  );
}

/** Drops every claim of the queue (its rules changed: the claimed slots may not exist any more). */
export async function dropClaims(db: Queryable, workspaceId: string, queueId: string): Promise<void> {
  await db.query(`DELETE FROM queue_claims WHERE queue_id = $2 AND workspace_id = $1`, [workspaceId, queueId]);
}
