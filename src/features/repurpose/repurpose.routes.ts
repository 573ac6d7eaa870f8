// Routes of the repurpose API (docs/repurpose.md): schema, access and one service call each. Reading takes
// `repurpose:read`; starting and cancelling a job take `repurpose:write` (and an Idempotency-Key, as every write).
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import { CreateRepurposeBody, ListRepurposeQuery, RepurposeIdParams } from './repurpose.schemas.ts';
import type { RepurposeService } from './repurpose.service.ts';
import { RepurposeJob } from './repurpose.view.schemas.ts';

const read: RouteAccess = { scopes: ['repurpose:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['repurpose:write'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };

export function registerRepurposeRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; repurpose: RepurposeService },
): void {
  const app = typed(fastify);
  const tags = ['Repurpose'];
  const { repurpose } = deps;

  app.post(
    '/repurpose',
    {
      config: { access: write },
      schema: {
        operationId: 'createRepurposeJob',
        tags,
        summary: 'Start a repurpose job',
        description:
          'Turns one source — an article `url` (fetched through the SSRF guard, `https` only unless allow-listed, at most 2 MB of HTML within 30 s, read with Mozilla Readability), pasted `text`, a Herald `post`, or a `media` video with its `transcript` — into outputs fitted to each target platform: drafts (`draft`), posts held for review in one approval batch (`approval`), or scheduled posts from `output.schedule.first_at`, one `spacing_minutes` apart (`schedule`). Answers 202 with the job, `queued`; follow it with `GET /repurpose/{id}` or the `repurpose.completed` / `repurpose.failed` events. Source rules (a media source without `transcript`, a thread on a platform without threads, a private URL) are a 422 naming the rule.',
        body: CreateRepurposeBody,
        response: { 202: Envelope(RepurposeJob, 'The job, queued.') },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 202,
      data: await repurpose.create(serviceContext(request, tx), request.body),
    })),
  );

  app.get(
    '/repurpose',
    {
      config: { access: read },
      schema: {
        operationId: 'listRepurposeJobs',
        tags,
        summary: 'List repurpose jobs',
        description:
          'Recent jobs, newest first, paginated by an opaque cursor; filters `status` and `brand_id`. A key limited to some brands sees only their jobs.',
        querystring: ListRepurposeQuery,
        response: { 200: Envelope(ListOf(RepurposeJob)) },
      },
      preValidation: [listQuery('status')],
    },
    async (request) => repurpose.list(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/repurpose/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getRepurposeJob',
        tags,
        summary: 'Get a repurpose job',
        description:
          'The job with its `status`, `source_snapshot` and `outputs`: each with its `parts`, `char_count` in the platform’s own count, `within_limit`, and the `post_id` (and `approval_item_id`) it became, or `status: failed` with the rule it broke.',
        params: RepurposeIdParams,
        response: { 200: Envelope(RepurposeJob) },
      },
    },
    async (request) => repurpose.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.post(
    '/repurpose/:id/cancel',
    {
      config: { access: action },
      schema: {
        operationId: 'cancelRepurposeJob',
        tags,
        summary: 'Cancel a repurpose job',
        description:
          'Stops a job that is still `queued`, `fetching` or `generating`: it becomes `cancelled` and creates nothing. A finished job is a 409 `PUBLIC_API_STATE_CONFLICT`.',
        params: RepurposeIdParams,
        response: { 200: Envelope(RepurposeJob) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await repurpose.cancel(serviceContext(request, tx), request.params.id),
    })),
  );
}
