// Content automations (docs/automations.md): creating, reading, changing, pausing, resuming and archiving them,
// triggering a run by hand, listing runs, and the dry-run preview (automations.preview.ts). The runs themselves are
// automations.run.ts, queued by the scheduler (automations.scheduler.ts) or by `trigger`, one per slot.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import type { AiService } from '../ai/ai.service.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { checkDestinations, checkGenerator, checkOutputAndOptions, checkSource } from './automations.checks.ts';
import type { FeedCaps } from './automations.feed.ts';
import { previewAutomation } from './automations.preview.ts';
import * as repo from './automations.repo.ts';
import type { AutomationRow, RunRow } from './automations.repo.ts';
import type {
  AutomationStatus,
  CreateAutomationBody,
  ListAutomationsQuery,
  ListRunsQuery,
  PatchAutomationBody,
  RunTrigger,
} from './automations.schemas.ts';
import { renderAutomation, renderRun } from './automations.view.ts';
import { nextOccurrence } from './schedule.ts';
import { bodyBrand } from '../brands/body-brand.ts';

/** Attempts of a run's job: a worker killed mid-run is retried; the last attempt fails the run. */
export const RUN_ATTEMPTS = 3;

export interface AutomationsDeps {
  clock: Clock;
  guard: OutboundGuard;
  ai: AiService;
  posts: PostsService;
  caps: FeedCaps;
  rssPollMinutes: number;
}

/** The job key of a slot: graphile-worker keeps one job per key, the run row one run per slot. */
export function runJobKey(automationId: string, slot: string): string {
  return `automation:${automationId}:${slot}`;
}

/**
 * Queues the jobs of freshly claimed runs, in the caller's transaction: one `add_jobs` call for all of them (a
 * minute with a thousand due slots would otherwise pay a thousand `add_job` calls in the scheduler's transaction).
 */
export async function queueRuns(db: Queryable, runs: Pick<RunRow, 'id' | 'automation_id' | 'workspace_id' | 'slot'>[]) {
  if (runs.length === 0) return;
  await db.query(
    `SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
       SELECT ROW('run_automation', json_build_object('workspace_id', w, 'automation_id', a, 'run_id', r),
                  NULL, NULL, $5::smallint, k, NULL, NULL)::graphile_worker.job_spec
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(w, a, r, k)))`,
    [
      runs.map((r) => r.workspace_id),
      runs.map((r) => r.automation_id),
      runs.map((r) => r.id),
      runs.map((r) => runJobKey(r.automation_id, r.slot)),
      RUN_ATTEMPTS,
    ],
  );
}

/** The slot after `after` (and not before `now`): the rule's next occurrence, or the next feed poll. */
export function nextSlot(
  automation: Pick<AutomationRow, 'source'>,
  after: Date,
  now: Date,
  rssPollMinutes: number,
): Date | null {
  const { source } = automation;
  if (source.type === 'schedule') {
    const from = after.getTime() > now.getTime() ? after : now;
    return nextOccurrence({ rrule: source.rrule!, timezone: source.timezone! }, from);
  }
  if (source.type === 'rss') {
    const next = after.getTime() + rssPollMinutes * 60_000;
    return new Date(next > now.getTime() ? next : now.getTime() + rssPollMinutes * 60_000);
  }
  return null;
}

/** When a newly active automation is first due: the rule's next occurrence, a feed at once, an event never. */
function firstSlot(automation: Pick<AutomationRow, 'source'>, now: Date): Date | null {
  if (automation.source.type === 'schedule')
    return nextOccurrence({ rrule: automation.source.rrule!, timezone: automation.source.timezone! }, now);
  return automation.source.type === 'rss' ? now : null;
}

export function createAutomationsService(deps: AutomationsDeps) {
  async function findVisible(ctx: ServiceContext, id: string, lock = false) {
    const row = await repo.findAutomation(ctx.db, ctx.workspaceId, id, { lock });
    if (!row || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(row.brand_id))) throw notFound('automation');
    return row;
  }

  /** Every rule of a whole automation (created, or patched and merged); the source in its stored form. */
  async function check(ctx: ServiceContext, brandId: string, a: Omit<CreateAutomationBody, 'name' | 'brand_id'>) {
    const now = deps.clock.now();
    const source = await checkSource(deps.guard, a.source, now);
    const issues = [
      ...source.issues,
      ...checkGenerator(a.generator, a.source, deps.ai.provider),
      ...(await checkDestinations(ctx.db, ctx.workspaceId, brandId, a.destinations)),
      ...checkOutputAndOptions(a.output ?? { mode: 'draft' }, a.options ?? {}, a.source),
    ];
    if (issues.length > 0) throw validationFailed(issues);
    return source.source;
  }

  function stateConflict(row: AutomationRow, action: string): AppError {
    return new AppError('PUBLIC_API_STATE_CONFLICT', `Automation ${row.id} is ${row.status}; it cannot be ${action}.`);
  }

  return {
    async create(ctx: ServiceContext, body: CreateAutomationBody) {
      const brand = await bodyBrand(ctx, body.brand_id);
      const source = await check(ctx, brand.id, body);
      const status: AutomationStatus = body.status ?? 'active';
      const row = await repo.insertAutomation(ctx.db, {
        id: newId('auto'),
        workspace_id: ctx.workspaceId,
        brand_id: brand.id,
        name: body.name.trim(),
        status,
        source,
        generator: body.generator,
        destinations: body.destinations,
        output: body.output ?? { mode: 'draft' },
        options: body.options ?? {},
        // Only events after the automation exists start it.
        event_cursor: source.type === 'event' ? newId('evt', deps.clock.now().getTime()) : null,
        next_run_at: status === 'active' ? firstSlot({ source }, deps.clock.now()) : null,
        created_by: ctx.userId,
      });
      return renderAutomation(row);
    },

    async get(ctx: ServiceContext, id: string) {
      return renderAutomation(await findVisible(ctx, id));
    },

    async list(ctx: ServiceContext, query: ListAutomationsQuery) {
      const limit = query.limit ?? 20;
      if (query.brand_id !== undefined && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(query.brand_id))
        throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
      const filters: repo.AutomationFilters = {
        statuses: query.status ? ([...new Set(query.status)].sort() as AutomationStatus[]) : undefined,
        brandIds: query.brand_id !== undefined ? [query.brand_id] : (ctx.allowedBrandIds ?? undefined),
      };
      const after = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
      const rows = await repo.listAutomations(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      return {
        items: page.map(renderAutomation),
        next_cursor: hasMore ? encodeCursor({ value: last.created_at.toISOString(), id: last.id }, filters) : null,
        has_more: hasMore,
      };
    },

    /** A merge of the top-level fields; the whole is checked again, and a new source starts a new schedule. */
    async update(ctx: ServiceContext, id: string, body: PatchAutomationBody) {
      const row = await findVisible(ctx, id, true);
      if (row.status === 'archived') throw stateConflict(row, 'changed');
      const merged = {
        source: (body.source ?? row.source) as CreateAutomationBody['source'],
        generator: (body.generator ?? row.generator) as CreateAutomationBody['generator'],
        destinations: (body.destinations ?? row.destinations) as CreateAutomationBody['destinations'],
        output: (body.output ?? row.output) as CreateAutomationBody['output'],
        options: (body.options ?? row.options) as CreateAutomationBody['options'],
      };
      const source = await check(ctx, row.brand_id, merged);
      const sourceChanged = body.source !== undefined && JSON.stringify(source) !== JSON.stringify(row.source);
      const now = deps.clock.now();
      const updated = await repo.updateAutomation(ctx.db, ctx.workspaceId, id, {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...merged,
        source,
        ...(sourceChanged
          ? {
              next_run_at: row.status === 'active' ? firstSlot({ source }, now) : null,
              cursor: 0,
              event_cursor: source.type === 'event' ? newId('evt', now.getTime()) : null,
            }
          : {}),
      });
      return renderAutomation(updated);
    },

    /** Archives it: it never runs again and leaves the default list; its runs and posts stay. */
    async remove(ctx: ServiceContext, id: string) {
      const row = await findVisible(ctx, id, true);
      if (row.status === 'archived') throw stateConflict(row, 'deleted again');
      const archived = await repo.updateAutomation(ctx.db, ctx.workspaceId, id, {
        status: 'archived',
        next_run_at: null,
      });
      return renderAutomation(archived);
    },

    async pause(ctx: ServiceContext, id: string) {
      const row = await findVisible(ctx, id, true);
      if (row.status === 'archived') throw stateConflict(row, 'paused');
      if (row.status === 'paused') return renderAutomation(row);
      return renderAutomation(
        await repo.updateAutomation(ctx.db, ctx.workspaceId, id, { status: 'paused', next_run_at: null }),
      );
    },

    /** Active again from now: missed slots are not run, the failure count starts over, events while paused are skipped. */
    async resume(ctx: ServiceContext, id: string) {
      const row = await findVisible(ctx, id, true);
      if (row.status === 'archived') throw stateConflict(row, 'resumed');
      if (row.status === 'active') return renderAutomation(row);
      const now = deps.clock.now();
      return renderAutomation(
        await repo.updateAutomation(ctx.db, ctx.workspaceId, id, {
          status: 'active',
          next_run_at: firstSlot(row, now),
          consecutive_failures: 0,
          last_error: null,
          ...(row.source.type === 'event' ? { event_cursor: newId('evt', now.getTime()) } : {}),
        }),
      );
    },

    /**
     * A run now, whatever the schedule (a paused automation too, not an archived one). Its slot is the current
     * minute, so a repeated trigger within the minute answers the same run rather than posting twice.
     */
    async trigger(ctx: ServiceContext, id: string) {
      const row = await findVisible(ctx, id, true);
      if (row.status === 'archived') throw stateConflict(row, 'triggered');
      const minute = new Date(Math.floor(deps.clock.now().getTime() / 60_000) * 60_000);
      const slot = `manual:${minute.toISOString()}`;
      const trigger: RunTrigger = 'manual';
      const claimed = await repo.insertRun(ctx.db, {
        id: newId('arun'),
        automation_id: id,
        workspace_id: ctx.workspaceId,
        slot,
        trigger,
      });
      if (claimed) await queueRuns(ctx.db, [claimed]);
      return renderRun(claimed ?? (await repo.findRunBySlot(ctx.db, ctx.workspaceId, id, slot))!);
    },

    async runs(ctx: ServiceContext, id: string, query: ListRunsQuery) {
      await findVisible(ctx, id);
      const limit = query.limit ?? 20;
      const binding = { automation: id };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await repo.listRuns(ctx.db, ctx.workspaceId, id, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      return {
        items: page.map(renderRun),
        next_cursor: hasMore ? encodeCursor({ value: last.created_at.toISOString(), id: last.id }, binding) : null,
        has_more: hasMore,
      };
    },

    /** The next run's posts, rendered and validated; nothing is written (no run, no seen item, no post). */
    async preview(ctx: ServiceContext, id: string) {
      const row = await findVisible(ctx, id);
      return previewAutomation(deps, ctx, row);
    },
  };
}

export type AutomationsService = ReturnType<typeof createAutomationsService>;
