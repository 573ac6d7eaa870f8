// POST /v1/queues/{id}/suggest-slots (docs/queues.md "Best times"): schema, access and one service call. A read:
// `queues:read`, no Idempotency-Key, the read budget — it proposes slots and changes nothing.
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { Envelope } from '../../app/envelope.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { typed } from '../../http/type-provider.ts';
import type { Clock } from '../../lib/clock.ts';
import { BEST_TIMES_MIN_SAMPLE } from './best-times.ts';
import { SlotSuggestions, SuggestSlotsBody, SuggestSlotsParams } from './best-times.schemas.ts';
import { suggestForQueue } from './best-times.ts';

const read: RouteAccess = { scopes: ['queues:read'], workspace: true, mutates: false };

export function registerBestTimesRoutes(fastify: FastifyInstance, deps: { pool: Pool; clock: Clock }): void {
  const app = typed(fastify);
  app.post(
    '/queues/:id/suggest-slots',
    {
      config: { access: read },
      schema: {
        operationId: 'suggestQueueSlots',
        tags: ['Queues'],
        summary: 'Suggest slots for a queue from past engagement',
        description: `Proposes weekly slots from how the queue's accounts' own posts did (the queue's connections, else its brand's): published posts of the last 90 days, grouped by weekday and hour in the queue's zone, each post's engagement rate (or engagements where the platform gives no reach or impressions) compared with its account's average. A weekday-hour needs \`min_sample\` posts (default ${BEST_TIMES_MIN_SAMPLE}) to be scored (\`source: "history"\`, with a score and a confidence); where history is too thin, conventional defaults fill the count (\`source: "default"\`, score and confidence null: no evidence stands behind them). Changes nothing; use the slots in \`PATCH /v1/queues/{id}\`.`,
        params: SuggestSlotsParams,
        body: SuggestSlotsBody,
        response: { 200: Envelope(SlotSuggestions) },
      },
    },
    async (request) =>
      suggestForQueue(serviceContext(request, deps.pool), request.params.id, request.body, deps.clock.now()),
  );
}
