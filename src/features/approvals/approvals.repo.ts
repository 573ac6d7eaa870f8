// SQL of the approvals tables (docs/tables.md: this feature owns approval_policies, approval_items,
// approval_batches and approval_events). Every function takes the workspace id, except the expiry sweep's read at
// the end, which looks across workspaces on purpose.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { DEFAULT_POLICY, type BrandOverride, type Policy, type PolicyFields } from './approvals.policy.ts';

export const ITEM_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled', 'superseded'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export const ITEM_KINDS = ['post', 'inbox_reply'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const ACTION_TYPES = ['publish_now', 'schedule', 'send_reply'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const HISTORY_TYPES = [
  'submit',
  'approve',
  'reject',
  'edit',
  'comment',
  'expire',
  'supersede',
  'cancel',
] as const;
export type HistoryType = (typeof HISTORY_TYPES)[number];

export interface ItemRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  batch_id: string | null;
  kind: ItemKind;
  subject_type: string;
  subject_id: string;
  action_type: ActionType;
  action_at: Date | null;
  source_type: string;
  source_id: string | null;
  platforms: string[];
  preview: Record<string, unknown>;
  version: number;
  status: ItemStatus;
  on_expire: 'to_draft' | 'cancel';
  requested_by: string | null;
  requested_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  reason: string | null;
  expires_at: Date | null;
}

export interface HistoryRow {
  id: number;
  item_id: string;
  type: HistoryType;
  actor_id: string | null;
  reason: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface BatchRow {
  id: string;
  workspace_id: string;
  source_type: string;
  source_id: string | null;
  status: 'open' | 'completed';
  created_at: Date;
  completed_at: Date | null;
}

const ITEM_COLUMNS = `id, workspace_id, brand_id, batch_id, kind, subject_type, subject_id, action_type, action_at,
  source_type, source_id, platforms, preview, version, status, on_expire, requested_by, requested_at, decided_by,
  decided_at, reason, expires_at`;

// ---- policy

interface PolicyRow extends PolicyFields {
  brand_overrides: Record<string, BrandOverride>;
  version: number;
  updated_at: Date;
}

export async function findPolicy(db: Queryable, workspaceId: string): Promise<Policy> {
  const { rows } = await db.query<PolicyRow>(
    `SELECT mode, sources, approver_roles, allow_self_approval, expire_after_seconds AS expire_after, on_expire,
            require_reject_reason, brand_overrides, version, updated_at
       FROM approval_policies WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows[0] ?? DEFAULT_POLICY;
}

/** Writes the whole policy when it is still at `expectedVersion` (0: none stored yet); undefined when it moved. */
export async function savePolicy(
  db: Queryable,
  workspaceId: string,
  expectedVersion: number,
  p: PolicyFields & { brand_overrides: Record<string, BrandOverride> },
): Promise<Policy | undefined> {
  const { rows } = await db.query<PolicyRow>(
    `INSERT INTO approval_policies AS p (workspace_id, mode, sources, approver_roles, allow_self_approval,
            expire_after_seconds, on_expire, require_reject_reason, brand_overrides)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (workspace_id) DO UPDATE SET mode = EXCLUDED.mode, sources = EXCLUDED.sources,
       approver_roles = EXCLUDED.approver_roles, allow_self_approval = EXCLUDED.allow_self_approval,
       expire_after_seconds = EXCLUDED.expire_after_seconds, on_expire = EXCLUDED.on_expire,
       require_reject_reason = EXCLUDED.require_reject_reason, brand_overrides = EXCLUDED.brand_overrides,
       version = p.version + 1, updated_at = now()
     WHERE p.version = $10
     RETURNING mode, sources, approver_roles, allow_self_approval, expire_after_seconds AS expire_after, on_expire,
       require_reject_reason, brand_overrides, version, updated_at`,
    [
      workspaceId,
      p.mode,
      p.sources,
      p.approver_roles,
      p.allow_self_approval,
      p.expire_after,
      p.on_expire,
      p.require_reject_reason,
      JSON.stringify(p.brand_overrides),
      expectedVersion,
    ],
  );
  // The write moved the version on by one from the one expected; a stale version wrote nothing (or inserted a
  // first row while the caller claimed a later version, which the caller's transaction then rolls back).
  return rows[0]?.version === expectedVersion + 1 ? rows[0] : undefined;
}

/** The caller's role in the workspace (reads the workspaces feature's memberships); undefined: not a member. */
export async function memberRole(db: Queryable, workspaceId: string, userId: string): Promise<MemberRole | undefined> {
  const { rows } = await db.query<{ role: MemberRole }>(
    'SELECT role FROM memberships WHERE workspace_id = $1 AND user_id = $2',
    [workspaceId, userId],
  );
  return rows[0]?.role;
}

// ---- items

export type NewItem = Omit<ItemRow, 'version' | 'status' | 'requested_at' | 'decided_by' | 'decided_at' | 'reason'>;

export async function insertItem(db: Queryable, i: NewItem): Promise<ItemRow> {
  const { rows } = await db.query<ItemRow>(
    `INSERT INTO approval_items (id, workspace_id, brand_id, batch_id, kind, subject_type, subject_id, action_type,
       action_at, source_type, source_id, platforms, preview, status, on_expire, requested_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', $14, $15, $16)
     RETURNING ${ITEM_COLUMNS}`,
    [
      i.id,
      i.workspace_id,
      i.brand_id,
      i.batch_id,
      i.kind,
      i.subject_type,
      i.subject_id,
      i.action_type,
      i.action_at,
      i.source_type,
      i.source_id,
      i.platforms,
      JSON.stringify(i.preview),
      i.on_expire,
      i.requested_by,
      i.expires_at,
    ],
  );
  return rows[0]!;
}

export async function findItem(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<ItemRow | undefined> {
  const { rows } = await db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM approval_items WHERE workspace_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

/** The open request on a subject, locked (at most one: a unique index). */
export async function findPendingItem(
  db: Queryable,
  workspaceId: string,
  subjectType: string,
  subjectId: string,
): Promise<ItemRow | undefined> {
  const { rows } = await db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM approval_items
      WHERE workspace_id = $1 AND subject_type = $2 AND subject_id = $3 AND status = 'pending' FOR UPDATE`,
    [workspaceId, subjectType, subjectId],
  );
  return rows[0];
}

/** Settles a pending item; every change of status moves its version on. */
export async function settleItem(
  db: Queryable,
  workspaceId: string,
  id: string,
  change: { status: Exclude<ItemStatus, 'pending'>; decidedBy: string | null; reason: string | null },
): Promise<ItemRow> {
  const { rows } = await db.query<ItemRow>(
    `UPDATE approval_items SET status = $3, decided_by = $4, decided_at = now(), reason = $5, version = version + 1
      WHERE workspace_id = $1 AND id = $2 RETURNING ${ITEM_COLUMNS}`,
    [workspaceId, id, change.status, change.decidedBy, change.reason],
  );
  return rows[0]!;
}

export interface ItemFilters {
  statuses?: ItemStatus[];
  kind?: ItemKind;
  sources?: string[];
  brandIds?: readonly string[];
  platform?: string;
  createdFrom?: Date;
  createdTo?: Date;
  batchId?: string;
}

/** One page, newest request first (keyset on requested_at, id); `limit` rows (the caller asks for one more). */
export async function listItems(
  db: Queryable,
  workspaceId: string,
  f: ItemFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<ItemRow[]> {
  const where = ['workspace_id = $1'];
  const values: unknown[] = [workspaceId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  // One status is an equality: the planner then walks approval_items_status_idx in order and stops at the page
  // (`= ANY` of a one-element array makes PostgreSQL before 17 read every row of the status and sort them).
  if (f.statuses?.length === 1) where.push(`status = ${param(f.statuses[0])}`);
  else if (f.statuses) where.push(`status = ANY(${param(f.statuses)}::text[])`);
  if (f.kind) where.push(`kind = ${param(f.kind)}`);
  if (f.sources) where.push(`source_type = ANY(${param(f.sources)}::text[])`);
  if (f.brandIds) where.push(`brand_id = ANY(${param(f.brandIds)}::text[])`);
  if (f.platform) where.push(`${param(f.platform)} = ANY(platforms)`);
  if (f.createdFrom) where.push(`requested_at >= ${param(f.createdFrom)}`);
  if (f.createdTo) where.push(`requested_at < ${param(f.createdTo)}`);
  if (f.batchId) where.push(`batch_id = ${param(f.batchId)}`);
  if (after) where.push(`(requested_at, id) < (${param(after.value)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM approval_items WHERE ${where.join(' AND ')}
      ORDER BY requested_at DESC, id DESC LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

export async function itemsByIds(db: Queryable, workspaceId: string, ids: string[]): Promise<ItemRow[]> {
  const { rows } = await db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM approval_items WHERE workspace_id = $1 AND id = ANY($2::text[]) ORDER BY id`,
    [workspaceId, ids],
  );
  return rows;
}

// ---- history (append-only)

export async function appendHistory(
  db: Queryable,
  workspaceId: string,
  itemId: string,
  entry: { type: HistoryType; actorId: string | null; reason?: string | null; data?: Record<string, unknown> },
): Promise<void> {
  await db.query(
    'INSERT INTO approval_events (workspace_id, item_id, type, actor_id, reason, data) VALUES ($1, $2, $3, $4, $5, $6)',
    [workspaceId, itemId, entry.type, entry.actorId, entry.reason ?? null, JSON.stringify(entry.data ?? {})],
  );
}

export async function listHistory(db: Queryable, workspaceId: string, itemId: string): Promise<HistoryRow[]> {
  const { rows } = await db.query<HistoryRow>(
    `SELECT id, item_id, type, actor_id, reason, data, created_at FROM approval_events
      WHERE workspace_id = $1 AND item_id = $2 ORDER BY id`,
    [workspaceId, itemId],
  );
  return rows;
}

// ---- batches

export async function insertBatch(
  db: Queryable,
  b: { id: string; workspaceId: string; sourceType: string; sourceId: string | null },
): Promise<BatchRow> {
  const { rows } = await db.query<BatchRow>(
    `INSERT INTO approval_batches (id, workspace_id, source_type, source_id, status) VALUES ($1, $2, $3, $4, 'open')
     RETURNING id, workspace_id, source_type, source_id, status, created_at, completed_at`,
    [b.id, b.workspaceId, b.sourceType, b.sourceId],
  );
  return rows[0]!;
}

export async function findBatch(db: Queryable, workspaceId: string, id: string): Promise<BatchRow | undefined> {
  const { rows } = await db.query<BatchRow>(
    `SELECT id, workspace_id, source_type, source_id, status, created_at, completed_at FROM approval_batches
      WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function completeBatch(db: Queryable, workspaceId: string, id: string): Promise<BatchRow | undefined> {
  const { rows } = await db.query<BatchRow>(
    `UPDATE approval_batches SET status = 'completed', completed_at = coalesce(completed_at, now())
      WHERE workspace_id = $1 AND id = $2 RETURNING id, workspace_id, source_type, source_id, status, created_at,
      completed_at`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function listBatches(
  db: Queryable,
  workspaceId: string,
  f: { status?: 'open' | 'completed' },
  after: CursorPosition | undefined,
  limit: number,
): Promise<BatchRow[]> {
  const where = ['workspace_id = $1'];
  const values: unknown[] = [workspaceId];
  if (f.status) {
    values.push(f.status);
    where.push(`status = $${values.length}`);
  }
  if (after) {
    values.push(after.value, after.id);
    where.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  values.push(limit);
  const { rows } = await db.query<BatchRow>(
    `SELECT id, workspace_id, source_type, source_id, status, created_at, completed_at FROM approval_batches
      WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  );
  return rows;
}

/** Items per status of each batch. */
export async function batchCounts(
  db: Queryable,
  workspaceId: string,
  batchIds: string[],
): Promise<Map<string, Partial<Record<ItemStatus, number>>>> {
  const counts = new Map<string, Partial<Record<ItemStatus, number>>>();
  if (batchIds.length === 0) return counts;
  const { rows } = await db.query<{ batch_id: string; status: ItemStatus; n: number }>(
    `SELECT batch_id, status, count(*)::int AS n FROM approval_items
      WHERE workspace_id = $1 AND batch_id = ANY($2::text[]) GROUP BY batch_id, status`,
    [workspaceId, batchIds],
  );
  for (const r of rows) counts.set(r.batch_id, { ...counts.get(r.batch_id), [r.status]: r.n });
  return counts;
}

// ---- across workspaces (the expiry sweep)

/**
 * Pending items past their expiry, oldest first, not locked: each is then locked (its post first, as a decision
 * locks it) and checked again in its own transaction.
 */
export async function dueForExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Array<Pick<ItemRow, 'id' | 'workspace_id' | 'brand_id' | 'requested_by'>>> {
  const { rows } = await db.query<Pick<ItemRow, 'id' | 'workspace_id' | 'brand_id' | 'requested_by'>>(
    `SELECT id, workspace_id, brand_id, requested_by FROM approval_items
      WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
  return rows;
}
