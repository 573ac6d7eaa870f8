// Routes of the inbox API (docs/inbox.md): schema, access and one service call each. Reading takes `inbox:read`;
// triage, drafts and replies take `inbox:write` (and an Idempotency-Key, as every write; on respond it is
// mandatory for every key, `actions` keys included, because it is what keeps a retry from posting twice).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../app/errors.ts';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import {
  DraftBody,
  InboxIdParams,
  InboxItem,
  InboxItemWithThread,
  ListInboxQuery,
  RespondBody,
  RespondResult,
  UpdateInboxItemBody,
} from './inbox.schemas.ts';
import type { InboxService } from './inbox.service.ts';

const read: RouteAccess = { scopes: ['inbox:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['inbox:write'], workspace: true, mutates: true };

export function registerInboxRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; inbox: InboxService },
): void {
  const app = typed(fastify);
  const tags = ['Inbox'];
  const { inbox } = deps;

  app.get(
    '/inbox',
    {
      config: { access: read },
      schema: {
        operationId: 'listInboxItems',
        tags,
        summary: 'List inbox items',
        description:
          'Comments, replies, mentions, direct messages and reviews from the connected accounts, newest received first, paginated by an opaque cursor. Filters: `kind`, `status` (e.g. `status=open`), `platform`, `connection_id`, `brand_id`, `post_id`, `assignee_id`, `label`, `q` (text contained, case-insensitive), received between `received_from` and `received_to`. A key limited to some brands sees only their items.',
        querystring: ListInboxQuery,
        response: { 200: Envelope(ListOf(InboxItem)) },
      },
      preValidation: [listQuery('status'), listQuery('kind')],
    },
    async (request) => inbox.list(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/inbox/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getInboxItem',
        tags,
        summary: 'Get an inbox item with its thread',
        description:
          'The item with its `draft`, its `responses` and its `thread`: every item of the conversation, oldest first.',
        params: InboxIdParams,
        response: { 200: Envelope(InboxItemWithThread) },
      },
    },
    async (request) => inbox.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.patch(
    '/inbox/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateInboxItem',
        tags,
        summary: 'Triage an inbox item',
        description:
          'Changes `status`, `assignee_id` (a member of the workspace, or null; 422 `assignee_not_member` otherwise) and `labels` (replaced).',
        params: InboxIdParams,
        body: UpdateInboxItemBody,
        response: { 200: Envelope(InboxItem) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await inbox.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.post(
    '/inbox/:id/draft',
    {
      config: { access: write },
      schema: {
        operationId: 'draftInboxReply',
        tags,
        summary: 'Store or write a draft reply',
        description:
          'Exactly one of `text` (stored as given), `template` (filled with the item’s author and the brand; an unknown placeholder is a 422 `template_placeholder_unknown`) or `generate: true` (the text-generation provider with the brand context; the deterministic engine answers when no model is configured). Replaces the item’s draft; nothing is sent.',
        params: InboxIdParams,
        body: DraftBody,
        response: { 200: Envelope(InboxItem) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await inbox.draft(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.post(
    '/inbox/:id/respond',
    {
      config: { access: { ...write, idempotencyField: true } },
      schema: {
        operationId: 'respondToInboxItem',
        tags,
        summary: 'Reply to an inbox item',
        description:
          'Posts `text`, or the stored draft with `use_draft: true`, as a reply through the platform (`private: true` answers by direct message where the platform can). The Idempotency-Key is mandatory: a retry with the same key answers the first result and never posts twice. Answers `status: sent` with `platform_reply_id`, or `status: failed` with the `error` (a rate limit, an outage). A platform rule — a closed reply window, a deleted comment — is a 422 naming the rule. A reply sent here pauses the inbox automations for the thread.',
        params: InboxIdParams,
        body: RespondBody,
        response: { 200: Envelope(RespondResult) },
      },
    },
    mutation(deps, async (request, tx) => {
      // An `actions` key may write without a key elsewhere (recognised by content); a reply may not.
      const key = request.ctx.idempotencyKey;
      if (!key)
        throw new AppError(
          'PUBLIC_API_IDEMPOTENCY_REQUIRED',
          'Replying needs an Idempotency-Key header (or idempotency_key): it is what keeps a retry from posting the reply twice.',
        );
      return {
        status: 200,
        data: await inbox.respond(serviceContext(request, tx), deps.pool, request.params.id, request.body, key),
      };
    }),
  );
}
