// Routes of the approvals API (docs/approvals.md): schema, access and one service call each. Reading takes
// `approvals:read`; deciding and changing the policy take `approvals:write` (admins and owners: roles.ts).
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import { type IdempotencyDeps } from '../../app/idempotency.ts';
import {
  ApprovalIdParams,
  BatchActionBody,
  BatchIdParams,
  ItemActionBody,
  ListBatchesQuery,
  ListItemsQuery,
  UpdatePolicyBody,
} from './approvals.schemas.ts';
import type { ApprovalsService } from './approvals.service.ts';
import { ApprovalBatch, ApprovalItem, ApprovalPolicy, BatchActionResult } from './approvals.view.schemas.ts';

const read: RouteAccess = { scopes: ['approvals:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['approvals:write'], workspace: true, mutates: true };

export function registerApprovalsRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; approvals: ApprovalsService },
): void {
  const app = typed(fastify);
  const tags = ['Approvals'];
  const { approvals } = deps;

  app.get(
    '/approvals/policy',
    {
      config: { access: read },
      schema: {
        operationId: 'getApprovalPolicy',
        tags,
        summary: 'Get the approval policy',
        description:
          'The workspace’s policy with its per-brand overrides and `version`. A workspace that never set one answers the defaults (`mode: off`, version 0).',
        response: { 200: Envelope(ApprovalPolicy) },
      },
    },
    async (request) => approvals.getPolicy(serviceContext(request, deps.pool)),
  );

  app.patch(
    '/approvals/policy',
    {
      config: { access: write },
      schema: {
        operationId: 'updateApprovalPolicy',
        tags,
        summary: 'Change the approval policy',
        description:
          'Owners and admins only. Send the `version` you read (409 `PUBLIC_API_VERSION_CONFLICT` when stale) and the fields to change; `brand_overrides` are merged per brand (`null` removes one). An override naming a brand not in the workspace is a 422 (`unknown_brand`). Items already waiting keep the expiry they were given.',
        body: UpdatePolicyBody,
        response: { 200: Envelope(ApprovalPolicy) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await approvals.updatePolicy(serviceContext(request, tx), request.body),
    })),
  );

  app.get(
    '/approvals/items',
    {
      config: { access: read },
      schema: {
        operationId: 'listApprovalItems',
        tags,
        summary: 'List approval items',
        description:
          'The review queue, newest request first, paginated by an opaque cursor. Filters: `status` (e.g. `pending`), `kind`, `source`, `brand_id`, `platform`, requested between `created_from` and `created_to`, `batch_id`. A key limited to some brands sees only their items.',
        querystring: ListItemsQuery,
        response: { 200: Envelope(ListOf(ApprovalItem)) },
      },
      preValidation: [listQuery('status'), listQuery('source')],
    },
    async (request) => approvals.listItems(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/approvals/items/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getApprovalItem',
        tags,
        summary: 'Get an approval item',
        description: 'The item with its `history`: every step (submit, edit, comment, decision, expiry), oldest first.',
        params: ApprovalIdParams,
        response: { 200: Envelope(ApprovalItem) },
      },
    },
    async (request) => approvals.getItem(serviceContext(request, deps.pool), request.params.id),
  );

  app.post(
    '/approvals/items/:id/actions',
    {
      config: { access: write },
      schema: {
        operationId: 'actOnApprovalItem',
        tags,
        summary: 'Decide or comment on an item',
        description:
          '`approve` (the post keeps its schedule and is published then), `reject` (the post returns to draft with `reason`), `edit_and_approve` (`patch` is applied to the post as `PATCH /posts/{id}` would, then approved) or `comment`. Send the item’s `version`: 409 `PUBLIC_API_VERSION_CONFLICT` when it changed. An item whose time has passed needs `schedule_at` or `publish_now` (422, rule `approval_schedule_passed`). 403 `PUBLIC_API_APPROVAL_FORBIDDEN` when the policy does not let you decide it. Emits `approval.approved` or `approval.rejected`.',
        params: ApprovalIdParams,
        body: ItemActionBody,
        response: { 200: Envelope(ApprovalItem) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await approvals.decideItem(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.get(
    '/approvals/batches',
    {
      config: { access: read },
      schema: {
        operationId: 'listApprovalBatches',
        tags,
        summary: 'List approval batches',
        description: 'The batches runs produced (automation runs, repurpose jobs, imports), newest first, with counts.',
        querystring: ListBatchesQuery,
        response: { 200: Envelope(ListOf(ApprovalBatch)) },
      },
    },
    async (request) => approvals.listBatches(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/approvals/batches/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getApprovalBatch',
        tags,
        summary: 'Get an approval batch',
        description: 'The batch with its `item_counts` per status; its items are `GET /approvals/items?batch_id=`.',
        params: BatchIdParams,
        response: { 200: Envelope(ApprovalBatch) },
      },
    },
    async (request) => approvals.getBatch(serviceContext(request, deps.pool), request.params.id),
  );

  app.post(
    '/approvals/batches/:id/actions',
    {
      config: { access: write },
      schema: {
        operationId: 'actOnApprovalBatch',
        tags,
        summary: 'Approve or reject a batch’s items',
        description:
          '`approve_all` or `reject_all` on the items of `expected_item_ids` only: items added since, or superseded by an edit, are never touched. Answers one result per expected item (`approved`, `rejected`, or `skipped` with the error that item met).',
        params: BatchIdParams,
        body: BatchActionBody,
        response: { 200: Envelope(BatchActionResult) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await approvals.decideBatch(serviceContext(request, tx), request.params.id, request.body),
    })),
  );
}
