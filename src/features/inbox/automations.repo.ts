// The SQL of inbox automations and their runs (0027_inbox.sql). Every function takes the workspace id.
import type { CursorPosition } from '../../app/cursor.ts';
import type { Queryable } from '../../db/pool.ts';
import type { QuietHours } from './automations.rules.ts';

export interface AutomationRow {
  id: string;
  workspace_id: string;
  name: string;
  enabled: boolean;
  position: number;
  scope: { connection_ids: string[]; kinds: string[]; post_ids?: string[] };
  trigger: {
    type: 'keyword' | 'any' | 'intent';
    keywords?: string[];
    match?: 'exact' | 'contains' | 'word';
    intents?: string[];
  };
  conditions: { first_interaction_only?: boolean; languages?: string[] };
  actions: Array<{ type: string; template?: string; assignee_id?: string; labels?: string[] }>;
  response_mode: 'auto' | 'approval';
  guardrails: {
    dedup_window_minutes: number;
    daily_cap: number | null;
    quiet_hours: QuietHours | null;
    blocked_terms: string[];
  };
  active_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type AutomationFields = Omit<AutomationRow, 'id' | 'workspace_id' | 'created_at' | 'updated_at'>;

const COLUMNS = `id, workspace_id, name, enabled, position, scope, trigger, conditions, actions, response_mode, guardrails,
  active_until, created_at, updated_at`;
const JSON_FIELDS = new Set(['scope', 'trigger', 'conditions', 'actions', 'guardrails']);

export async function insertAutomation(
  db: Queryable,
  workspaceId: string,
  id: string,
  f: Omit<AutomationFields, 'position'> & { position: number | null },
  createdBy: string,
): Promise<AutomationRow> {
  const { rows } = await db.query<AutomationRow>(
    `INSERT INTO inbox_automations (id, workspace_id, name, enabled, position, scope, trigger, conditions, actions,
                                    response_mode, guardrails, active_until, created_by)
     VALUES ($1, $2, $3, $4,
             COALESCE($5, (SELECT COALESCE(max(position), 0) + 10 FROM inbox_automations WHERE workspace_id = $2)),
             $6, $7, $8, $9, $10, $11, $12, $13)
     RETURNING ${COLUMNS}`,
    [
      id,
      workspaceId,
      f.name,
      f.enabled,
      f.position,
      JSON.stringify(f.scope),
      JSON.stringify(f.trigger),
      JSON.stringify(f.conditions),
      JSON.stringify(f.actions),
      f.response_mode,
      JSON.stringify(f.guardrails),
      f.active_until,
      createdBy,
    ],
  );
  return rows[0]!;
}

export async function updateAutomation(
  db: Queryable,
  workspaceId: string,
  id: string,
  f: AutomationFields,
): Promise<AutomationRow | undefined> {
  const names = Object.keys(f) as Array<keyof AutomationFields>;
  const sets = names.map((n, i) => `${n} = $${i + 3}`);
  const { rows } = await db.query<AutomationRow>(
    `UPDATE inbox_automations SET ${sets.join(', ')}, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, ...names.map((n) => (JSON_FIELDS.has(n) ? JSON.stringify(f[n]) : f[n]))],
  );
  return rows[0];
}

export async function findAutomation(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<AutomationRow | undefined> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM inbox_automations WHERE workspace_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function deleteAutomation(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM inbox_automations WHERE workspace_id = $1 AND id = $2', [
    workspaceId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** In evaluation order (position, then id), after `after` (its value: the position as epoch milliseconds). */
export async function listAutomations(
  db: Queryable,
  workspaceId: string,
  after: CursorPosition | undefined,
  limit: number,
): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM inbox_automations
      WHERE workspace_id = $1 AND ($2::int IS NULL OR (position, id) > ($2::int, $3::text))
      ORDER BY position, id LIMIT $4`,
    [workspaceId, after?.value ? Date.parse(after.value) : null, after?.id ?? null, limit],
  );
  return rows;
}

/** The automations that evaluate at `now`: enabled and not past `active_until`, in evaluation order. */
export async function activeAutomations(db: Queryable, workspaceId: string, now: Date): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM inbox_automations
      WHERE workspace_id = $1 AND enabled AND (active_until IS NULL OR active_until > $2)
      ORDER BY position, id`,
    [workspaceId, now],
  );
  return rows;
}

export interface Stats {
  runs: number;
  sent: number;
  queued_for_approval: number;
  skipped: number;
  last_triggered_at: Date | null;
}

export async function automationStats(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, Stats>> {
  const { rows } = await db.query<Stats & { automation_id: string }>(
    `SELECT automation_id, count(*)::int AS runs,
            count(*) FILTER (WHERE outcome = 'sent')::int AS sent,
            count(*) FILTER (WHERE outcome = 'queued_for_approval')::int AS queued_for_approval,
            count(*) FILTER (WHERE outcome = 'skipped')::int AS skipped,
            max(created_at) FILTER (WHERE outcome <> 'skipped') AS last_triggered_at
       FROM inbox_automation_runs WHERE workspace_id = $1 AND automation_id = ANY($2) GROUP BY automation_id`,
    [workspaceId, ids],
  );
  return new Map(rows.map((r) => [r.automation_id, r]));
}

// ---- Runs

export interface RunRow {
  id: string;
  automation_id: string;
  item_id: string;
  outcome: 'sent' | 'queued_for_approval' | 'skipped';
  reason: 'dedup' | 'window_closed' | 'cap' | 'no_match' | 'human_takeover' | 'blocked_term' | null;
  detail: string | null;
  response_id: string | null;
  created_at: Date;
}

/** One run per automation and item: evaluating an item twice (a redelivery) records nothing new (false). */
export async function insertRun(
  db: Queryable,
  workspaceId: string,
  run: Omit<RunRow, 'created_at'> & { author_key: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO inbox_automation_runs (id, workspace_id, automation_id, item_id, author_key, outcome, reason, detail, response_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (automation_id, item_id) DO NOTHING`,
    [
      run.id,
      workspaceId,
      run.automation_id,
      run.item_id,
      run.author_key,
      run.outcome,
      run.reason,
      run.detail,
      run.response_id,
    ],
  );
  return (rowCount ?? 0) > 0;
}

export async function listRuns(
  db: Queryable,
  workspaceId: string,
  automationId: string,
  after: CursorPosition | undefined,
  limit: number,
): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT id, automation_id, item_id, outcome, reason, detail, response_id, created_at FROM inbox_automation_runs
      WHERE workspace_id = $1 AND automation_id = $2
        AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
      ORDER BY created_at DESC, id DESC LIMIT $5`,
    [workspaceId, automationId, after?.value ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** Answers (sent or queued for approval) of the automation since `since`: to this author, or in all when null. */
export async function answeredSince(
  db: Queryable,
  workspaceId: string,
  automationId: string,
  authorKey: string | null,
  since: Date,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM inbox_automation_runs
      WHERE workspace_id = $1 AND automation_id = $2 AND outcome <> 'skipped' AND created_at >= $3
        AND ($4::text IS NULL OR author_key = $4)`,
    [workspaceId, automationId, since, authorKey],
  );
  return rows[0]!.n;
}

/** True when the author has an item on this connection received before this one. */
export async function authorSeenBefore(
  db: Queryable,
  workspaceId: string,
  item: { id: string; connectionId: string; authorId: string; receivedAt: Date },
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM inbox_items
      WHERE workspace_id = $1 AND connection_id = $2 AND author->>'platform_user_id' = $3 AND id <> $4
        AND received_at <= $5 AND NOT from_account LIMIT 1`,
    [workspaceId, item.connectionId, item.authorId, item.id, item.receivedAt],
  );
  return rows.length > 0;
}

/** The workspace's default brand: the brand of replies on connections that have none. */
export async function defaultBrandId(db: Queryable, workspaceId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM brands WHERE workspace_id = $1 AND is_default AND deleted_at IS NULL LIMIT 1',
    [workspaceId],
  );
  return rows[0]?.id ?? null;
}
