// SQL for `ai_usage`: each workspace's provider calls and tokens per UTC day (docs/ai.md "Costs and limits").
// Admission is one conditional upsert, so the cap holds across concurrent callers and processes.
import type { Queryable } from '../../db/pool.ts';

export interface UsageRow {
  calls: number;
  tokens: number;
  refused: number;
}

export interface Caps {
  calls: number;
  tokens: number;
}

/**
 * Admits one provider call that may spend up to `reserve` tokens: counts it and reserves the tokens when both stay
 * within `caps`, in one statement. Returns the day's usage after admission, or undefined when refused (nothing
 * is counted then but the refusal).
 */
export async function admitCall(
  db: Queryable,
  workspaceId: string,
  day: string,
  reserve: number,
  caps: Caps,
): Promise<UsageRow | undefined> {
  if (caps.calls < 1 || reserve > caps.tokens) {
    await recordRefusal(db, workspaceId, day);
    return undefined;
  }
  const { rows } = await db.query<{ calls: number; tokens: string; refused: number }>(
    `INSERT INTO ai_usage (workspace_id, day, calls, tokens) VALUES ($1, $2, 1, $3)
     ON CONFLICT (workspace_id, day) DO UPDATE
       SET calls = ai_usage.calls + 1, tokens = ai_usage.tokens + EXCLUDED.tokens
       WHERE ai_usage.calls + 1 <= $4 AND ai_usage.tokens + EXCLUDED.tokens <= $5
     RETURNING calls, tokens, refused`,
    [workspaceId, day, reserve, caps.calls, caps.tokens],
  );
  const row = rows[0];
  if (!row) {
    await recordRefusal(db, workspaceId, day);
    return undefined;
  }
  return { calls: row.calls, tokens: Number(row.tokens), refused: row.refused };
}

/** Replaces an admitted call's reservation by what it spent (`delta` = spent − reserved; never below zero). */
export async function settleTokens(db: Queryable, workspaceId: string, day: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await db.query('UPDATE ai_usage SET tokens = GREATEST(0, tokens + $3) WHERE workspace_id = $1 AND day = $2', [
    workspaceId,
    day,
    delta,
  ]);
}

async function recordRefusal(db: Queryable, workspaceId: string, day: string): Promise<void> {
  await db.query(
    `INSERT INTO ai_usage (workspace_id, day, refused) VALUES ($1, $2, 1)
     ON CONFLICT (workspace_id, day) DO UPDATE SET refused = ai_usage.refused + 1`,
    [workspaceId, day],
  );
}

/** The workspace's usage on `day` (zeros when it made no call). */
export async function usageOn(db: Queryable, workspaceId: string, day: string): Promise<UsageRow> {
  const { rows } = await db.query<{ calls: number; tokens: string; refused: number }>(
    'SELECT calls, tokens, refused FROM ai_usage WHERE workspace_id = $1 AND day = $2',
    [workspaceId, day],
  );
  const row = rows[0];
  return row
    ? { calls: row.calls, tokens: Number(row.tokens), refused: row.refused }
    : { calls: 0, tokens: 0, refused: 0 };
}
