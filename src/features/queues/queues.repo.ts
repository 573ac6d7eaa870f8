// SQL of the queues table (owned here; migration 0032). Every function takes the workspace id. The posts' place
// in a queue (posts.queue_id, queue_slot) is written through src/features/posts/posts.queue.repo.ts.
import type { Queryable } from '../../db/pool.ts';
import type { WeeklySlot } from './queues.slots.ts';
import type { GapPolicy } from './queues.schemas.ts';

export interface QueueRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  name: string;
  connection_ids: string[] | null;
  slots: WeeklySlot[];
  /** `YYYY-MM-DD`. */
  pauses: string[];
  min_spacing_minutes: number;
  gap_policy: GapPolicy;
  /**
   * Every slot from now up to this instant is taken (a lower bound of where the next free slot is, kept under the
   * queue's row lock), so adding at `next` scans from here, not from now; NULL: scan from now.
   */
  fill_hint: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface QueueFields {
  name: string;
  connectionIds: string[] | null;
  slots: WeeklySlot[];
  pauses: string[];
  minSpacingMinutes: number;
  gapPolicy: GapPolicy;
}

// pauses as `YYYY-MM-DD` text (a date column would come back as a Date at local midnight).
const COLUMNS = `id, workspace_id, brand_id, name, connection_ids, slots,
  (SELECT coalesce(array_agg(to_char(d, 'YYYY-MM-DD') ORDER BY d), '{}') FROM unnest(pauses) AS d) AS pauses,
  min_spacing_minutes, gap_policy, fill_hint, created_at, updated_at`;

export async function insertQueue(
  db: Queryable,
  workspaceId: string,
  q: QueueFields & { id: string; brandId: string },
): Promise<QueueRow> {
  const { rows } = await db.query<QueueRow>(
    `INSERT INTO queues (id, workspace_id, brand_id, name, connection_ids, slots, pauses, min_spacing_minutes, gap_policy)
     VALUES ($1, $2, $3, $4, $5, $6, $7::date[], $8, $9) RETURNING ${COLUMNS}`,
    [
      q.id,
      workspaceId,
      q.brandId,
      q.name,
      q.connectionIds,
      JSON.stringify(q.slots),
      q.pauses,
      q.minSpacingMinutes,
      q.gapPolicy,
    ],
  );
  return rows[0]!;
}

/** `lock`: the row lock every change of the queue's slots or posts takes first, so they happen one at a time. */
export async function findQueue(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<QueueRow | null> {
  const { rows } = await db.query<QueueRow>(
    `SELECT ${COLUMNS} FROM queues WHERE workspace_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

/**
 * The queue locked for a claim transaction (src/features/queues/queues.claims.ts), as queue_claims_take locks it
 * (migration 0035): `lock_timeout` bounds the wait, so a claim transaction that cannot lock the queue soon gives up
 * (its adds take the locked path) rather than wait on a transaction that itself waits for a claim; its commit does
 * not wait for the disk (a post written at a claim commits later, and its flush carries the claim's).
 */
export async function lockQueueForClaims(
  db: Queryable,
  workspaceId: string,
  id: string,
  timeoutMs: number,
): Promise<QueueRow | null> {
  await db.query(`SELECT set_config('lock_timeout', $1, true), set_config('synchronous_commit', 'off', true)`, [
    `${timeoutMs}ms`,
  ]);
  const { rows } = await db.query<QueueRow>(
    `SELECT ${COLUMNS} FROM queues WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

/** The brand's queues, oldest first (at most `limit`): a post names its queue when the brand has more than one. */
export async function findBrandQueues(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  limit: number,
): Promise<QueueRow[]> {
  const { rows } = await db.query<QueueRow>(
    `SELECT ${COLUMNS} FROM queues WHERE workspace_id = $1 AND brand_id = $2 ORDER BY created_at, id LIMIT $3`,
    [workspaceId, brandId, limit],
  );
  return rows;
}

/** Queues of the workspace, newest first; `brandIds` null: every brand. */
export async function listQueues(
  db: Queryable,
  workspaceId: string,
  brandIds: readonly string[] | null,
): Promise<QueueRow[]> {
  const { rows } = await db.query<QueueRow>(
    `SELECT ${COLUMNS} FROM queues WHERE workspace_id = $1 AND ($2::text[] IS NULL OR brand_id = ANY($2))
      ORDER BY created_at DESC, id DESC LIMIT 500`,
    [workspaceId, brandIds],
  );
  return rows;
}

export async function updateQueue(
  db: Queryable,
  workspaceId: string,
  id: string,
  q: QueueFields,
  resetHint: boolean,
): Promise<QueueRow> {
  const { rows } = await db.query<QueueRow>(
    `UPDATE queues SET name = $3, connection_ids = $4, slots = $5, pauses = $6::date[], min_spacing_minutes = $7,
            gap_policy = $8, fill_hint = CASE WHEN $9 THEN NULL ELSE fill_hint END, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [
      workspaceId,
      id,
      q.name,
      q.connectionIds,
      JSON.stringify(q.slots),
      q.pauses,
      q.minSpacingMinutes,
      q.gapPolicy,
      resetHint,
    ],
  );
  return rows[0]!;
}

/** Moves the fill hint (see QueueRow.fill_hint); `at` null forgets it. Under the queue's row lock. */
export async function setFillHint(db: Queryable, workspaceId: string, id: string, at: Date | null): Promise<void> {
  await db.query(`UPDATE queues SET fill_hint = $3 WHERE workspace_id = $1 AND id = $2`, [workspaceId, id, at]);
}

export async function deleteQueue(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM queues WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}
