// The import as the API shows it: progress counted from its recorded rows, and each row's result.
import type { Queryable } from '../../db/pool.ts';
import { listRows, type ImportRecord } from './bulk-import.repo.ts';

export async function renderImport(db: Queryable, record: ImportRecord) {
  const rows = await listRows(db, record.workspace_id, record.id);
  const created = rows.filter((r) => r.status === 'ok').length;
  return {
    id: record.id,
    object: 'post_import' as const,
    status: record.status,
    source: { type: record.media_id ? ('csv' as const) : ('rows' as const), media_id: record.media_id },
    total: record.total,
    done: rows.length,
    created,
    failed: rows.length - created,
    rows: rows.map((r) => ({ row: r.row, status: r.status, post_id: r.post_id, errors: r.errors })),
    error: record.error,
    approval_batch_id: record.approval_batch_id,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
    completed_at: record.completed_at ? record.completed_at.toISOString() : null,
  };
}
