// The inbox API (docs/inbox.md): list and read items with their thread, triage them (status, assignee, labels),
// store or write a draft, and answer an item. Answering is replies.ts's one path to the platform; the respond call
// keys its reply by the request's Idempotency-Key, so a retry never posts twice.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import type { Pool } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { AiService } from '../ai/ai.service.ts';
import { brandScope } from '../analytics/scope.ts';
import { findBrandRow } from '../brands/brands.repo.ts';
import { compileBrandContext } from '../brands/context.ts';
import { parseTime } from '../posts/posts.writing.ts';
import { renderTemplate, templateValues, unknownPlaceholders } from './automations.rules.ts';
import * as repo from './inbox.repo.ts';
import type { ResponseRow } from './inbox.repo.ts';
import type { DraftBody, ListInboxQuery, RespondBody, UpdateInboxItemBody } from './inbox.schemas.ts';
import type { InboxItemRow } from './inbox.types.ts';
import { renderItem, renderResponse } from './inbox.view.ts';
import { recordOutcome, type ReplySender } from './replies.ts';

export interface InboxServiceDeps {
  clock: Clock;
  ai: AiService;
  /** Where replies go: the platform through the adapters (tests stand in for it by replacing `send`). */
  sender: { send: ReplySender };
}

function rule(path: string, name: string, message: string): AppError {
  return validationFailed([{ platform: null, rule: name, path, message }]);
}

export function createInboxService(deps: InboxServiceDeps) {
  /** The item if the caller may see it (a key limited to brands sees only their items); 404 otherwise. */
  async function visible(ctx: ServiceContext, id: string): Promise<InboxItemRow> {
    const item = await repo.findItem(ctx.db, ctx.workspaceId, id);
    if (!item || (ctx.allowedBrandIds && (item.brandId === null || !ctx.allowedBrandIds.includes(item.brandId))))
      throw notFound('inbox item');
    return item;
  }

  async function render(ctx: ServiceContext, rows: InboxItemRow[]) {
    const ids = rows.map((r) => r.id);
    // One after another: `ctx.db` is a single client (a write's transaction), which runs one query at a time.
    const drafts = await repo.findDrafts(ctx.db, ctx.workspaceId, ids);
    const responses = await repo.responsesOf(ctx.db, ctx.workspaceId, ids);
    const paused = await repo.takenOverThreads(ctx.db, ctx.workspaceId, rows);
    return rows.map((r) =>
      renderItem(r, { draft: drafts.get(r.id), responses: responses.get(r.id), paused: paused.has(repo.threadKey(r)) }),
    );
  }

  async function brandOf(ctx: ServiceContext, item: InboxItemRow) {
    const id = item.brandId ?? ctx.brandId;
    const row = id ? await findBrandRow(ctx.db, ctx.workspaceId, id) : undefined;
    return row ? compileBrandContext(row) : null;
  }

  return {
    render,

    async list(ctx: ServiceContext, query: ListInboxQuery) {
      const limit = query.limit ?? 20;
      const time = (value: string | undefined, path: string) =>
        value === undefined ? undefined : parseTime(value, path, 'PUBLIC_API_QUERY_INVALID');
      const filters: repo.InboxFilters = {
        kinds: query.kind ? [...new Set(query.kind)].toSorted() : undefined,
        statuses: query.status ? [...new Set(query.status)].toSorted() : undefined,
        platform: query.platform,
        connectionId: query.connection_id,
        brandIds: brandScope(ctx, query.brand_id),
        postId: query.post_id,
        assigneeId: query.assignee_id,
        label: query.label,
        q: query.q,
        receivedFrom: time(query.received_from, '/received_from'),
        receivedTo: time(query.received_to, '/received_to'),
      };
      if (filters.receivedFrom && filters.receivedTo && filters.receivedFrom >= filters.receivedTo)
        throw rule('/received_from', 'window_order', '`received_from` must be before `received_to`.');
      const after = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
      const rows = await repo.listItems(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      return {
        items: await render(ctx, page),
        next_cursor: hasMore ? encodeCursor({ value: last.receivedAt.toISOString(), id: last.id }, filters) : null,
        has_more: hasMore,
      };
    },

    async get(ctx: ServiceContext, id: string) {
      const item = await visible(ctx, id);
      const thread = await repo.threadItems(ctx.db, ctx.workspaceId, item.connectionId, item.threadId);
      const [view] = await render(ctx, [item]);
      return { ...view!, thread: await render(ctx, thread) };
    },

    async update(ctx: ServiceContext, id: string, body: UpdateInboxItemBody) {
      await visible(ctx, id);
      if (body.assignee_id && !(await repo.isMember(ctx.db, ctx.workspaceId, body.assignee_id)))
        throw rule('/assignee_id', 'assignee_not_member', `${body.assignee_id} is not a member of this workspace.`);
      const updated = await repo.updateItem(ctx.db, ctx.workspaceId, id, {
        status: body.status,
        assigneeId: body.assignee_id,
        labels: body.labels ? [...body.labels].toSorted() : undefined,
      });
      return (await render(ctx, [updated!]))[0]!;
    },

    async draft(ctx: ServiceContext, id: string, body: DraftBody) {
      const item = await visible(ctx, id);
      const given = [body.text, body.template, body.generate].filter((v) => v !== undefined).length;
      if (given !== 1)
        throw new AppError('PUBLIC_API_BODY_INVALID', 'Send exactly one of text, template or generate: true.', {
          details: [{ path: '', message: 'needs exactly one of text, template, generate' }],
        });
      const brand = await brandOf(ctx, item);
      let draft: { text: string; source: 'text' | 'template' | 'generated'; generatedBy: unknown };
      if (body.text !== undefined) draft = { text: body.text, source: 'text', generatedBy: null };
      else if (body.template !== undefined) {
        const unknown = unknownPlaceholders(body.template);
        if (unknown.length > 0)
          throw rule(
            '/template',
            'template_placeholder_unknown',
            `Unknown placeholders: ${unknown.map((u) => `{{${u}}}`).join(', ')}.`,
          );
        const text = renderTemplate(body.template, templateValues(item, brand));
        if (text === '') throw rule('/template', 'template_empty', 'The template filled to no text.');
        draft = { text, source: 'template', generatedBy: null };
      } else {
        const author = item.author.display_name ?? item.author.username ?? undefined;
        const generated = await deps.ai.generate<{ text: string }>({
          task: 'reply_draft',
          brand: brand ?? { text: '' },
          inputs: { message: item.text.trim() === '' ? '(no text)' : item.text, ...(author ? { author } : {}) },
          workspaceId: ctx.workspaceId,
        });
        draft = { text: generated.output.text, source: 'generated', generatedBy: generated.generated_by };
      }
      await repo.saveDraft(ctx.db, ctx.workspaceId, id, { ...draft, userId: ctx.userId });
      return (await render(ctx, [item]))[0]!;
    },

    /**
     * Answers the item. The reply's row is written and committed as `sending`, under the request's Idempotency-Key,
     * before the platform is called (through `pool`, outside the request's transaction): a retry of a request that
     * died after the platform answered finds it and never calls again, and a request made while the first one is
     * still calling the platform waits for its answer and gives the same one. A platform rule (closed reply window, deleted
     * comment) is a 422 naming the rule; any other fault answers `status: failed` with its error.
     */
    async respond(ctx: ServiceContext, pool: Pool, id: string, body: RespondBody, key: string) {
      const item = await visible(ctx, id);
      if ((body.text === undefined) === (body.use_draft === undefined))
        throw new AppError('PUBLIC_API_BODY_INVALID', 'Send either text or use_draft: true.', {
          details: [{ path: '', message: 'needs exactly one of text, use_draft' }],
        });
      let text = body.text;
      if (body.use_draft) {
        text = (await repo.findDrafts(ctx.db, ctx.workspaceId, [id])).get(id)?.text;
        if (text === undefined) throw rule('/use_draft', 'draft_missing', `Item ${id} has no draft: store one first.`);
      }
      if (item.fromAccount)
        throw rule(
          '',
          'reply_to_own_message',
          'This item is the account’s own message; answer the item it replies to.',
        );
      let response = await repo.findResponseByKey(pool, ctx.workspaceId, id, key);
      const claimed = response
        ? undefined
        : await repo.claimResponseKey(pool, {
            id: newId('inr'),
            workspaceId: ctx.workspaceId,
            itemId: id,
            text: text!,
            private: body.private ?? false,
            sentBy: ctx.userId,
            key,
          });
      // A concurrent request with the same key wrote the row first: its answer is this one's, once it has one.
      response ??= claimed ?? (await repo.findResponseByKey(pool, ctx.workspaceId, id, key))!;
      if (!claimed && response.status === 'sending') response = await settled(pool, ctx.workspaceId, id, key, response);
      if (claimed) {
        const outcome = await deps.sender.send(item, claimed.text, { private: claimed.private });
        if (!outcome.ok && outcome.rule && !outcome.retryable) {
          await recordOutcome(pool, item, claimed, outcome);
          throw rule('', outcome.rule, outcome.message);
        }
        response = await recordOutcome(ctx.db, item, claimed, outcome);
        if (outcome.ok) await repo.takeOverThread(ctx.db, ctx.workspaceId, item, { userId: ctx.userId });
      } else if (response.status === 'sending') {
        response = await recordOutcome(ctx.db, item, response, {
          ok: false,
          code: 'outcome_unknown',
          message: 'An earlier request with this key stopped while the platform was called; it is not sent again.',
          retryable: false,
        });
      } else if (response.status === 'failed' && response.error?.rule) {
        throw rule('', response.error.rule, response.error.message);
      }
      return {
        status: response.status === 'sent' ? ('sent' as const) : ('failed' as const),
        platform_reply_id: response.platform_reply_id,
        error: response.error,
        response: renderResponse(response),
      };
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;

/**
 * How long a reply may stay `sending` while its request is alive: the platform call's own timeout (15 s) with room
 * for its retries. Older, its request stopped during the call, and the reply's fate is unknown.
 */
const SENDING_ALIVE_MS = 45_000;
const SENDING_POLL_MS = 100;

/** A reply another request with the same key is sending, once it is sent or failed (or that request is gone). */
async function settled(
  pool: Pool,
  workspaceId: string,
  itemId: string,
  key: string,
  response: ResponseRow,
): Promise<ResponseRow> {
  let current = response;
  while (current.status === 'sending' && Date.now() - current.created_at.getTime() < SENDING_ALIVE_MS) {
    await new Promise((resolve) => setTimeout(resolve, SENDING_POLL_MS));
    current = (await repo.findResponseByKey(pool, workspaceId, itemId, key)) ?? current;
  }
  return current;
}
