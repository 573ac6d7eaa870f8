// Routes of the queues API (docs/queues.md): schema, access and one service call each. Reading a queue and
// previewing its slots take `queues:read`; creating, changing and deleting one take `queues:write`. Adding a post
// to a queue is `POST /v1/posts` with `queue` (posts:write). Suggested slots have their own routes file
// (best-times.routes.ts).
import type { FastifyInstance } from 'fastify';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import {
  CreateQueueBody,
  DeletedQueue,
  ListQueuesQuery,
  Queue,
  QueueIdParams,
  QueueSlots,
  QueueSlotsQuery,
  UpdateQueueBody,
} from './queues.schemas.ts';
import type { QueuesService } from './queues.service.ts';

const read: RouteAccess = { scopes: ['queues:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['queues:write'], workspace: true, mutates: true };

export function registerQueuesRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; queues: QueuesService },
): void {
  const app = typed(fastify);
  const tags = ['Queues'];
  const { queues } = deps;

  app.post(
    '/queues',
    {
      config: { access: write },
      schema: {
        operationId: 'createQueue',
        tags,
        summary: 'Create a posting queue',
        description:
          'A queue of the brand (`brand_id`, else the header’s brand, else the default): weekly `slots` (`day_of_week` 0 = Sunday, `time` `HH:mm`, an IANA `timezone` each), `pauses` (dates with no slot), `min_spacing_minutes` between two posts on one connection, `gap_policy` and, optionally, the `connection_ids` its posts may target. Posts join it with `POST /v1/posts` and `queue: "next" | "last"`. An unknown zone, a repeated slot or a connection of another brand is a 422 naming the rule.',
        body: CreateQueueBody,
        response: { 201: Envelope(Queue) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await queues.create(serviceContext(request, tx), request.body),
    })),
  );

  app.get(
    '/queues',
    {
      config: { access: read },
      schema: {
        operationId: 'listQueues',
        tags,
        summary: 'List posting queues',
        description: 'The queues of the brands the key reaches (or of `brand_id`), newest first, in one page.',
        querystring: ListQueuesQuery,
        response: { 200: Envelope(ListOf(Queue)) },
      },
    },
    async (request) => queues.list(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/queues/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getQueue',
        tags,
        summary: 'Get a posting queue',
        description: 'The queue with its slots, pauses, spacing, gap policy and connection restriction.',
        params: QueueIdParams,
        response: { 200: Envelope(Queue) },
      },
    },
    async (request) => queues.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.patch(
    '/queues/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateQueue',
        tags,
        summary: 'Change a posting queue',
        description:
          'Replaces the fields sent. New `slots`, `pauses` or `min_spacing_minutes` move the queued posts that are not pinned (scheduled or awaiting approval, from now on), in their order, to the first slots the new rules give, in the same transaction; each post that moved emits `post.rescheduled`.',
        params: QueueIdParams,
        body: UpdateQueueBody,
        response: { 200: Envelope(Queue) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await queues.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/queues/:id',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'deleteQueue',
        tags,
        summary: 'Delete a posting queue',
        description:
          'The queue goes; its posts keep their times and leave it (`queue_id` and `queue_slot` become null). No body.',
        params: QueueIdParams,
        response: { 200: Envelope(DeletedQueue) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await queues.remove(serviceContext(request, tx), request.params.id),
    })),
  );

  app.get(
    '/queues/:id/slots',
    {
      config: { access: read },
      schema: {
        operationId: 'listQueueSlots',
        tags,
        summary: 'Preview the slots of a queue',
        description:
          'The slots in [`from`, `to`) (default: the next 7 days; at most 366 days, at most `limit` slots), earliest first, each `taken` (with the `post_id` holding it) or `free`. Paused dates have no slots. `next_from` reads on when the window holds more than `limit`.',
        params: QueueIdParams,
        querystring: QueueSlotsQuery,
        response: { 200: Envelope(QueueSlots) },
      },
    },
    async (request) => queues.slots(serviceContext(request, deps.pool), request.params.id, request.query),
  );
}
