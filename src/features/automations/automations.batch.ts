// The database work of runs that arrive together (docs/automations.md "Runs"), shared through the group commit of
// src/lib/batcher.ts: their start is one statement (the runs marked running, read back with their automations)
// plus one read of each brand and of the workspaces' modes; their end is one transaction — runs and automations
// locked, each run's posts created through the posts service in a savepoint of their own, then all runs finished,
// their automations updated and their events appended in one statement each. A batch that throws is retried run
// by run, so one run's fault never fails its neighbours.
import type { ServiceContext, WorkspaceMode } from '../../app/context.ts';
import { isAppError } from '../../app/errors.ts';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { batcher } from '../../lib/batcher.ts';
import type { Clock } from '../../lib/clock.ts';
import { closeBatch, openBatch } from '../approvals/approvals.submit.ts';
import { findBrandRow, type BrandRow } from '../brands/brands.repo.ts';
import { appendEvents, type EventType } from '../events/outbox.ts';
import type { MediaService } from '../media/media.service.ts';
import type { CreatePostBody } from '../posts/posts.schemas.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { workspaceModes } from '../workspaces/workspaces.repo.ts';
import * as batchRepo from './automations.batch.repo.ts';
import type { RunEnd, RunOutcome, RunRef, RunWithAutomation } from './automations.batch.repo.ts';
import type { PlannedPost } from './automations.plan.ts';
import * as repo from './automations.repo.ts';
import type { AutomationRow, Failure } from './automations.repo.ts';
import { renderAutomation, renderRun } from './automations.view.ts';

/**
 * Runs in one start: as many as a worker runs at once (HERALD_WORKER_CONCURRENCY's ceiling), since that statement
 * is one UPDATE whatever its size.
 */
const START_MAX = 1000;
/**
 * Runs in one end transaction. Each created post is a subtransaction; past 64 of them PostgreSQL's snapshots of
 * every session slow down (the subtransaction cache overflows), so a batch stays well below that — and small
 * enough that a burst spreads over several transactions running side by side.
 */
const END_MAX = 25;
/**
 * Pool connections left to the starts and to the feed and event reads; the others may each hold an end
 * transaction, whose statements run one after another, so batches run side by side.
 */
const POOL_RESERVE = 4;

export const FINISHED = ['completed', 'failed', 'skipped'];

/** What the shared start and end need (a part of the run's dependencies, automations.run.ts). */
export interface BatchDeps {
  pool: Pool;
  posts: PostsService;
  media: MediaService;
  clock: Clock;
  /** Failed runs in a row after which the automation pauses itself (HERALD_AUTOMATION_PAUSE_AFTER_FAILURES). */
  pauseAfterFailures: number;
}

/** A run started, with what planning it needs: its brand (undefined: deleted) and its workspace's mode. */
export interface Started extends RunWithAutomation {
  brand: BrandRow | undefined;
  mode: WorkspaceMode;
}

/** What a run brings to its end: the items it read and the posts it planned, or the failure that stopped it. */
export interface Planned extends RunRef {
  mode: WorkspaceMode;
  seen: number;
  /** Item keys to record as seen with the run. */
  markKeys: string[];
  posts: PlannedPost[];
  /** A library's next text; absent, the cursor stays (a feed's counts its polls and is moved here). */
  cursor?: number;
  failure: Failure | null;
}

export interface RunBatches {
  /** Marks the run running; undefined when it is finished or gone (there is nothing to do). */
  start(run: RunRef): Promise<Started | undefined>;
  /** Ends the run in its batch's transaction; a run found finished there is left as it is. */
  end(run: Planned): Promise<void>;
}

export function runBatches(deps: BatchDeps): RunBatches {
  return {
    start: batcher((runs: RunRef[]) => startBatch(deps, runs), { max: START_MAX, parallel: 1 }),
    end: batcher((runs: Planned[]) => endBatch(deps, runs), {
      max: END_MAX,
      parallel: Math.max(1, (deps.pool.options.max ?? 10) - POOL_RESERVE),
    }),
  };
}

async function startBatch(deps: BatchDeps, runs: RunRef[]): Promise<Array<Started | undefined>> {
  const started = new Map((await batchRepo.startRuns(deps.pool, runs)).map((s) => [s.run.id, s]));
  if (started.size === 0) return runs.map(() => undefined);
  const brands = new Map<string, BrandRow | undefined>();
  for (const { automation: a } of started.values()) {
    const key = `${a.workspace_id}/${a.brand_id}`;
    if (!brands.has(key)) brands.set(key, await findBrandRow(deps.pool, a.workspace_id, a.brand_id));
  }
  const modes = await workspaceModes(deps.pool, [...new Set(runs.map((r) => r.workspaceId))]);
  return runs.map((r) => {
    const s = started.get(r.runId);
    if (!s) return undefined;
    const { automation: a } = s;
    return { ...s, brand: brands.get(`${a.workspace_id}/${a.brand_id}`), mode: modes.get(a.workspace_id) ?? 'live' };
  });
}

interface Ended {
  planned: Planned;
  automation: AutomationRow;
  end: RunEnd;
}

async function endBatch(deps: BatchDeps, runs: Planned[]): Promise<void[]> {
  await withTransaction(deps.pool, async (tx) => {
    const locked = new Map((await batchRepo.lockRuns(tx, runs)).map((l) => [l.run.id, l]));
    const savepoints = new Savepoints(tx);
    const ended: Ended[] = [];
    for (const planned of runs) {
      const found = locked.get(planned.runId);
      if (!found || FINISHED.includes(found.run.status)) continue; // another worker finished this slot
      locked.delete(planned.runId); // the same run twice in a batch (a duplicate job) is ended once
      const end = planned.failure
        ? { ...emptyEnd(), status: 'failed' as const, items_seen: planned.seen, error: planned.failure }
        : await createPosts(deps, tx, savepoints, found.automation, planned);
      ended.push({ planned, automation: found.automation, end });
    }
    const done = await batchRepo.finishRuns(
      tx,
      ended.map((e) => ({ workspaceId: e.planned.workspaceId, runId: e.planned.runId, end: e.end })),
    );
    const outcomes = foldOutcomes(deps, ended);
    const updated = await batchRepo.recordOutcomes(tx, [...outcomes.values()]);
    const events: Array<{ workspaceId: string; type: EventType; data: unknown }> = ended.map((e) => {
      const run = done.get(e.planned.runId)!;
      const type = run.status === 'failed' ? 'automation.run.failed' : 'automation.run.completed';
      return { workspaceId: e.planned.workspaceId, type, data: renderRun(run) };
    });
    for (const o of outcomes.values())
      if (o.pause)
        events.push({
          workspaceId: o.workspaceId,
          type: 'automation.paused',
          data: renderAutomation(updated.get(o.automationId)!),
        });
    await appendEvents(tx, events);
  });
  return runs.map(() => undefined);
}

export function emptyEnd() {
  return { items_seen: 0, items_new: 0, posts_created: [], approval_batch_id: null, error: null };
}

/**
 * Each automation's state after its runs of the batch, in order: last_run_at, the failure count (a failed run adds
 * one, any other resets it), the automatic pause when the count reaches the setting, and the cursor.
 */
function foldOutcomes(deps: BatchDeps, ended: Ended[]): Map<string, RunOutcome> {
  const outcomes = new Map<string, RunOutcome>();
  for (const { planned, automation, end } of ended) {
    const before = outcomes.get(automation.id);
    const failed = end.status === 'failed';
    const failures = failed && end.error ? (before?.consecutiveFailures ?? automation.consecutive_failures) + 1 : 0;
    const paused = before?.pause ?? false;
    const active = automation.status === 'active' && !paused;
    const cursorNow = before?.cursor ?? automation.cursor;
    const cursor = planned.failure
      ? before?.cursor
      : automation.source.type === 'rss'
        ? cursorNow + 1
        : (planned.cursor ?? before?.cursor);
    outcomes.set(automation.id, {
      workspaceId: automation.workspace_id,
      automationId: automation.id,
      lastRunAt: deps.clock.now(),
      consecutiveFailures: failures,
      lastError: failed ? end.error : null,
      ...(cursor !== undefined ? { cursor } : {}),
      pause: paused || (active && failures >= deps.pauseAfterFailures),
    });
  }
  return outcomes;
}

/**
 * The transaction's savepoints. A savepoint left open when its work is kept is released together with the next
 * one opened (one round trip for both), or by the commit.
 */
class Savepoints {
  private pending: string | null = null;
  private readonly tx: Queryable;
  constructor(tx: Queryable) {
    this.tx = tx;
  }

  async open(name: string): Promise<void> {
    await this.tx.query(`${this.pending ? `RELEASE SAVEPOINT ${this.pending}; ` : ''}SAVEPOINT ${name}`);
    this.pending = null;
  }

  /** Undoes the work since `name`, which stays open (released later). */
  async rollback(name: string): Promise<void> {
    await this.tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    this.pending = name;
  }

  /** Keeps the work since `name` (and the savepoints inside it). */
  keep(name: string): void {
    this.pending = name;
  }
}

/** One run's items recorded as seen and its posts created; its end (failed when every post was refused). */
async function createPosts(
  deps: BatchDeps,
  tx: Queryable,
  savepoints: Savepoints,
  automation: AutomationRow,
  planned: Planned,
): Promise<RunEnd> {
  // Items another run took meanwhile (a trigger beside a poll) are left to it: only keys new here are posted.
  const fresh = await repo.markSeen(tx, automation.workspace_id, automation.id, planned.markKeys, planned.runId);
  const posts = planned.posts.filter((p) => !p.item || p.item.key.startsWith('event:') || fresh.has(p.item.key));
  const ctx: ServiceContext = {
    db: tx,
    workspaceId: automation.workspace_id,
    workspaceMode: planned.mode,
    brandId: automation.brand_id,
    brandFromHeader: false,
    allowedBrandIds: null,
    userId: automation.created_by,
    via: 'automation',
  };
  // An approval run opens its batch in a savepoint, undone again when no post of the run was accepted.
  const approval = automation.output.mode === 'approval' && posts.length > 0;
  if (approval) await savepoints.open('automation_batch');
  let batch = approval ? await openBatch(ctx, { type: 'automation', id: automation.id }) : null;
  const created: string[] = [];
  const refused: string[] = [];
  for (const p of posts) {
    // Each post in a savepoint: one refused after its row was written leaves nothing of it behind.
    await savepoints.open('automation_post');
    try {
      const mediaIds: string[] = p.imageUrl
        ? [String((await deps.media.createFromUrl(ctx, { url: p.imageUrl })).id)]
        : [];
      const body: CreatePostBody = mediaIds.length > 0 ? { ...p.body, media_ids: mediaIds } : p.body;
      const post = await deps.posts.create(ctx, body, {
        source: { type: 'automation', id: automation.id },
        batchId: batch?.id ?? null,
        review: automation.output.mode === 'approval' ? 'always' : 'policy',
      });
      created.push(post.post_id);
      savepoints.keep('automation_post');
    } catch (error) {
      if (!isAppError(error)) throw error;
      await savepoints.rollback('automation_post');
      const detail = error.details?.[0];
      refused.push(`${detail?.rule ?? error.code}: ${detail?.message ?? error.message}`);
    }
  }
  if (batch && created.length === 0) {
    await savepoints.rollback('automation_batch');
    batch = null;
  }
  if (batch) await closeBatch(ctx, batch.id);
  if (approval) savepoints.keep('automation_batch');
  const error =
    refused.length > 0
      ? { code: 'posts_refused', message: `${refused.length} of ${posts.length} posts were refused: ${refused[0]}` }
      : null;
  return {
    status: posts.length > 0 && created.length === 0 ? 'failed' : 'completed',
    items_seen: planned.seen,
    items_new: posts.length,
    posts_created: created,
    approval_batch_id: batch?.id ?? null,
    error,
  };
}
