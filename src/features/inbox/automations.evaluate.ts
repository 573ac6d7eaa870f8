// Evaluating inbox automations on newly ingested items (docs/inbox.md "Evaluation"). Per item: `inbox.item.created`;
// an account's own reply (not one an automation sent) takes the thread over; any other item meets the automations
// whose scope holds it, keyword and intent ones in `position` order, then the `any` catch-alls. The first whose
// trigger and conditions match owns the item: its guardrails decide, its actions run, and no later one is tried.
// Each automation tried leaves one run row (`no_match` for those passed over).
import type { ServiceContext } from '../../app/context.ts';
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { gateFor } from '../approvals/approvals.gate.ts';
import { submitForApproval } from '../approvals/approvals.submit.ts';
import { containsTerm } from '../brands/brand-rules.ts';
import { findBrandRow } from '../brands/brands.repo.ts';
import { compileBrandContext } from '../brands/context.ts';
import { appendEvent, appendEvents } from '../events/outbox.ts';
import * as arepo from './automations.repo.ts';
import type { AutomationRow, RunRow } from './automations.repo.ts';
import {
  detectIntents,
  detectLanguage,
  matchKeyword,
  quietUntil,
  renderTemplate,
  templateValues,
} from './automations.rules.ts';
import * as repo from './inbox.repo.ts';
import type { InboxItemRow } from './inbox.types.ts';
import { renderItem } from './inbox.view.ts';
import { queueSend } from './replies.ts';

export interface EvaluateDeps {
  db: Queryable;
  clock: Clock;
}

const MINUTE = 60_000;
const REPLY_ACTIONS = new Set(['reply_public', 'reply_private']);

function inScope(a: AutomationRow, item: InboxItemRow): boolean {
  const s = a.scope;
  return (
    (s.connection_ids.length === 0 || s.connection_ids.includes(item.connectionId)) &&
    (s.kinds.length === 0 || s.kinds.includes(item.kind)) &&
    (!s.post_ids?.length || (item.postId !== null && s.post_ids.includes(item.postId)))
  );
}

/** The keyword matched ('' for intent and any), or null when the trigger does not match. */
function triggerMatch(a: AutomationRow, item: InboxItemRow): string | null {
  const t = a.trigger;
  if (t.type === 'any') return '';
  if (t.type === 'keyword') return matchKeyword(item.text, t.keywords ?? [], t.match ?? 'word');
  const intents = detectIntents(item.text);
  return (t.intents ?? []).some((i) => intents.includes(i as never)) ? '' : null;
}

async function conditionsHold(db: Queryable, a: AutomationRow, item: InboxItemRow): Promise<string | null> {
  const c = a.conditions;
  if (c.languages) {
    const lang = detectLanguage(item.text);
    if (lang === null || !c.languages.includes(lang))
      return `language ${lang ?? 'undetermined'} is not among ${c.languages.join(', ')}`;
  }
  if (c.first_interaction_only) {
    const seen = await arepo.authorSeenBefore(db, item.workspaceId, {
      id: item.id,
      connectionId: item.connectionId,
      authorId: item.author.platform_user_id,
      receivedAt: item.receivedAt,
    });
    if (seen) return 'not the author’s first interaction';
  }
  return null;
}

type Verdict = Pick<RunRow, 'outcome' | 'reason' | 'detail' | 'response_id'>;
const skipped = (reason: NonNullable<RunRow['reason']>, detail: string | null): Verdict => ({
  outcome: 'skipped',
  reason,
  detail,
  response_id: null,
});

/** The owning automation's guardrails and actions on one item. */
async function act(
  deps: EvaluateDeps,
  a: AutomationRow,
  item: InboxItemRow,
  keyword: string,
  pausedThreads: Set<string>,
): Promise<Verdict> {
  const db = deps.db;
  const now = deps.clock.now();
  const g = a.guardrails;
  if (pausedThreads.has(repo.threadKey(item))) return skipped('human_takeover', 'A person answered in this thread.');
  const blocked = g.blocked_terms.find((term) => containsTerm(item.text, term));
  if (blocked !== undefined) return skipped('blocked_term', `The message contains “${blocked}”.`);
  const sendAt = g.quiet_hours ? (quietUntil(g.quiet_hours, now) ?? now) : now;
  const replies = a.actions.filter((x) => REPLY_ACTIONS.has(x.type));
  if (replies.length > 0 && item.replyWindowEndsAt && item.replyWindowEndsAt <= sendAt)
    return skipped('window_closed', `The reply window closed at ${item.replyWindowEndsAt.toISOString()}.`);
  const authorKey = `${item.connectionId} ${item.author.platform_user_id}`;
  if (g.dedup_window_minutes > 0) {
    const since = new Date(now.getTime() - g.dedup_window_minutes * MINUTE);
    if ((await arepo.answeredSince(db, item.workspaceId, a.id, authorKey, since)) > 0)
      return skipped('dedup', `Already answered this author in the last ${g.dedup_window_minutes} minutes.`);
  }
  if (g.daily_cap !== null) {
    const since = new Date(now.getTime() - 1440 * MINUTE);
    if ((await arepo.answeredSince(db, item.workspaceId, a.id, null, since)) >= g.daily_cap)
      return skipped('cap', `The cap of ${g.daily_cap} answers per 24 hours is reached.`);
  }

  const brandId = item.brandId ?? (await arepo.defaultBrandId(db, item.workspaceId));
  const brandRow = brandId ? await findBrandRow(db, item.workspaceId, brandId) : undefined;
  const values = templateValues(item, brandRow ? compileBrandContext(brandRow) : null, keyword || undefined);
  const texts = replies.map((r) => renderTemplate(r.template ?? '', values));
  const blockedReply = texts.flatMap((t) => g.blocked_terms.filter((term) => containsTerm(t, term)))[0];
  if (blockedReply !== undefined) return skipped('blocked_term', `The reply would contain “${blockedReply}”.`);

  const ctx: ServiceContext = {
    db,
    workspaceId: item.workspaceId,
    workspaceMode: 'live',
    brandId,
    brandFromHeader: false,
    allowedBrandIds: null,
    userId: a.id,
    via: 'automation',
  };
  const gate = brandId ? await gateFor(ctx, brandId, 'inbox_automation') : null;
  const approval = brandId !== null && (a.response_mode === 'approval' || gate?.gated === true);
  const responseIds: string[] = [];
  for (const [i, action] of replies.entries()) {
    const response = await repo.insertResponse(db, {
      id: newId('inr'),
      workspace_id: item.workspaceId,
      item_id: item.id,
      text: texts[i]!,
      private: action.type === 'reply_private',
      source: 'automation',
      automation_id: a.id,
      sent_by: null,
      idempotency_key: null,
      status: approval ? 'pending_approval' : 'queued',
      send_after: sendAt > now ? sendAt : null,
    });
    responseIds.push(response.id);
    if (approval)
      await submitForApproval(ctx, {
        kind: 'inbox_reply',
        subject: { type: 'inbox_reply', id: response.id },
        brandId: brandId!,
        platforms: [item.platform],
        proposedAction: { type: 'send_reply', at: sendAt > now ? sendAt : null },
        source: { type: 'inbox_automation', id: a.id },
        preview: {
          [item.platform]: { text: response.text, private: response.private, in_reply_to: item.text, item_id: item.id },
        },
        policy: gate!.policy,
        now,
      });
    else await queueSend(db, item.workspaceId, response.id, sendAt > now ? sendAt : null);
  }
  const labels = a.actions.flatMap((x) => (x.type === 'label' ? (x.labels ?? []) : []));
  const assignee = a.actions.find((x) => x.type === 'assign')?.assignee_id ?? null;
  if (labels.length > 0 || assignee !== null) await repo.tagItem(db, item.workspaceId, item.id, labels, assignee);
  const outcome = replies.length > 0 && approval ? 'queued_for_approval' : 'sent';
  const hook = a.actions.find((x) => x.type === 'webhook');
  await appendEvent(db, item.workspaceId, 'inbox.automation.triggered', {
    automation_id: a.id,
    item_id: item.id,
    outcome,
    response_ids: responseIds,
    actions: a.actions.map((x) => x.type),
    webhook_payload: hook ? renderTemplate(hook.template ?? '', values) : null,
  });
  return {
    outcome,
    reason: null,
    detail: sendAt > now ? `Held until quiet hours end at ${sendAt.toISOString()}.` : null,
    response_id: responseIds[0] ?? null,
  };
}

export async function evaluateItems(
  deps: EvaluateDeps,
  items: readonly InboxItemRow[],
): Promise<{ created: number; takenOver: number; runs: number }> {
  const tally = { created: 0, takenOver: 0, runs: 0 };
  const automations = new Map<string, AutomationRow[]>();
  const paused = new Map<string, Set<string>>();
  // The page's `inbox.item.created` events in one insert (and one webhook fan-out), ahead of what automations do.
  await appendEvents(
    deps.db,
    items.map((item) => ({
      workspaceId: item.workspaceId,
      type: 'inbox.item.created' as const,
      data: renderItem(item, { paused: false }),
    })),
  );
  tally.created = items.length;
  for (const item of items) {
    const ws = item.workspaceId;
    if (item.fromAccount) {
      if (!(await repo.isAutomationReply(deps.db, ws, item.platformItemId))) {
        await repo.takeOverThread(deps.db, ws, item, { itemId: item.id });
        paused.get(ws)?.add(repo.threadKey(item));
        tally.takenOver++;
      }
      continue;
    }
    if (!automations.has(ws)) automations.set(ws, await arepo.activeAutomations(deps.db, ws, deps.clock.now()));
    const candidates = automations.get(ws)!.filter((a) => inScope(a, item));
    if (candidates.length === 0) continue;
    const ordered = [
      ...candidates.filter((a) => a.trigger.type !== 'any'),
      ...candidates.filter((a) => a.trigger.type === 'any'),
    ];
    if (!paused.has(ws)) paused.set(ws, new Set());
    const threads = await repo.takenOverThreads(deps.db, ws, [item]);
    for (const k of threads) paused.get(ws)!.add(k);
    for (const a of ordered) {
      const keyword = triggerMatch(a, item);
      const unmet = keyword === null ? 'The trigger did not match.' : await conditionsHold(deps.db, a, item);
      const verdict = unmet !== null ? skipped('no_match', unmet) : await act(deps, a, item, keyword!, paused.get(ws)!);
      const inserted = await arepo.insertRun(deps.db, ws, {
        id: newId('inbr'),
        automation_id: a.id,
        item_id: item.id,
        author_key: `${item.connectionId} ${item.author.platform_user_id}`,
        ...verdict,
      });
      if (inserted) tally.runs++;
      if (unmet === null) break;
    }
  }
  return tally;
}
