// The `run_automation` job (docs/automations.md "Runs"): one run of one slot. The items are read and the posts
// planned outside any transaction (a feed fetch, a model call); then, in one transaction with the run and the
// automation locked, the items are recorded as seen, the posts created through the posts service (created_via
// `automation`, judged by the approval gate), and the run finished with its event. Exactly once: a run found
// finished does nothing; a run killed before that commit left no post and no seen item, and the retry starts over.
// Runs arriving together share their start and their end (automations.batch.ts).
import { withTransaction } from '../../db/pool.ts';
import type { Logger } from '../../lib/logger.ts';
import type { AiService } from '../ai/ai.service.ts';
import { compileBrandContext } from '../brands/context.ts';
import { emptyEnd, FINISHED, runBatches, type BatchDeps, type RunBatches, type Started } from './automations.batch.ts';
import { FeedFailure, type FeedCaps, type SourceItem } from './automations.feed.ts';
import { eventItem, feedItems } from './automations.items.ts';
import { PlanFailure, planPosts, resolveDestinations, type PlannedPost } from './automations.plan.ts';
import * as repo from './automations.repo.ts';
import type { AutomationRow, Failure, RunRow } from './automations.repo.ts';

export interface RunDeps extends BatchDeps {
  ai: AiService;
  logger: Logger;
  caps: FeedCaps;
}

export interface RunPayload {
  workspace_id: string;
  automation_id: string;
  run_id: string;
}

/** The task's runner: `run` executes one job; jobs running at the same moment share their database work. */
export function automationRunner(deps: RunDeps): (payload: RunPayload, lastAttempt: boolean) => Promise<void> {
  const batches = runBatches(deps);
  return (payload, lastAttempt) => runAutomation(deps, batches, payload, lastAttempt);
}

/** The items of this run: the feed's new ones, the event's post, or none for a schedule. */
async function readItems(
  deps: RunDeps,
  automation: AutomationRow,
  run: RunRow,
): Promise<{ seen: number; items: SourceItem[]; markKeys: string[] }> {
  if (automation.source.type === 'rss') return feedItems(deps.pool, deps.caps, automation);
  if (run.slot.startsWith('event:')) {
    const item = await eventItem(deps.pool, automation.workspace_id, run.slot.slice('event:'.length));
    if (!item) throw new FeedFailure('event_missing', 'The event this run was for is gone or has no post text.');
    return { seen: 1, items: [item], markKeys: [] };
  }
  return { seen: 0, items: [], markKeys: [] };
}

async function runAutomation(
  deps: RunDeps,
  batches: RunBatches,
  payload: RunPayload,
  lastAttempt: boolean,
): Promise<void> {
  const ref = { workspaceId: payload.workspace_id, runId: payload.run_id };
  const started = await batches.start(ref);
  if (!started) return;
  const { automation, run } = started;
  // A slot claimed before a pause or an archive does not run; a manual trigger runs unless archived.
  if (automation.status === 'archived' || (automation.status !== 'active' && run.trigger !== 'manual')) {
    await withTransaction(deps.pool, async (tx) => {
      const locked = await repo.findRun(tx, payload.workspace_id, run.id, { lock: true });
      if (!locked || FINISHED.includes(locked.status)) return;
      const reason = { code: 'automation_not_active', message: `The automation was ${automation.status}.` };
      await repo.finishRun(tx, payload.workspace_id, run.id, { ...emptyEnd(), status: 'skipped', error: reason });
    });
    return;
  }
  const fail = (failure: Failure) =>
    batches.end({ ...ref, mode: started.mode, seen: 0, markKeys: [], posts: [], failure });
  try {
    await runSteps(deps, batches, started);
  } catch (error) {
    if (error instanceof FeedFailure || error instanceof PlanFailure)
      return fail({ code: error.code, message: error.message });
    if (!lastAttempt) throw error;
    deps.logger.error({ err: error, automation_id: automation.id, run_id: run.id }, 'automation run failed');
    await fail({ code: 'internal_error', message: 'Herald could not finish this run (an internal error).' });
  }
}

async function runSteps(deps: RunDeps, batches: RunBatches, started: Started): Promise<void> {
  const { automation, run, brand, mode } = started;
  const ref = { workspaceId: automation.workspace_id, runId: run.id, mode };
  if (!brand) {
    const failure = { code: 'brand_missing', message: 'The automation’s brand was deleted.' };
    await batches.end({ ...ref, seen: 0, markKeys: [], posts: [], failure });
    await repo.updateAutomation(deps.pool, automation.workspace_id, automation.id, {
      status: 'error',
      next_run_at: null,
    });
    return;
  }
  const found = await readItems(deps, automation, run);
  const nothingToDo = automation.source.type !== 'schedule' && found.items.length === 0;
  const plan = nothingToDo
    ? { posts: [] as PlannedPost[], cursor: automation.cursor }
    : await planPosts(deps.ai, {
        automation,
        brand: compileBrandContext(brand),
        destinations: await resolveDestinations(deps.pool, automation),
        items: found.items,
        now: deps.clock.now(),
      });
  await batches.end({
    ...ref,
    seen: found.seen,
    markKeys: found.markKeys,
    posts: plan.posts,
    cursor: plan.cursor,
    failure: null,
  });
}
