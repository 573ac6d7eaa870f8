// Inbox automations (docs/inbox.md "Automations"): create, read, change, delete, and their runs. Every rule a
// schema cannot say is checked here and answered as a 422 naming it: unknown template placeholders, a trigger
// without its keywords or intents, an action without what it needs, quiet hours, members and connections.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { notFound, validationFailed, type ErrorDetail } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import { parseTime } from '../posts/posts.writing.ts';
import * as arepo from './automations.repo.ts';
import type { AutomationFields, AutomationRow, RunRow, Stats } from './automations.repo.ts';
import { DEFAULT_DEDUP_WINDOW_MINUTES, quietHoursProblem, unknownPlaceholders } from './automations.rules.ts';
import type { CreateAutomationBody, ListPageQuery, UpdateAutomationBody } from './automations.schemas.ts';
import { isMember } from './inbox.repo.ts';

const issue = (path: string, rule: string, message: string): ErrorDetail => ({ path, rule, message, platform: null });

/** Automations are workspace-wide: a key limited to some brands may read them but not change them. */
function requireWholeWorkspace(ctx: ServiceContext): void {
  if (ctx.allowedBrandIds)
    throw validationFailed([
      issue(
        '',
        'automation_needs_all_brands',
        'Inbox automations act on every brand’s items: use a key not limited to brands.',
      ),
    ]);
}

function fields(body: CreateAutomationBody): Omit<AutomationFields, 'position'> & { position: number | null } {
  return {
    name: body.name,
    enabled: body.enabled ?? true,
    position: body.position ?? null,
    scope: {
      connection_ids: body.scope?.connection_ids ?? [],
      kinds: body.scope?.kinds ?? [],
      ...(body.scope?.post_ids ? { post_ids: body.scope.post_ids } : {}),
    },
    trigger: { ...body.trigger, ...(body.trigger.type === 'keyword' ? { match: body.trigger.match ?? 'word' } : {}) },
    conditions: {
      first_interaction_only: body.conditions?.first_interaction_only ?? false,
      ...(body.conditions?.languages ? { languages: body.conditions.languages } : {}),
    },
    actions: body.actions,
    response_mode: body.response_mode ?? 'auto',
    guardrails: {
      dedup_window_minutes: body.guardrails?.dedup_window_minutes ?? DEFAULT_DEDUP_WINDOW_MINUTES,
      daily_cap: body.guardrails?.daily_cap ?? null,
      quiet_hours: body.guardrails?.quiet_hours ?? null,
      blocked_terms: body.guardrails?.blocked_terms ?? [],
    },
    active_until: body.active_until ? parseTime(body.active_until, '/active_until') : null,
  };
}

async function check(ctx: ServiceContext, f: ReturnType<typeof fields>): Promise<void> {
  const issues: ErrorDetail[] = [];
  const t = f.trigger;
  if (t.type === 'keyword' && !t.keywords?.length)
    issues.push(issue('/trigger/keywords', 'keywords_required', 'A keyword trigger needs at least one keyword.'));
  if (t.type === 'intent' && !t.intents?.length)
    issues.push(issue('/trigger/intents', 'intents_required', 'An intent trigger needs at least one intent.'));
  if (t.type !== 'keyword' && (t.keywords !== undefined || t.match !== undefined))
    issues.push(
      issue('/trigger/keywords', 'trigger_field_unexpected', 'keywords and match go with a keyword trigger only.'),
    );
  if (t.type !== 'intent' && t.intents !== undefined)
    issues.push(issue('/trigger/intents', 'trigger_field_unexpected', 'intents go with an intent trigger only.'));
  for (const [i, a] of f.actions.entries()) {
    const at = `/actions/${i}`;
    if ((a.type === 'reply_public' || a.type === 'reply_private' || a.type === 'webhook') && a.template === undefined)
      issues.push(issue(`${at}/template`, 'template_required', `A ${a.type} action needs its template.`));
    if (a.type === 'assign' && a.assignee_id === undefined)
      issues.push(issue(`${at}/assignee_id`, 'assignee_required', 'An assign action needs assignee_id.'));
    if (a.type === 'label' && a.labels === undefined)
      issues.push(issue(`${at}/labels`, 'labels_required', 'A label action needs labels.'));
    if (a.template !== undefined) {
      const unknown = unknownPlaceholders(a.template);
      if (unknown.length > 0)
        issues.push(
          issue(
            `${at}/template`,
            'template_placeholder_unknown',
            `Unknown placeholders: ${unknown.map((u) => `{{${u}}}`).join(', ')}. Known: see docs/inbox.md "Templates".`,
          ),
        );
    }
    if (a.assignee_id !== undefined && !(await isMember(ctx.db, ctx.workspaceId, a.assignee_id)))
      issues.push(
        issue(`${at}/assignee_id`, 'assignee_not_member', `${a.assignee_id} is not a member of this workspace.`),
      );
  }
  const q = f.guardrails.quiet_hours;
  const problem = q ? quietHoursProblem(q) : null;
  if (problem) issues.push(issue('/guardrails/quiet_hours', 'quiet_hours_invalid', problem));
  if (f.scope.connection_ids.length > 0) {
    const { rows } = await ctx.db.query<{ id: string }>(
      'SELECT id FROM connections WHERE workspace_id = $1 AND id = ANY($2)',
      [ctx.workspaceId, f.scope.connection_ids],
    );
    const known = new Set(rows.map((r) => r.id));
    f.scope.connection_ids.forEach((id, i) => {
      if (!known.has(id))
        issues.push(
          issue(`/scope/connection_ids/${i}`, 'connection_not_found', `No connection ${id} in this workspace.`),
        );
    });
  }
  if (issues.length > 0) throw validationFailed(issues);
}

export function renderAutomation(row: AutomationRow, stats: Stats | undefined) {
  return {
    id: row.id,
    object: 'inbox_automation' as const,
    name: row.name,
    enabled: row.enabled,
    position: row.position,
    scope: row.scope,
    trigger: row.trigger,
    conditions: row.conditions,
    actions: row.actions,
    response_mode: row.response_mode,
    guardrails: row.guardrails,
    active_until: row.active_until ? row.active_until.toISOString() : null,
    stats: {
      runs: stats?.runs ?? 0,
      sent: stats?.sent ?? 0,
      queued_for_approval: stats?.queued_for_approval ?? 0,
      skipped: stats?.skipped ?? 0,
      last_triggered_at: stats?.last_triggered_at ? stats.last_triggered_at.toISOString() : null,
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function renderRun(r: RunRow) {
  return {
    id: r.id,
    object: 'inbox_automation_run' as const,
    automation_id: r.automation_id,
    item_id: r.item_id,
    outcome: r.outcome,
    reason: r.reason,
    detail: r.detail,
    response_id: r.response_id,
    created_at: r.created_at.toISOString(),
  };
}

/** Cursors carry a timestamp: the position travels as that many milliseconds after the epoch. */
const positionStamp = (position: number) => new Date(position).toISOString();

async function one(ctx: ServiceContext, row: AutomationRow) {
  return renderAutomation(row, (await arepo.automationStats(ctx.db, ctx.workspaceId, [row.id])).get(row.id));
}

export function createInboxAutomationsService() {
  async function found(ctx: ServiceContext, id: string, lock = false): Promise<AutomationRow> {
    const row = await arepo.findAutomation(ctx.db, ctx.workspaceId, id, lock);
    if (!row) throw notFound('inbox automation');
    return row;
  }

  return {
    async create(ctx: ServiceContext, body: CreateAutomationBody) {
      requireWholeWorkspace(ctx);
      const f = fields(body);
      await check(ctx, f);
      return one(ctx, await arepo.insertAutomation(ctx.db, ctx.workspaceId, newId('inba'), f, ctx.userId));
    },

    async get(ctx: ServiceContext, id: string) {
      return one(ctx, await found(ctx, id));
    },

    async update(ctx: ServiceContext, id: string, body: UpdateAutomationBody) {
      requireWholeWorkspace(ctx);
      const current = await found(ctx, id, true);
      const merged = fields({
        name: body.name ?? current.name,
        enabled: body.enabled ?? current.enabled,
        position: body.position ?? current.position,
        scope: body.scope ?? (current.scope as CreateAutomationBody['scope']),
        trigger: (body.trigger ?? current.trigger) as CreateAutomationBody['trigger'],
        conditions: body.conditions ?? (current.conditions as CreateAutomationBody['conditions']),
        actions: (body.actions ?? current.actions) as CreateAutomationBody['actions'],
        response_mode: body.response_mode ?? current.response_mode,
        guardrails: body.guardrails ?? current.guardrails,
        active_until:
          body.active_until !== undefined ? body.active_until : (current.active_until?.toISOString() ?? null),
      });
      await check(ctx, merged);
      const row = await arepo.updateAutomation(ctx.db, ctx.workspaceId, id, { ...merged, position: merged.position! });
      return one(ctx, row!);
    },

    async remove(ctx: ServiceContext, id: string) {
      requireWholeWorkspace(ctx);
      const row = await found(ctx, id, true);
      const view = await one(ctx, row);
      await arepo.deleteAutomation(ctx.db, ctx.workspaceId, id);
      return view;
    },

    async list(ctx: ServiceContext, query: ListPageQuery) {
      const limit = query.limit ?? 20;
      const binding = { list: 'inbox_automations' };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await arepo.listAutomations(ctx.db, ctx.workspaceId, after, limit + 1);
      const page = rows.slice(0, limit);
      const stats = await arepo.automationStats(
        ctx.db,
        ctx.workspaceId,
        page.map((r) => r.id),
      );
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      return {
        items: page.map((r) => renderAutomation(r, stats.get(r.id))),
        next_cursor: hasMore ? encodeCursor({ value: positionStamp(last.position), id: last.id }, binding) : null,
        has_more: hasMore,
      };
    },

    async runs(ctx: ServiceContext, id: string, query: ListPageQuery) {
      await found(ctx, id);
      const limit = query.limit ?? 20;
      const binding = { automation: id };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await arepo.listRuns(ctx.db, ctx.workspaceId, id, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      return {
        items: page.map(renderRun),
        next_cursor: hasMore ? encodeCursor({ value: last.created_at.toISOString(), id: last.id }, binding) : null,
        has_more: hasMore,
      };
    },
  };
}

export type InboxAutomationsService = ReturnType<typeof createInboxAutomationsService>;
