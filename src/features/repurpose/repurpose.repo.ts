// SQL of `repurpose_jobs` (docs/tables.md: this feature owns it). Every function takes the workspace id. The job's
// state lives in its row: the worker claims a step with a conditional UPDATE, and the outputs are stored with the
// terminal status in one statement, so a second run of the same job finds it finished and does nothing.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';
import type { GeneratedBy } from '../ai/ai.types.ts';
import type { JobStatus } from './repurpose.schemas.ts';

export interface SourceSnapshot {
  title: string | null;
  excerpt: string;
  sha256: string;
  fetched_at: string;
}

export interface StoredOutput {
  id: string;
  platform: string;
  format: string;
  status: 'created' | 'failed';
  content: string;
  parts: string[];
  char_count: number;
  within_limit: boolean;
  hashtags: string[];
  post_id: string | null;
  approval_item_id: string | null;
  error: { rule: string; message: string } | null;
}

export interface JobRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  created_by: string;
  source: Record<string, unknown>;
  targets: { platform: string; format: string; count?: number }[];
  options: Record<string, unknown>;
  output: { mode: string; schedule?: { first_at: string; spacing_minutes?: number } };
  status: JobStatus;
  source_snapshot: SourceSnapshot | null;
  outputs: StoredOutput[];
  error: { code: string; message: string } | null;
  generated_by: GeneratedBy | null;
  approval_batch_id: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

const COLUMNS = `id, workspace_id, brand_id, created_by, source, targets, options, output, status, source_snapshot,
  outputs, error, generated_by, approval_batch_id, created_at, updated_at, completed_at`;

export async function insertJob(
  db: Queryable,
  job: Pick<JobRow, 'id' | 'workspace_id' | 'brand_id' | 'created_by' | 'source' | 'targets' | 'options' | 'output'>,
): Promise<JobRow> {
  const { rows } = await db.query<JobRow>(
    `INSERT INTO repurpose_jobs (id, workspace_id, brand_id, created_by, source, targets, options, output, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued') RETURNING ${COLUMNS}`,
    [
      job.id,
      job.workspace_id,
      job.brand_id,
      job.created_by,
      JSON.stringify(job.source),
      JSON.stringify(job.targets),
      JSON.stringify(job.options),
      JSON.stringify(job.output),
    ],
  );
  return rows[0]!;
}

export async function findJob(
  db: Queryable,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${COLUMNS} FROM repurpose_jobs WHERE workspace_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export interface JobFilters {
  statuses?: JobStatus[];
  brandIds?: readonly string[];
}

export async function listJobs(
  db: Queryable,
  workspaceId: string,
  filters: JobFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${COLUMNS} FROM repurpose_jobs
      WHERE workspace_id = $1
        AND ($2::text[] IS NULL OR status = ANY($2))
        AND ($3::text[] IS NULL OR brand_id = ANY($3))
        AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
      ORDER BY created_at DESC, id DESC
      LIMIT $6`,
    [workspaceId, filters.statuses ?? null, filters.brandIds ?? null, after?.value ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** Moves a job from one of `from` to `to`; undefined when it is in none of them (finished, cancelled). */
export async function moveJob(
  db: Queryable,
  workspaceId: string,
  id: string,
  from: readonly JobStatus[],
  to: JobStatus,
  snapshot?: SourceSnapshot,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `UPDATE repurpose_jobs
        SET status = $4, source_snapshot = COALESCE($5::jsonb, source_snapshot), updated_at = now(),
            completed_at = CASE WHEN $4 = 'cancelled' THEN now() ELSE completed_at END
      WHERE workspace_id = $1 AND id = $2 AND status = ANY($3)
      RETURNING ${COLUMNS}`,
    [workspaceId, id, from, to, snapshot ? JSON.stringify(snapshot) : null],
  );
  return rows[0];
}

/** The job's end: its terminal status with everything it produced, in one write. */
export async function finishJob(
  db: Queryable,
  workspaceId: string,
  id: string,
  end: {
    status: JobStatus;
    outputs: StoredOutput[];
    error: JobRow['error'];
    generatedBy: JobRow['generated_by'];
    approvalBatchId: string | null;
    snapshot?: SourceSnapshot;
  },
): Promise<JobRow> {
  const { rows } = await db.query<JobRow>(
    `UPDATE repurpose_jobs
        SET status = $3, outputs = $4, error = $5, generated_by = $6, approval_batch_id = $7,
            source_snapshot = COALESCE($8::jsonb, source_snapshot), updated_at = now(), completed_at = now()
      WHERE workspace_id = $1 AND id = $2
      RETURNING ${COLUMNS}`,
    [
      workspaceId,
      id,
      end.status,
      JSON.stringify(end.outputs),
      end.error ? JSON.stringify(end.error) : null,
      end.generatedBy ? JSON.stringify(end.generatedBy) : null,
      end.approvalBatchId,
      end.snapshot ? JSON.stringify(end.snapshot) : null,
    ],
  );
  return rows[0]!;
}
