// SQL of the runs that arrive together (automations.batch.ts): each statement acts on a whole batch of runs, each
// run carrying its workspace id, so a burst of due slots costs a few statements per batch instead of per run.
// A run's automation is joined by its id alone (a run is its automation's, in the same workspace): joined by the
// workspace too, the planner may walk every automation of the workspace once per run.
import type { Queryable } from '../../db/pool.ts';
import { COLUMNS, RUN_COLUMNS, type AutomationRow, type Failure, type RunRow } from './automations.repo.ts';

export interface RunRef {
  workspaceId: string;
  runId: string;
}

/** A run with its automation, as one row returns them (the run's columns prefixed `run_`). */
export interface RunWithAutomation {
  run: RunRow;
  automation: AutomationRow;
}

const names = (columns: string) => columns.split(',').map((c) => c.trim());
const BOTH = [...names(COLUMNS).map((c) => `a.${c}`), ...names(RUN_COLUMNS).map((c) => `r.${c} AS run_${c}`)].join(
  ', ',
);

function split(row: Record<string, unknown>): RunWithAutomation {
  const run: Record<string, unknown> = {};
  const automation: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('run_')) run[key.slice(4)] = value;
    else automation[key] = value;
  }
  return { run: run as unknown as RunRow, automation: automation as unknown as AutomationRow };
}

/**
 * Marks the runs that are not finished `running` and answers them with their automations; a run finished (or
 * gone, or whose automation is gone) is not answered.
 */
export async function startRuns(db: Queryable, runs: RunRef[]): Promise<RunWithAutomation[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `UPDATE automation_runs r SET status = 'running', started_at = COALESCE(r.started_at, now())
       FROM unnest($1::uuid[], $2::text[]) AS w(workspace_id, id), automations a
      WHERE r.workspace_id = w.workspace_id AND r.id = w.id AND r.status IN ('queued', 'running')
        AND a.id = r.automation_id
      RETURNING ${BOTH}`,
    [runs.map((r) => r.workspaceId), runs.map((r) => r.runId)],
  );
  return rows.map(split);
}

/** Locks the runs and their automations, in automation then run order (so two batches cannot deadlock). */
export async function lockRuns(db: Queryable, runs: RunRef[]): Promise<RunWithAutomation[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT ${BOTH}
       FROM unnest($1::uuid[], $2::text[]) AS w(workspace_id, id)
       JOIN automation_runs r ON r.workspace_id = w.workspace_id AND r.id = w.id
       JOIN automations a ON a.id = r.automation_id
      ORDER BY a.id, r.id FOR UPDATE OF r, a`,
    [runs.map((r) => r.workspaceId), runs.map((r) => r.runId)],
  );
  return rows.map(split);
}

export type RunEnd = Pick<
  RunRow,
  'status' | 'items_seen' | 'items_new' | 'posts_created' | 'approval_batch_id' | 'error'
>;

/** Each run's end with everything it produced, in one write; answers the rows by run id. */
export async function finishRuns(
  db: Queryable,
  ends: Array<{ workspaceId: string; runId: string; end: RunEnd }>,
): Promise<Map<string, RunRow>> {
  if (ends.length === 0) return new Map();
  const { rows } = await db.query<RunRow>(
    `UPDATE automation_runs r
        SET status = v.status, items_seen = v.items_seen, items_new = v.items_new, posts_created = v.posts_created,
            approval_batch_id = v.approval_batch_id, error = v.error,
            started_at = COALESCE(r.started_at, now()), finished_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS v(workspace_id uuid, id text, status text, items_seen integer,
              items_new integer, posts_created text[], approval_batch_id text, error jsonb)
      WHERE r.workspace_id = v.workspace_id AND r.id = v.id
      RETURNING ${names(RUN_COLUMNS)
        .map((c) => `r.${c}`)
        .join(', ')}`,
    [JSON.stringify(ends.map((e) => ({ workspace_id: e.workspaceId, id: e.runId, ...e.end })))],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** What runs leave on their automation: the last run, the failure count, perhaps a cursor and the pause. */
export interface RunOutcome {
  workspaceId: string;
  automationId: string;
  lastRunAt: Date;
  consecutiveFailures: number;
  lastError: Failure | null;
  /** Absent: the cursor stays. */
  cursor?: number;
  pause: boolean;
}

/** One write for the automations of a batch (one outcome per automation); answers the rows by automation id. */
export async function recordOutcomes(db: Queryable, outcomes: RunOutcome[]): Promise<Map<string, AutomationRow>> {
  if (outcomes.length === 0) return new Map();
  const { rows } = await db.query<AutomationRow>(
    `UPDATE automations a
        SET last_run_at = v.last_run_at, consecutive_failures = v.consecutive_failures, last_error = v.last_error,
            cursor = COALESCE(v.cursor, a.cursor),
            status = CASE WHEN v.pause THEN 'paused' ELSE a.status END,
            next_run_at = CASE WHEN v.pause THEN NULL ELSE a.next_run_at END,
            updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS v(workspace_id uuid, id text, last_run_at timestamptz,
              consecutive_failures integer, last_error jsonb, cursor integer, pause boolean)
      WHERE a.workspace_id = v.workspace_id AND a.id = v.id
      RETURNING ${names(COLUMNS)
        .map((c) => `a.${c}`)
        .join(', ')}`,
    [
      JSON.stringify(
        outcomes.map((o) => ({
          workspace_id: o.workspaceId,
          id: o.automationId,
          last_run_at: o.lastRunAt.toISOString(),
          consecutive_failures: o.consecutiveFailures,
          last_error: o.lastError,
          cursor: o.cursor ?? null,
          pause: o.pause,
        })),
      ),
    ],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
