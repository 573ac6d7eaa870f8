// Routes of evergreen recycling (docs/queues.md "Recycling"): a published post's recycle rule, made or stopped.
// Both take `posts:write`; the rule shows in the post itself (`recycle`, GET /v1/posts/{id}).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { Envelope, named } from '../../app/envelope.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import { ActionBody, PostIdParams } from '../posts/posts.schemas.ts';
import { RECYCLE_RULE_EXAMPLE, RecycleBody, RecycleRule } from './recycling.schemas.ts';
import type { RecyclingService } from './recycling.service.ts';

const write: RouteAccess = { scopes: ['posts:write'], workspace: true, mutates: true };

const PostRecycle = named(
  'PostRecycle',
  Type.Object({
    post_id: Type.String({ description: 'The recycled post (`post_…`), the id of its family.' }),
    recycle: Type.Union([RecycleRule, Type.Null()], { description: 'The rule; null: the post never had one.' }),
  }),
  { post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b', recycle: RECYCLE_RULE_EXAMPLE },
);

export function registerRecyclingRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; recycling: RecyclingService },
): void {
  const app = typed(fastify);
  const tags = ['Posts'];
  const { recycling } = deps;

  app.post(
    '/posts/:id/recycle',
    {
      config: { access: write },
      schema: {
        operationId: 'recyclePost',
        tags,
        summary: 'Recycle a published post',
        description:
          'Makes new copies of a published post every `every_days` days, `times` times (until `until`, if given): each copy is a new post scheduled at its time, with `recycled_from` naming this post. `vary: rotate_variants` gives the copies the texts of `variants` in turn. On a platform that refuses a repeated text (X, LinkedIn, Facebook) a rule whose copies would repeat one is refused (422, rule `duplicate_text`, naming the platform). A post not published: 409 `PUBLIC_API_STATE_CONFLICT`. A post that has a rule gets this one instead, starting over.',
        params: PostIdParams,
        body: RecycleBody,
        response: { 201: Envelope(PostRecycle) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await recycling.start(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/posts/:id/recycle',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'stopRecyclingPost',
        tags,
        summary: 'Stop recycling a post',
        description:
          'Stops the post’s rule: no further copy is made (copies already made stay, and can be cancelled like any post). Idempotent: a rule already stopped or finished, or none, is answered as it is.',
        params: PostIdParams,
        body: ActionBody,
        response: { 200: Envelope(PostRecycle) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await recycling.stop(serviceContext(request, tx), request.params.id),
    })),
  );
}
