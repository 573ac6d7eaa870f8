// Routes of the automations API (docs/automations.md): schema, access and one service call each. Reading takes
// `automations:read`; creating, changing, triggering, pausing, resuming and previewing take `automations:write`.
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import {
  AutomationIdParams,
  CreateAutomationBody,
  ListAutomationsQuery,
  ListRunsQuery,
  PatchAutomationBody,
} from './automations.schemas.ts';
import type { AutomationsService } from './automations.service.ts';
import { Automation, AutomationPreview, AutomationRun } from './automations.view.schemas.ts';

const read: RouteAccess = { scopes: ['automations:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['automations:write'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };

export function registerAutomationsRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; automations: AutomationsService },
): void {
  const app = typed(fastify);
  const tags = ['Automations'];
  const { automations } = deps;
  const stateAction = (name: string, summary: string, description: string, operationId: string) =>
    app.post(
      `/automations/:id/${name}`,
      {
        config: { access: action },
        schema: {
          operationId,
          tags,
          summary,
          description,
          params: AutomationIdParams,
          response: { 200: Envelope(Automation) },
        },
      },
      mutation(deps, async (request, tx) => ({
        status: 200,
        data: await (name === 'pause' ? automations.pause : automations.resume)(
          serviceContext(request, tx),
          request.params.id,
        ),
      })),
    );

  app.post(
    '/automations',
    {
      config: { access: write },
      schema: {
        operationId: 'createAutomation',
        tags,
        summary: 'Create a content automation',
        description:
          'A rule that creates posts: on a schedule (`source.rrule` in `source.timezone`), from an RSS/Atom feed (`source.feed_url`, polled, each item posted once), or on an event (`source.event`). The `generator` writes each post (a `template`, a `library` in turn, a model on a `topic`, or the item `repurpose`d); `destinations` name connections or platforms; `output.mode` makes drafts, posts held for approval, scheduled posts, or posts published at once. Rules broken (a private feed URL, an invalid RRULE, `llm_topic` offline without `items`) are a 422 naming the rule.',
        body: CreateAutomationBody,
        response: { 201: Envelope(Automation) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await automations.create(serviceContext(request, tx), request.body),
    })),
  );

  app.get(
    '/automations',
    {
      config: { access: read },
      schema: {
        operationId: 'listAutomations',
        tags,
        summary: 'List content automations',
        description:
          'Newest first, paginated by an opaque cursor; filters `status` (archived ones only when asked for) and `brand_id`.',
        querystring: ListAutomationsQuery,
        response: { 200: Envelope(ListOf(Automation)) },
      },
      preValidation: [listQuery('status')],
    },
    async (request) => automations.list(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/automations/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getAutomation',
        tags,
        summary: 'Get a content automation',
        description: 'The automation with its `next_run_at`, `last_run_at`, `last_error` and `consecutive_failures`.',
        params: AutomationIdParams,
        response: { 200: Envelope(Automation) },
      },
    },
    async (request) => automations.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.patch(
    '/automations/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateAutomation',
        tags,
        summary: 'Change a content automation',
        description:
          'Replaces the top-level fields sent (`name`, `source`, `generator`, `destinations`, `output`, `options`); the whole is checked again. A new source starts a new schedule (and a new feed’s first poll). An archived automation is a 409.',
        params: AutomationIdParams,
        body: PatchAutomationBody,
        response: { 200: Envelope(Automation) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await automations.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/automations/:id',
    {
      config: { access: action },
      schema: {
        operationId: 'deleteAutomation',
        tags,
        summary: 'Delete (archive) a content automation',
        description:
          'The automation becomes `archived`: it never runs again and leaves the default list; its runs and the posts it made stay. Deleting it again is a 409.',
        params: AutomationIdParams,
        response: { 200: Envelope(Automation) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await automations.remove(serviceContext(request, tx), request.params.id),
    })),
  );

  app.post(
    '/automations/:id/trigger',
    {
      config: { access: action },
      schema: {
        operationId: 'triggerAutomation',
        tags,
        summary: 'Run a content automation now',
        description:
          'Queues a run now (`trigger: manual`), also for a paused automation; an archived one is a 409. Idempotent: the run’s slot is the current minute, so a repeated trigger within it answers the same run. Answers 202 with the run; follow it with `GET /automations/{id}/runs` or the `automation.run.*` events.',
        params: AutomationIdParams,
        response: { 202: Envelope(AutomationRun, 'The run, queued (or the run this minute already has).') },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 202,
      data: await automations.trigger(serviceContext(request, tx), request.params.id),
    })),
  );

  stateAction(
    'pause',
    'Pause a content automation',
    'It stops running until resumed (`next_run_at` null). Pausing a paused automation answers it as it is; an archived one is a 409.',
    'pauseAutomation',
  );
  stateAction(
    'resume',
    'Resume a content automation',
    'Active again from now: slots missed while paused are not run, the failure count starts over, events that happened meanwhile start nothing. An archived automation is a 409.',
    'resumeAutomation',
  );

  app.get(
    '/automations/:id/runs',
    {
      config: { access: read },
      schema: {
        operationId: 'listAutomationRuns',
        tags,
        summary: 'List the runs of a content automation',
        description: 'Newest first, paginated by an opaque cursor: each run with its trigger, status, items and posts.',
        params: AutomationIdParams,
        querystring: ListRunsQuery,
        response: { 200: Envelope(ListOf(AutomationRun)) },
      },
    },
    async (request) => automations.runs(serviceContext(request, deps.pool), request.params.id, request.query),
  );

  app.post(
    '/automations/:id/preview',
    {
      config: { access: { scopes: ['automations:write'], workspace: true, mutates: false, actionBody: true } },
      schema: {
        operationId: 'previewAutomation',
        tags,
        summary: 'Preview the next run of a content automation',
        description:
          'A dry run: the posts the next run would create, rendered and checked by the posts validator (`valid`, `issues`), with nothing saved — no run, no post, no feed item marked seen. A feed is fetched to show its new items. Needs no Idempotency-Key.',
        params: AutomationIdParams,
        response: { 200: Envelope(AutomationPreview) },
      },
    },
    async (request) => automations.preview(serviceContext(request, deps.pool), request.params.id),
  );
}
