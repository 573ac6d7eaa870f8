// Routes of the posts API: schema, access and one service call each.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { deepObjectQuery, listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import { type IdempotencyDeps } from '../../app/idempotency.ts';
import type { PostsService } from './posts.service.ts';
import type { MediaService } from '../media/media.service.ts';
import {
  ActionBody,
  CreatePostRequestBody,
  CreatedPost,
  DeletedPost,
  ListPostsQuery,
  PostIdParams,
  UpdatePostBody,
  ValidateResult,
} from './posts.schemas.ts';

const read: RouteAccess = { scopes: ['posts:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['posts:write'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };
const PostRef = Type.Ref('Post');

export function registerPostsRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & {
    pool: Pool;
    posts: PostsService;
    media: Pick<MediaService, 'createFromFileRefs' | 'checkFileRefs'>;
  },
): void {
  const app = typed(fastify);
  const { posts } = deps;
  const tags = ['Posts'];

  app.post(
    '/posts',
    {
      config: { access: { ...write, idempotencyField: true } },
      schema: {
        operationId: 'createPost',
        tags,
        summary: 'Create a post',
        description:
          "Creates a draft, a scheduled post (`schedule_at`) or a post published at once (`publish_now`), on one or more platforms. Text is checked against every platform's own limits.",
        body: CreatePostRequestBody,
        response: { 201: Envelope(CreatedPost, 'The post was created.') },
      },
    },
    mutation(deps, async (request, tx) => {
      const ctx = serviceContext(request, tx);
      const { openaiFileIdRefs: files, ...body } = request.body;
      // Files from a custom GPT action become media by URL, attached after the media the body names.
      if (files) {
        const fetched = await deps.media.createFromFileRefs(ctx, files, '/openaiFileIdRefs');
        body.media_ids = [...(body.media_ids ?? []), ...fetched.map((m) => (m as { id: string }).id)];
      }
      return { status: 201, data: await posts.create(ctx, body) };
    }),
  );

  app.get(
    '/posts',
    {
      config: { access: read },
      schema: {
        operationId: 'listPosts',
        tags,
        summary: 'List posts',
        description:
          'Posts of the workspace (of the brand in `x-herald-brand-id`, if sent), newest first by default, paginated by an opaque cursor.',
        querystring: ListPostsQuery,
        response: { 200: Envelope(ListOf(PostRef)) },
      },
      preValidation: [deepObjectQuery('metadata'), listQuery('status')],
    },
    async (request) => posts.list(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/posts/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getPost',
        tags,
        summary: 'Get a post',
        description: 'The post with its per-platform targets, their attempts and errors.',
        params: PostIdParams,
        response: { 200: Envelope(PostRef) },
      },
    },
    async (request) => posts.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.patch(
    '/posts/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updatePost',
        tags,
        summary: 'Edit a post',
        description:
          'A JSON Merge Patch (RFC 7396; `application/merge-patch+json` or `application/json`), allowed while the post is a draft or scheduled. `schedule_at: null` turns a scheduled post back into a draft.',
        params: PostIdParams,
        body: UpdatePostBody,
        response: { 200: Envelope(PostRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await posts.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.post(
    '/posts/:id/cancel',
    {
      config: { access: action },
      schema: {
        operationId: 'cancelPost',
        tags,
        summary: 'Cancel a post',
        description:
          'Cancels a draft or scheduled post; its publish jobs are removed. On a post being published, cancels every target that has not gone out and is not being sent this instant (scheduled, or waiting between automatic attempts); published and failed targets stay, and the post becomes `cancelled`, `partially_published` or `failed` accordingly. While a platform call for the post is in flight: 409 `PUBLIC_API_PUBLISH_IN_FLIGHT` with `Retry-After`, and nothing changes. Other states: 409 `PUBLIC_API_STATE_CONFLICT`.',
        params: PostIdParams,
        body: ActionBody,
        response: { 200: Envelope(PostRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await posts.cancel(serviceContext(request, tx), request.params.id),
    })),
  );

  app.post(
    '/posts/:id/publish',
    {
      config: { access: action },
      schema: {
        operationId: 'publishPost',
        tags,
        summary: 'Publish a post now',
        description:
          'A draft or scheduled post goes out at once: its targets are handed to the publishing engine and the post is returned as `publishing`. Every platform needs a usable connection (422 otherwise). Other states: 409.',
        params: PostIdParams,
        body: ActionBody,
        response: { 200: Envelope(PostRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await posts.publish(serviceContext(request, tx), request.params.id),
    })),
  );

  app.post(
    '/posts/:id/retry',
    {
      config: { access: action },
      schema: {
        operationId: 'retryPost',
        tags,
        summary: 'Retry the failed targets of a post, or its waiting ones now',
        description:
          "Publishes again the targets that failed, and brings the next attempt of targets waiting between automatic attempts forward to now (a platform's rate-limit reset is still waited for); published targets are left alone, and parts of a thread already out are not sent again. When the only target left is being sent this instant: 409 `PUBLIC_API_PUBLISH_IN_FLIGHT` with `Retry-After`. Nothing to retry: 409 `PUBLIC_API_STATE_CONFLICT`.",
        params: PostIdParams,
        body: ActionBody,
        response: { 200: Envelope(PostRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await posts.retry(serviceContext(request, tx), request.params.id),
    })),
  );

  app.delete(
    '/posts/:id',
    {
      config: { access: action },
      schema: {
        operationId: 'deletePost',
        tags,
        summary: 'Delete a post',
        description:
          "Soft-deletes a draft, scheduled, cancelled or failed post (it disappears from the API) and emits `post.deleted`. Herald deletes nothing on the platforms, so a post with a part published answers 409 `PUBLIC_API_STATE_CONFLICT` (one detail per published part, rule `published_part`), whatever its status. A failed post whose part's outcome is unknown (its target's error says so) can be deleted: whatever the platform may hold of it stays there.",
        params: PostIdParams,
        body: ActionBody,
        response: {
          200: Envelope(DeletedPost),
        },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await posts.remove(serviceContext(request, tx), request.params.id),
    })),
  );

  app.post(
    '/posts/validate',
    {
      // Stores nothing, so it needs no Idempotency-Key and spends the read budget (docs/decisions.md).
      config: { access: { scopes: ['posts:write'], workspace: true, mutates: false } },
      schema: {
        operationId: 'validatePost',
        tags,
        summary: 'Check a post without creating it',
        description: 'Runs every rule `POST /posts` runs and returns the issues; nothing is stored.',
        body: CreatePostRequestBody,
        response: { 200: Envelope(ValidateResult) },
      },
    },
    async (request) => {
      const { openaiFileIdRefs: files, idempotency_key: _unused, ...body } = request.body;
      if (files) deps.media.checkFileRefs(files, '/openaiFileIdRefs');
      return posts.validate(serviceContext(request, deps.pool), body, files?.length ?? 0);
    },
  );
}
