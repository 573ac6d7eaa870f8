// The recycle_posts task's pass (every minute; docs/queues.md "Recycling"): each rule whose next copy is due within
// COPY_LEAD_MS gets it — a new post made through the posts service (scheduled at the copy's time, or into the
// earliest free slot of the original's queue, so it shows on the calendar and goes out like any post), linked to the
// family's original — and moves on to its next occurrence.
// Exactly once: a rule is taken with its row locked (SKIP LOCKED), and the copy, its link and the rule's advance
// commit together; a pass that crashed before the commit left nothing, and the next pass makes that copy again.
import type { ServiceContext } from '../../app/context.ts';
import { isAppError } from '../../app/errors.ts';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { findPost, findTargets, setRecycledFrom } from '../posts/posts.repo.ts';
import type { CreatePostBody } from '../posts/posts.schemas.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { workspaceModes } from '../workspaces/workspaces.repo.ts';
import * as repo from './recycling.repo.ts';
import type { RecycleRuleRow, RuleAdvance } from './recycling.repo.ts';
import { copyText, DAY_MS, withoutTextOverrides } from './recycling.service.ts';

/** A copy is made this long before its time, so it is on the calendar (and in the publishing queue) ahead of it. */
export const COPY_LEAD_MS = 60 * 60_000;

export interface CopyDeps {
  pool: Pool;
  posts: PostsService;
  clock: Clock;
  logger: Logger;
}

/**
 * The occurrence after `at`: `every_days` later, skipping those already past (a worker that was down does not make up
 * missed copies all at once, which would post one text several times in a row).
 */
export function nextOccurrence(at: Date, everyDays: number, now: Date): Date {
  const step = everyDays * DAY_MS;
  let next = at.getTime() + step;
  if (next <= now.getTime()) next += Math.ceil((now.getTime() - next + 1) / step) * step;
  return new Date(next);
}

/** What the rule becomes once occurrence `rule.done` is handled (a copy made, or refused with `error`). */
function advanceOf(rule: RecycleRuleRow, copyId: string | null, now: Date, error: RuleAdvance['error']): RuleAdvance {
  if (error) return { copyId: null, nextAt: null, status: 'stopped', error };
  const next = nextOccurrence(rule.next_at!, rule.every_days, now);
  const finished = rule.done + 1 >= rule.times || (rule.until !== null && next.getTime() > rule.until.getTime());
  return finished
    ? { copyId, nextAt: null, status: 'finished', error: null }
    : { copyId, nextAt: next, status: 'active', error: null };
}

/** Makes the due copy of one locked rule in `tx`; answers the copy's id, or null when it was refused. */
async function makeCopy(deps: CopyDeps, tx: Queryable, rule: RecycleRuleRow, now: Date): Promise<string | null> {
  const { workspace_id: workspaceId } = rule;
  const original = await findPost(tx, workspaceId, rule.post_id);
  if (!original) {
    const error = { code: 'post_deleted', message: 'The post this rule recycles was deleted.' };
    await repo.advanceRule(tx, workspaceId, rule.post_id, rule.done, advanceOf(rule, null, now, error));
    return null;
  }
  const connections = (await findTargets(tx, workspaceId, [original.id]))
    .map((t) => t.connection_id)
    .filter((c): c is string => c !== null);
  const at = new Date(Math.max(rule.next_at!.getTime(), now.getTime())).toISOString();
  const rotating = rule.vary === 'rotate_variants';
  const body: CreatePostBody = {
    brand_id: original.brand_id,
    content: rotating ? copyText(original, rule, original.platforms[0]!, rule.done) : original.content,
    platforms: original.platforms,
    // From a queue, into the same queue's earliest free slot (docs/queues.md "Recycling"); else at the copy's time.
    ...(original.queue_id !== null ? { queue: 'next' as const, queue_id: original.queue_id } : { schedule_at: at }),
    metadata: original.metadata,
    media_ids: original.media_ids,
    platform_options: rotating ? withoutTextOverrides(original.platform_options) : original.platform_options,
    ...(connections.length > 0 ? { connection_ids: [...new Set(connections)] } : {}),
  };
  const mode = (await workspaceModes(tx, [workspaceId])).get(workspaceId) ?? 'live';
  const ctx: ServiceContext = {
    db: tx,
    workspaceId,
    workspaceMode: mode,
    brandId: original.brand_id,
    brandFromHeader: false,
    allowedBrandIds: null,
    userId: rule.created_by ?? '',
    via: 'api',
  };
  await tx.query('SAVEPOINT recycle_copy');
  try {
    const created = await deps.posts.create(ctx, body);
    const family = original.recycled_from ?? original.id;
    await setRecycledFrom(tx, workspaceId, created.post_id, family);
    await tx.query('RELEASE SAVEPOINT recycle_copy');
    const advanced = await repo.advanceRule(
      tx,
      workspaceId,
      rule.post_id,
      rule.done,
      advanceOf(rule, created.post_id, now, null),
    );
    if (!advanced) throw new Error(`recycle rule ${rule.post_id} changed under its lock`);
    return created.post_id;
  } catch (error) {
    if (!isAppError(error)) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT recycle_copy');
    const refused = { code: error.code, message: `Copy ${rule.done + 1} was refused: ${error.message}` };
    await repo.advanceRule(tx, workspaceId, rule.post_id, rule.done, advanceOf(rule, null, now, refused));
    return null;
  }
}

/** One pass; answers the copies made. */
export async function recycleDuePosts(deps: CopyDeps): Promise<number> {
  let made = 0;
  for (;;) {
    const outcome = await withTransaction(deps.pool, async (tx) => {
      const now = deps.clock.now();
      const rule = await repo.lockDueRule(tx, new Date(now.getTime() + COPY_LEAD_MS));
      if (!rule) return 'none' as const;
      const copy = await makeCopy(deps, tx, rule, now);
      if (copy === null) deps.logger.warn({ post_id: rule.post_id }, 'recycle rule stopped: its copy was refused');
      return copy === null ? ('refused' as const) : ('made' as const);
    });
    if (outcome === 'none') break;
    if (outcome === 'made') made++;
  }
  return made;
}
