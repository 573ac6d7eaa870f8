// SQL of `automations`, `automation_runs` and `automation_seen_items` (docs/tables.md: this feature owns them).
// Every function takes the workspace id, but for the scheduler's scans at the end of the file, which act across
// workspaces on purpose. A run is one row per (automation, slot): inserting it is how a slot is claimed.
import type { CursorPosition } from '../../app/cursor.ts';
import type { Queryable } from '../../db/pool.ts';
import type { AutomationStatus, RunStatus, RunTrigger } from './automations.schemas.ts';

export interface Failure {
  code: string;
  message: string;
}

export interface AutomationRow {
  id: string;
  workspace_id: string;
  brand_id: string;
  name: string;
  status: AutomationStatus;
  source: { type: string; rrule?: string; timezone?: string; feed_url?: string; event?: string };
  generator: { type: string; template?: string; items?: string[]; topic?: string; format?: string; count?: number };
  destinations: { connection_id?: string; platform?: string; content_override?: string }[];
  output: { mode: string; schedule_expr?: string };
  options: {
    utm?: { source?: string; medium?: string; campaign?: string };
    use_item_image?: boolean;
    hashtags?: string[];
    max_items_per_run?: number;
    backfill?: boolean;
  };
  cursor: number;
  event_cursor: string | null;
  next_run_at: Date | null;
  last_run_at: Date | null;
  last_error: Failure | null;
  consecutive_failures: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface RunRow {
  id: string;
  automation_id: string;
  workspace_id: string;
  slot: string;
  trigger: RunTrigger;
  status: RunStatus;
  started_at: Date | null;
  finished_at: Date | null;
  items_seen: number;
  items_new: number;
  posts_created: string[];
  approval_batch_id: string | null;
  error: Failure | null;
  created_at: Date;
}

export const COLUMNS = `id, workspace_id, brand_id, name, status, source, generator, destinations, output, options, cursor,
  event_cursor, next_run_at, last_run_at, last_error, consecutive_failures, created_by, created_at, updated_at`;
export const RUN_COLUMNS = `id, automation_id, workspace_id, slot, trigger, status, started_at, finished_at, items_seen,
  items_new, posts_created, approval_batch_id, error, created_at`;

export type NewAutomation = Pick<
  AutomationRow,
  | 'id'
  | 'workspace_id'
  | 'brand_id'
  | 'name'
  | 'status'
  | 'source'
  | 'generator'
  | 'destinations'
  | 'output'
  | 'options'
  | 'event_cursor'
  | 'next_run_at'
  | 'created_by'
>;

export async function insertAutomation(db: Queryable, a: NewAutomation): Promise<AutomationRow> {
  const { rows } = await db.query<AutomationRow>(
    `INSERT INTO automations (id, workspace_id, brand_id, name, status, source, generator, destinations, output,
                              options, event_cursor, next_run_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
    [
      a.id,
      a.workspace_id,
      a.brand_id,
      a.name,
      a.status,
      JSON.stringify(a.source),
      JSON.stringify(a.generator),
      JSON.stringify(a.destinations),
      JSON.stringify(a.output),
      JSON.stringify(a.options),
      a.event_cursor,
      a.next_run_at,
      a.created_by,
    ],
  );
  return rows[0]!;
}

export async function findAutomation(
  db: Queryable,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<AutomationRow | undefined> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations WHERE workspace_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export interface AutomationFilters {
  statuses?: AutomationStatus[];
  brandIds?: readonly string[];
}

/** Newest first; archived automations only when asked for by status. */
export async function listAutomations(
  db: Queryable,
  workspaceId: string,
  filters: AutomationFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations
      WHERE workspace_id = $1
        AND (CASE WHEN $2::text[] IS NULL THEN status <> 'archived' ELSE status = ANY($2) END)
        AND ($3::text[] IS NULL OR brand_id = ANY($3))
        AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
      ORDER BY created_at DESC, id DESC
      LIMIT $6`,
    [workspaceId, filters.statuses ?? null, filters.brandIds ?? null, after?.value ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** The columns a change may set; absent keys are left as they are. */
export interface AutomationChange {
  name?: string;
  status?: AutomationStatus;
  source?: AutomationRow['source'];
  generator?: AutomationRow['generator'];
  destinations?: AutomationRow['destinations'];
  output?: AutomationRow['output'];
  options?: AutomationRow['options'];
  cursor?: number;
  event_cursor?: string | null;
  next_run_at?: Date | null;
  last_run_at?: Date | null;
  last_error?: Failure | null;
  consecutive_failures?: number;
}

const JSON_COLUMNS = new Set(['source', 'generator', 'destinations', 'output', 'options', 'last_error']);

export async function updateAutomation(
  db: Queryable,
  workspaceId: string,
  id: string,
  change: AutomationChange,
): Promise<AutomationRow> {
  const entries = Object.entries(change).filter(([, v]) => v !== undefined);
  const sets = entries.map(([column], i) => `${column} = $${i + 3}`);
  const values = entries.map(([column, value]) =>
    JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value,
  );
  const { rows } = await db.query<AutomationRow>(
    `UPDATE automations SET ${[...sets, 'updated_at = now()'].join(', ')}
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, ...values],
  );
  return rows[0]!;
}

/** Claims a slot: the run row, or undefined when the slot already has one (then `findRunBySlot` reads it). */
export async function insertRun(
  db: Queryable,
  run: Pick<RunRow, 'id' | 'automation_id' | 'workspace_id' | 'slot' | 'trigger'>,
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `INSERT INTO automation_runs (id, automation_id, workspace_id, slot, trigger, status)
     VALUES ($1, $2, $3, $4, $5, 'queued')
     ON CONFLICT (automation_id, slot) DO NOTHING RETURNING ${RUN_COLUMNS}`,
    [run.id, run.automation_id, run.workspace_id, run.slot, run.trigger],
  );
  return rows[0];
}

export async function findRunBySlot(
  db: Queryable,
  workspaceId: string,
  automationId: string,
  slot: string,
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM automation_runs WHERE workspace_id = $1 AND automation_id = $2 AND slot = $3`,
    [workspaceId, automationId, slot],
  );
  return rows[0];
}

export async function findRun(
  db: Queryable,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM automation_runs WHERE workspace_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function listRuns(
  db: Queryable,
  workspaceId: string,
  automationId: string,
  after: CursorPosition | undefined,
  limit: number,
): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM automation_runs
      WHERE workspace_id = $1 AND automation_id = $2
        AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
      ORDER BY created_at DESC, id DESC
      LIMIT $5`,
    [workspaceId, automationId, after?.value ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** The run's end with everything it produced, in one write. */
export async function finishRun(
  db: Queryable,
  workspaceId: string,
  id: string,
  end: Pick<RunRow, 'status' | 'items_seen' | 'items_new' | 'posts_created' | 'approval_batch_id' | 'error'>,
): Promise<RunRow> {
  const { rows } = await db.query<RunRow>(
    `UPDATE automation_runs
        SET status = $3, items_seen = $4, items_new = $5, posts_created = $6, approval_batch_id = $7, error = $8,
            started_at = COALESCE(started_at, now()), finished_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${RUN_COLUMNS}`,
    [
      workspaceId,
      id,
      end.status,
      end.items_seen,
      end.items_new,
      end.posts_created,
      end.approval_batch_id,
      end.error ? JSON.stringify(end.error) : null,
    ],
  );
  return rows[0]!;
}

/** Of `keys`, those this automation has already seen. */
export async function seenKeys(
  db: Queryable,
  workspaceId: string,
  automationId: string,
  keys: string[],
): Promise<Set<string>> {
  const { rows } = await db.query<{ item_key: string }>(
    `SELECT s.item_key FROM automation_seen_items s JOIN automations a ON a.id = s.automation_id
      WHERE a.workspace_id = $1 AND s.automation_id = $2 AND s.item_key = ANY($3)`,
    [workspaceId, automationId, keys],
  );
  return new Set(rows.map((r) => r.item_key));
}

/** Records `keys` as seen; answers those that were not seen before (the caller holds the automation's lock). */
export async function markSeen(
  db: Queryable,
  workspaceId: string,
  automationId: string,
  keys: string[],
  runId: string | null,
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await db.query<{ item_key: string }>(
    `INSERT INTO automation_seen_items (automation_id, item_key, run_id)
     SELECT a.id, k, $4 FROM automations a, unnest($3::text[]) AS k
      WHERE a.workspace_id = $1 AND a.id = $2
     ON CONFLICT (automation_id, item_key) DO NOTHING RETURNING item_key`,
    [workspaceId, automationId, keys, runId],
  );
  return new Set(rows.map((r) => r.item_key));
}

/** Claims many slots at once (the scheduler); answers the runs inserted (slots already claimed are skipped). */
export async function insertRuns(
  db: Queryable,
  runs: Pick<RunRow, 'id' | 'automation_id' | 'workspace_id' | 'slot' | 'trigger'>[],
): Promise<RunRow[]> {
  if (runs.length === 0) return [];
  const { rows } = await db.query<RunRow>(
    `INSERT INTO automation_runs (id, automation_id, workspace_id, slot, trigger, status)
     SELECT * , 'queued' FROM unnest($1::text[], $2::text[], $3::uuid[], $4::text[], $5::text[])
     ON CONFLICT (automation_id, slot) DO NOTHING RETURNING ${RUN_COLUMNS}`,
    [
      runs.map((r) => r.id),
      runs.map((r) => r.automation_id),
      runs.map((r) => r.workspace_id),
      runs.map((r) => r.slot),
      runs.map((r) => r.trigger),
    ],
  );
  return rows;
}

// Across workspaces, on purpose: the scheduler's scans (automations.scheduler.ts) find what is due everywhere.

/** Locks up to `limit` active automations whose slot has come; other schedulers skip them (SKIP LOCKED). */
export async function lockDue(db: Queryable, now: Date, limit: number): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations
      WHERE status = 'active' AND next_run_at IS NOT NULL AND next_run_at <= $1
      ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** Moves each automation's `next_run_at` on (the scheduler, after claiming their slots). */
export async function setNextRuns(db: Queryable, next: { id: string; next: Date | null }[]): Promise<void> {
  await db.query(
    `UPDATE automations a SET next_run_at = v.next, updated_at = now()
       FROM unnest($1::text[], $2::timestamptz[]) AS v(id, next) WHERE a.id = v.id`,
    [next.map((n) => n.id), next.map((n) => n.next)],
  );
}

/** Up to `limit` active `event` automations after `afterId` in id order, locked; other schedulers skip them. */
export async function lockEventAutomations(db: Queryable, afterId: string, limit: number): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations
      WHERE status = 'active' AND source ->> 'type' = 'event' AND id > $1
      ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [afterId, limit],
  );
  return rows;
}

/** Events of `type` in the workspace after `afterId` and committed at least `settleMs` ago, oldest first. */
export async function eventsAfter(
  db: Queryable,
  workspaceId: string,
  type: string,
  afterId: string,
  before: Date,
  limit: number,
): Promise<{ id: string; data: Record<string, unknown> }[]> {
  const { rows } = await db.query<{ id: string; data: Record<string, unknown> }>(
    `SELECT id, data FROM events
      WHERE workspace_id = $1 AND type = $2 AND id > $3 AND created_at <= $4
      ORDER BY id LIMIT $5`,
    [workspaceId, type, afterId, before, limit],
  );
  return rows;
}
