// Routes of the events API under /v1: schema, access and one service call each.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import type { EventsService } from './events.service.ts';
import { EventIdParams, ListEventsQuery } from './events.schemas.ts';

const read: RouteAccess = { scopes: ['events:read'], workspace: true, mutates: false };
const EventRef = Type.Ref('Event');

export function registerEventsRoutes(fastify: FastifyInstance, deps: { pool: Pool; events: EventsService }): void {
  const app = typed(fastify);
  const { events, pool } = deps;
  const tags = ['Events'];

  app.get(
    '/events',
    {
      config: { access: read },
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'List events',
        description:
          'The events of the workspace, newest first, paginated by an opaque cursor: the same events, with the same payloads, as the webhook deliveries, kept at least 30 days. Catch up on missed deliveries, or poll instead of receiving webhooks. A key limited to brands sees the events of its brands (and media events).',
        querystring: ListEventsQuery,
        response: { 200: Envelope(ListOf(EventRef)) },
      },
      preValidation: listQuery('type'),
    },
    async (request) => events.list(serviceContext(request, pool), request.query),
  );

  app.get(
    '/events/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'Get an event',
        description: 'One event, as it was delivered to the webhooks (while it is kept: at least 30 days).',
        params: EventIdParams,
        response: { 200: Envelope(EventRef) },
      },
    },
    async (request) => events.get(serviceContext(request, pool), request.params.id),
  );
}
