// What a post shows of its recycle rule (`recycle` in the post view, and the answers of `…/recycle`).
import type { Queryable } from '../../db/pool.ts';
import { findRules, type RecycleRuleRow } from './recycling.repo.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function ruleJson(r: RecycleRuleRow): Record<string, unknown> {
  return {
    every_days: r.every_days,
    times: r.times,
    until: iso(r.until),
    vary: r.vary,
    variants: r.variants,
    status: r.status,
    done: r.done,
    next_at: iso(r.next_at),
    last_copy_id: r.last_copy_id,
    error: r.last_error,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/**
 * The rules of a page of posts, by post id. Only a published post can have one, so a page without one (every
 * create, most lists) reads nothing.
 */
export async function recycleRulesOf(
  db: Queryable,
  workspaceId: string,
  posts: ReadonlyArray<{ id: string; status: string }>,
): Promise<Map<string, Record<string, unknown>>> {
  const ids = posts.filter((p) => p.status === 'published').map((p) => p.id);
  const rules = await findRules(db, workspaceId, ids);
  return new Map(rules.map((r) => [r.post_id, ruleJson(r)]));
}
