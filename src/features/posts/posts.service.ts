// Posts (docs/api.md "Posts"): reading and listing them here; creating them in posts.create.ts, changing them (edit,
// cancel, publish, retry, delete) in posts.changes.ts. Every write commits in the caller's transaction.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { AppError, notFound } from '../../app/errors.ts';
import * as repo from './posts.repo.ts';
import type { PostStatus } from './posts.repo.ts';
import { createPostApprovals } from './posts.approval.ts';
import { createPostChanges } from './posts.changes.ts';
import { createPostCreation } from './posts.create.ts';
import type { ListPostsQuery } from './posts.schemas.ts';
import { renderPost, renderPosts } from './posts.view.ts';
import { parseTime, type PostsDeps } from './posts.writing.ts';

export type { PostsDeps } from './posts.writing.ts';

export function createPostsService(deps: PostsDeps) {
  return {
    ...createPostCreation(deps),
    async get(ctx: ServiceContext, id: string) {
      const post = await repo.findPost(ctx.db, ctx.workspaceId, id);
      if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
      return renderPost(ctx.db, ctx.workspaceId, post, deps.media);
    },

    async list(ctx: ServiceContext, query: ListPostsQuery) {
      const sort = query.sort ?? '-created_at';
      const limit = query.limit ?? 20;
      if (ctx.brandFromHeader && query.brand_id !== undefined && query.brand_id !== ctx.brandId) {
        throw new AppError(
          'PUBLIC_API_QUERY_INVALID',
          `brand_id ${query.brand_id} differs from the x-herald-brand-id header ${ctx.brandId}.`,
          { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
        );
      }
      const brandFilter = query.brand_id ?? (ctx.brandFromHeader && ctx.brandId !== null ? ctx.brandId : undefined);
      if (brandFilter !== undefined && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(brandFilter)) {
        throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
      }
      const filters: repo.PostFilters = {
        statuses: query.status ? ([...new Set(query.status)] as PostStatus[]) : undefined,
        brandIds: brandFilter !== undefined ? [brandFilter] : (ctx.allowedBrandIds ?? undefined),
        platform: query.platform,
        scheduledFrom: query.scheduled_from
          ? parseTime(query.scheduled_from, '/scheduled_from', 'PUBLIC_API_QUERY_INVALID')
          : undefined,
        scheduledTo: query.scheduled_to
          ? parseTime(query.scheduled_to, '/scheduled_to', 'PUBLIC_API_QUERY_INVALID')
          : undefined,
        createdFrom: query.created_from
          ? parseTime(query.created_from, '/created_from', 'PUBLIC_API_QUERY_INVALID')
          : undefined,
        createdTo: query.created_to
          ? parseTime(query.created_to, '/created_to', 'PUBLIC_API_QUERY_INVALID')
          : undefined,
        metadata: query.metadata ? Object.fromEntries(Object.entries(query.metadata).sort()) : undefined,
        recycledFrom: query.recycled_from,
      };
      // The cursor is bound to everything that decides which rows come in which order.
      const binding = { sort, ...filters, statuses: filters.statuses?.toSorted() };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await repo.listPosts(ctx.db, ctx.workspaceId, filters, sort, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      const value = last ? (sort === '-created_at' ? last.created_at : last.schedule_at) : null;
      return {
        items: await renderPosts(ctx.db, ctx.workspaceId, page, deps.media),
        next_cursor: hasMore ? encodeCursor({ value: value ? value.toISOString() : null, id: last.id }, binding) : null,
        has_more: hasMore,
      };
    },
    ...createPostChanges(deps),
    ...createPostApprovals(deps),
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
