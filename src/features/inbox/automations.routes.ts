// Routes of inbox automations (docs/inbox.md "Automations"): reading takes `inbox:read`; creating, changing and
// deleting take `inbox:write`.
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import {
  AutomationIdParams,
  CreateAutomationBody,
  InboxAutomation,
  InboxAutomationRun,
  ListPageQuery,
  UpdateAutomationBody,
} from './automations.schemas.ts';
import type { InboxAutomationsService } from './automations.service.ts';

const read: RouteAccess = { scopes: ['inbox:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['inbox:write'], workspace: true, mutates: true };

export function registerInboxAutomationRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; automations: InboxAutomationsService },
): void {
  const app = typed(fastify);
  const tags = ['Inbox'];
  const { automations } = deps;

  app.get(
    '/inbox/automations',
    {
      config: { access: read },
      schema: {
        operationId: 'listInboxAutomations',
        tags,
        summary: 'List inbox automations',
        description: 'The workspace’s automations in evaluation order (`position`, then id), each with its `stats`.',
        querystring: ListPageQuery,
        response: { 200: Envelope(ListOf(InboxAutomation)) },
      },
    },
    async (request) => automations.list(serviceContext(request, deps.pool), request.query),
  );

  app.post(
    '/inbox/automations',
    {
      config: { access: write },
      schema: {
        operationId: 'createInboxAutomation',
        tags,
        summary: 'Create an inbox automation',
        description:
          'A rule that answers matching inbox items: `scope`, `trigger` (`keyword`, `intent`, or the catch-all `any`), `conditions`, `actions` (`reply_public`, `reply_private`, `assign`, `label`, `webhook`), `response_mode` (`auto`, or `approval`: replies wait as `inbox_reply` approval items) and `guardrails`. Template placeholders outside docs/inbox.md "Templates" are a 422 `template_placeholder_unknown`. A key limited to some brands cannot create one (422 `automation_needs_all_brands`).',
        body: CreateAutomationBody,
        response: { 201: Envelope(InboxAutomation) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await automations.create(serviceContext(request, tx), request.body),
    })),
  );

  app.get(
    '/inbox/automations/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getInboxAutomation',
        tags,
        summary: 'Get an inbox automation',
        description: 'The automation with its `stats`: runs by outcome and when it last acted.',
        params: AutomationIdParams,
        response: { 200: Envelope(InboxAutomation) },
      },
    },
    async (request) => automations.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.patch(
    '/inbox/automations/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateInboxAutomation',
        tags,
        summary: 'Change an inbox automation',
        description: 'Replaces the fields sent (each one whole: `actions` is the new list); checked as on creation.',
        params: AutomationIdParams,
        body: UpdateAutomationBody,
        response: { 200: Envelope(InboxAutomation) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await automations.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/inbox/automations/:id',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'deleteInboxAutomation',
        tags,
        summary: 'Delete an inbox automation',
        description: 'Deletes it with its runs; replies it queued or left for approval stay.',
        params: AutomationIdParams,
        response: { 200: Envelope(InboxAutomation) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await automations.remove(serviceContext(request, tx), request.params.id),
    })),
  );

  app.get(
    '/inbox/automations/:id/runs',
    {
      config: { access: read },
      schema: {
        operationId: 'listInboxAutomationRuns',
        tags,
        summary: 'List an automation’s runs',
        description:
          'One row per evaluation, newest first: `outcome` (`sent`, `queued_for_approval`, `skipped`) and, when skipped, `reason` (`dedup`, `window_closed`, `cap`, `no_match`, `human_takeover`, `blocked_term`) with `detail`.',
        params: AutomationIdParams,
        querystring: ListPageQuery,
        response: { 200: Envelope(ListOf(InboxAutomationRun)) },
      },
    },
    async (request) => automations.runs(serviceContext(request, deps.pool), request.params.id, request.query),
  );
}
