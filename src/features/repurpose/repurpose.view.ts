// The repurpose job as the API answers it (RepurposeJob in repurpose.view.schemas.ts), from its stored row.
import type { JobRow } from './repurpose.repo.ts';

export function renderJob(row: JobRow) {
  return {
    id: row.id,
    object: 'repurpose_job' as const,
    brand_id: row.brand_id,
    source: row.source,
    targets: row.targets.map((t) => ({ ...t, count: t.count ?? 1 })),
    options: row.options,
    output: row.output,
    status: row.status,
    source_snapshot: row.source_snapshot,
    outputs: row.outputs,
    error: row.error,
    generated_by: row.generated_by,
    approval_batch_id: row.approval_batch_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

export type RepurposeJobView = ReturnType<typeof renderJob>;
