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

/**
 * The rules (slots and pauses) of queues this process has read through findQueuesReusingSlots, by id, with the
 * `updated_at` they were read at. Every change of a queue's rules moves its `updated_at` forward (updateQueue), so a
 * copy whose `updated_at` is the row's is the row's. Shared by the process (ids are unique across workspaces); the
 * oldest forgotten first.
 */
interface RulesCopy {
  id: string;
  brandId: string;
  updatedAt: Date;
  slots: WeeklySlot[];
  pauses: string[];
}
const rulesRead = new Map<string, RulesCopy>();
const RULES_KEPT = 1_000;

/**
 * Queues for the frequent reads (resolveQueue reads one for every queued post; the slot preview one per call): the
 * one named, or the brand's first `limit`, oldest first. A queue's slots are about 17 kB of JSON at most (336 of them), more to send and parse than
 * the rest of the add's reads together: the server sends them only when this process has no copy read at the row's
 * `updated_at`; otherwise the row comes back without them and takes the copy's.
 */
export async function findQueuesReusingSlots(
  db: Queryable,
  workspaceId: string,
  by: { id: string } | { brandId: string; limit: number },
): Promise<QueueRow[]> {
  const known: RulesCopy[] = [];
  if ('id' in by) {
    const copy = rulesRead.get(by.id);
    if (copy) known.push(copy);
  } else for (const copy of rulesRead.values()) if (copy.brandId === by.brandId) known.push(copy);
  const { rows } = await db.query<QueueRow>({
    name: 'id' in by ? 'queues.find-reusing-slots' : 'queues.find-brand-reusing-slots',
    text: `SELECT q.id, q.workspace_id, q.brand_id, q.name, q.connection_ids,
         CASE WHEN k.at = q.updated_at THEN NULL ELSE q.slots END AS slots,
         CASE WHEN k.at = q.updated_at THEN NULL ELSE (
           SELECT coalesce(array_agg(to_char(d, 'YYYY-MM-DD') ORDER BY d), '{}') FROM unnest(q.pauses) AS d) END AS pauses,
         q.min_spacing_minutes, q.gap_policy, q.fill_hint, q.created_at, q.updated_at
       FROM queues q LEFT JOIN unnest($3::text[], $4::timestamptz[]) AS k(id, at) ON k.id = q.id
      WHERE q.workspace_id = $1 AND ${'id' in by ? 'q.id = $2' : 'q.brand_id = $2 ORDER BY q.created_at, q.id LIMIT $5'}`,
    values: [
      workspaceId,
      'id' in by ? by.id : by.brandId,
      known.map((k) => k.id),
      known.map((k) => k.updatedAt),
      ...('id' in by ? [] : [by.limit]),
    ],
  });
  return rows.map((row) => {
    const copy = known.find((k) => k.id === row.id);
    if (row.slots === null && copy) return { ...row, slots: copy.slots, pauses: copy.pauses };
    rulesRead.delete(row.id);
    rulesRead.set(row.id, {
      id: row.id,
      brandId: row.brand_id,
      updatedAt: row.updated_at,
      slots: row.slots,
      pauses: row.pauses,
    });
    if (rulesRead.size > RULES_KEPT) rulesRead.delete(rulesRead.keys().next().value!);
    return row;
  });
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
            gap_policy = $8, fill_hint = CASE WHEN $9 THEN NULL ELSE fill_hint END,
            updated_at = greatest(now(), updated_at + interval '1 millisecond')
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
