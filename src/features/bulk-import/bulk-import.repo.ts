// SQL of `post_imports` and `post_import_rows` (docs/tables.md: this feature owns both). Every function takes the
// workspace id. A row's outcome is claimed by inserting it (unique per import and row) in the transaction that
// creates its post: a second run of the same row waits for the first, then finds the row taken and does nothing.
import type { Queryable } from '../../db/pool.ts';
import type { RowError } from './bulk-import.rows.ts';

export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed';

/** What the job needs of the caller to create the posts as the caller would have. */
export interface ImportContext {
  brand_id: string | null;
  brand_from_header: boolean;
  allowed_brand_ids: string[] | null;
  user_id: string | null;
}

export interface ImportRecord {
  id: string;
  workspace_id: string;
  brand_id: string | null;
  media_id: string | null;
  rows_sha256: string;
  rows: Record<string, unknown>[];
  context: ImportContext;
  status: ImportStatus;
  total: number;
  error: { code: string; message: string } | null;
  /** The approval batch the import's held posts join (docs/approvals.md "Items, history and batches"); null when none was held. */
  approval_batch_id: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export interface ImportRowRecord {
  row: number;
  status: 'ok' | 'error';
  post_id: string | null;
  errors: RowError[];
}

export interface ImportCounts {
  done: number;
  created: number;
  failed: number;
}

const COLUMNS = `id, workspace_id, brand_id, media_id, rows_sha256, rows, context, status, total, error,
  approval_batch_id, created_by, created_at, updated_at, completed_at`;

/** The new import, or undefined when this workspace already imported that media (the unique index). */
export async function insertImport(
  db: Queryable,
  record: Pick<
    ImportRecord,
    'id' | 'workspace_id' | 'brand_id' | 'media_id' | 'rows_sha256' | 'rows' | 'context' | 'total' | 'created_by'
  >,
): Promise<ImportRecord | undefined> {
  const { rows } = await db.query<ImportRecord>(
    `INSERT INTO post_imports (id, workspace_id, brand_id, media_id, rows_sha256, rows, context, status, total, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9)
     ON CONFLICT (workspace_id, media_id) WHERE media_id IS NOT NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      record.id,
      record.workspace_id,
      record.brand_id,
      record.media_id,
      record.rows_sha256,
      JSON.stringify(record.rows),
      JSON.stringify(record.context),
      record.total,
      record.created_by,
    ],
  );
  return rows[0];
}

export async function findImport(
  db: Queryable,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ImportRecord | undefined> {
  const { rows } = await db.query<ImportRecord>(
    `SELECT ${COLUMNS} FROM post_imports WHERE workspace_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function findImportOfMedia(
  db: Queryable,
  workspaceId: string,
  mediaId: string,
): Promise<ImportRecord | undefined> {
  const { rows } = await db.query<ImportRecord>(
    `SELECT ${COLUMNS} FROM post_imports WHERE workspace_id = $1 AND media_id = $2`,
    [workspaceId, mediaId],
  );
  return rows[0];
}

/** Moves the import to `status` from one of `from`; undefined when it was not in one of them. */
export async function moveImport(
  db: Queryable,
  workspaceId: string,
  id: string,
  from: readonly ImportStatus[],
  status: ImportStatus,
  error: ImportRecord['error'] = null,
): Promise<ImportRecord | undefined> {
  const { rows } = await db.query<ImportRecord>(
    `UPDATE post_imports
        SET status = $4, error = $5, updated_at = now(),
            completed_at = CASE WHEN $4 IN ('completed', 'failed') THEN now() ELSE completed_at END
      WHERE workspace_id = $1 AND id = $2 AND status = ANY($3::text[])
      RETURNING ${COLUMNS}`,
    [workspaceId, id, from, status, error ? JSON.stringify(error) : null],
  );
  return rows[0];
}

/** Claims one row for this run: false when another run already recorded (or is recording) it. */
export async function claimRow(db: Queryable, workspaceId: string, importId: string, row: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO post_import_rows (import_id, workspace_id, row, status) VALUES ($1, $2, $3, 'error')
     ON CONFLICT (import_id, row) DO NOTHING`,
    [importId, workspaceId, row],
  );
  return rowCount === 1;
}

/** Records the claimed row's outcome (in the transaction that claimed it). */
export async function recordRow(
  db: Queryable,
  workspaceId: string,
  importId: string,
  result: ImportRowRecord,
): Promise<void> {
  await db.query(
    `UPDATE post_import_rows SET status = $4, post_id = $5, errors = $6
      WHERE workspace_id = $1 AND import_id = $2 AND row = $3`,
    [workspaceId, importId, result.row, result.status, result.post_id, JSON.stringify(result.errors)],
  );
}

/** The rows recorded so far, in order. */
export async function listRows(db: Queryable, workspaceId: string, importId: string): Promise<ImportRowRecord[]> {
  const { rows } = await db.query<ImportRowRecord>(
    `SELECT row, status, post_id, errors FROM post_import_rows
      WHERE workspace_id = $1 AND import_id = $2 ORDER BY row`,
    [workspaceId, importId],
  );
  return rows;
}

/** The rows already recorded (so a retried run skips them without a transaction each). */
export async function recordedRows(db: Queryable, workspaceId: string, importId: string): Promise<Set<number>> {
  const { rows } = await db.query<{ row: number }>(
    'SELECT row FROM post_import_rows WHERE workspace_id = $1 AND import_id = $2',
    [workspaceId, importId],
  );
  return new Set(rows.map((r) => r.row));
}

/** The platforms of these connections of the workspace (a row that names connections but no platforms). */
export async function connectionPlatforms(
  db: Queryable,
  workspaceId: string,
  ids: string[],
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; platform: string }>(
    'SELECT id, platform FROM connections WHERE workspace_id = $1 AND id = ANY($2::text[])',
    [workspaceId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.platform]));
}

/** The import's approval batch, locking its row: a run that resumes finds the batch an earlier run opened. */
export async function lockBatchId(db: Queryable, workspaceId: string, id: string): Promise<string | null> {
  const { rows } = await db.query<{ approval_batch_id: string | null }>(
    `SELECT approval_batch_id FROM post_imports WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
    [workspaceId, id],
  );
  return rows[0]?.approval_batch_id ?? null;
}

export async function setBatchId(db: Queryable, workspaceId: string, id: string, batchId: string | null) {
  await db.query(`UPDATE post_imports SET approval_batch_id = $3 WHERE workspace_id = $1 AND id = $2`, [
    workspaceId,
    id,
    batchId,
  ]);
}

/** Removes a batch no item joined (the import held none of its posts): true when it was removed. */
export async function dropEmptyBatch(db: Queryable, workspaceId: string, batchId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM approval_batches b WHERE b.workspace_id = $1 AND b.id = $2
        AND NOT EXISTS (SELECT 1 FROM approval_items i WHERE i.batch_id = b.id)`,
    [workspaceId, batchId],
  );
  return (rowCount ?? 0) > 0;
}
