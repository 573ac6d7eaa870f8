// Posts: create, read, list, edit, cancel, delete and validate (API.md "Posts"). Each write changes the post,
// its targets, its publish jobs and the events outbox in the caller's transaction, so they commit together.
import { Value } from 'typebox/value';
import type { ServiceContext } from '../../http/context.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import { AppError, notFound, validationFailed } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import { queuePublishJobs, removePublishJobs } from '../../jobs/queue.ts';
import { appendEvent } from '../events/outbox.ts';
import type { MediaService } from '../media/media.service.ts';
import { findBrand } from '../workspaces/workspaces.repo.ts';
import * as repo from './posts.repo.ts';
import type { PostRow, PostStatus } from './posts.repo.ts';
import { checkPlatformRules, checkSchedule, type RuleIssue } from './posts.rules.ts';
import { PlatformOptions, type CreatePostBody, type ListPostsQuery, type UpdatePostBody } from './posts.schemas.ts';
import { renderPost, renderPosts } from './posts.view.ts';

export interface PostsDeps {
  clock: Clock;
  /** Checks `media_ids` (exist, ready, fit each platform) and renders a post's `media`: src/features/media. */
  media: Pick<MediaService, 'postIssues' | 'renderLists'>;
}

/** A timestamp from the API: ISO 8601 with a zone (the schema checked the shape); normalised to a Date. */
function parseTime(value: string, path: string, code: 'PUBLIC_API_BODY_INVALID' | 'PUBLIC_API_QUERY_INVALID' = 'PUBLIC_API_BODY_INVALID'): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new AppError(code, `${path.slice(1)} is not a valid time.`, { details: [{ path, message: 'is not a valid time' }] });
  return date;
}

/** RFC 7396 JSON Merge Patch of plain objects. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export function createPostsService(deps: PostsDeps) {
  /** Issues that exist because a feature is not there yet (connections) or because of the request as a whole. */
  function requestIssues(input: { connectionIds: string[]; publishNow: boolean }): RuleIssue[] {
    const issues: RuleIssue[] = [];
    input.connectionIds.forEach((id, i) => issues.push({ platform: null, rule: 'connection_not_found', message: `No connection ${id} in this workspace.`, path: `/connection_ids/${i}` }));
    if (input.publishNow) {
      issues.push({ platform: null, rule: 'publishing_unavailable', message: 'Publishing is not available on this server yet; schedule the post or keep it as a draft.', path: '/publish_now' });
    }
    return issues;
  }

  async function resolveBrand(ctx: ServiceContext, bodyBrandId: string | undefined): Promise<string> {
    if (bodyBrandId === undefined || bodyBrandId === ctx.brandId) {
      if (ctx.brandId === null) throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'This key may not use the default brand: send x-herald-brand-id or brand_id.');
      return ctx.brandId;
    }
    if (ctx.brandFromHeader) {
      throw new AppError('PUBLIC_API_BODY_INVALID', `brand_id ${bodyBrandId} differs from the x-herald-brand-id header ${ctx.brandId}.`, { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] });
    }
    const allowed = !ctx.allowedBrandIds || ctx.allowedBrandIds.includes(bodyBrandId);
    if (!allowed || !(await findBrand(ctx.db, ctx.workspaceId, bodyBrandId))) {
      throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not in this workspace or not reachable by this key.');
    }
    return bodyBrandId;
  }

  async function checkCreate(ctx: ServiceContext, body: CreatePostBody): Promise<{ scheduleAt: Date | null; issues: RuleIssue[] }> {
    if (body.publish_now === true && body.schedule_at !== undefined) {
      throw new AppError('PUBLIC_API_BODY_INVALID', 'Send either publish_now or schedule_at, not both.', { details: [{ path: '/schedule_at', message: 'cannot be combined with publish_now' }] });
    }
    const scheduleAt = body.schedule_at !== undefined ? parseTime(body.schedule_at, '/schedule_at') : null;
    const mediaIds = body.media_ids ?? [];
    const issues = [
      ...checkPlatformRules({ content: body.content, platforms: body.platforms, platformOptions: body.platform_options ?? {}, mediaCount: mediaIds.length }),
      ...checkSchedule(scheduleAt, deps.clock.now()),
      ...(await deps.media.postIssues(ctx, mediaIds, body.platforms)),
      ...requestIssues({ connectionIds: body.connection_ids ?? [], publishNow: body.publish_now === true }),
    ];
    return { scheduleAt, issues };
  }

  async function loadForChange(ctx: ServiceContext, id: string): Promise<PostRow> {
    const post = await repo.findPost(ctx.db, ctx.workspaceId, id, true);
    if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
    return post;
  }

  async function emit(ctx: ServiceContext, post: PostRow, types: Parameters<typeof appendEvent>[2][]): Promise<Record<string, unknown>> {
    const view = await renderPost(ctx.db, ctx.workspaceId, post, deps.media);
    for (const type of types) await appendEvent(ctx.db, ctx.workspaceId, type, view);
    return view;
  }

  async function createTargets(ctx: ServiceContext, post: PostRow): Promise<string[]> {
    const status = post.status === 'scheduled' ? 'scheduled' : 'pending';
    const targets = post.platforms.map((platform: PlatformName) => ({ id: newId('tgt'), platform, connectionId: null, sandbox: ctx.workspaceMode === 'test', status } as const));
    await repo.insertTargets(ctx.db, ctx.workspaceId, post.id, targets);
    return targets.map((t) => t.id);
  }

  return {
    async create(ctx: ServiceContext, body: CreatePostBody) {
      const brandId = await resolveBrand(ctx, body.brand_id);
      const { scheduleAt, issues } = await checkCreate(ctx, body);
      if (issues.length > 0) throw validationFailed(issues);
      const status: PostStatus = scheduleAt ? 'scheduled' : 'draft';
      const post = await repo.insertPost(ctx.db, {
        id: newId('post'),
        workspaceId: ctx.workspaceId,
        brandId,
        content: body.content,
        platforms: body.platforms,
        platformOptions: body.platform_options ?? {},
        mediaIds: body.media_ids ?? [],
        status,
        publishNow: false,
        scheduleAt,
        createdVia: ctx.via,
        createdBy: ctx.userId,
      });
      const targetIds = await createTargets(ctx, post);
      if (scheduleAt) await queuePublishJobs(ctx.db, targetIds, scheduleAt, scheduleAt);
      const view = await emit(ctx, post, scheduleAt ? ['post.created', 'post.scheduled'] : ['post.created']);
      return { post_id: post.id, post: view };
    },

    async validate(ctx: ServiceContext, body: CreatePostBody) {
      await resolveBrand(ctx, body.brand_id);
      const { issues } = await checkCreate(ctx, body);
      return { valid: issues.length === 0, issues };
    },

    async get(ctx: ServiceContext, id: string) {
      const post = await repo.findPost(ctx.db, ctx.workspaceId, id);
      if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
      return renderPost(ctx.db, ctx.workspaceId, post, deps.media);
    },

    async list(ctx: ServiceContext, query: ListPostsQuery) {
      const sort = query.sort ?? '-created_at';
      const limit = query.limit ?? 20;
      if (ctx.brandFromHeader && query.brand_id !== undefined && query.brand_id !== ctx.brandId) {
        throw new AppError('PUBLIC_API_QUERY_INVALID', `brand_id ${query.brand_id} differs from the x-herald-brand-id header ${ctx.brandId}.`, { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] });
      }
      const brandFilter = query.brand_id ?? (ctx.brandFromHeader && ctx.brandId !== null ? ctx.brandId : undefined);
      if (brandFilter !== undefined && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(brandFilter)) {
        throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
      }
      const filters: repo.PostFilters = {
        statuses: query.status ? ([...new Set(query.status.split(','))] as PostStatus[]) : undefined,
        brandIds: brandFilter !== undefined ? [brandFilter] : (ctx.allowedBrandIds ?? undefined),
        platform: query.platform,
        scheduledFrom: query.scheduled_from ? parseTime(query.scheduled_from, '/scheduled_from', 'PUBLIC_API_QUERY_INVALID') : undefined,
        scheduledTo: query.scheduled_to ? parseTime(query.scheduled_to, '/scheduled_to', 'PUBLIC_API_QUERY_INVALID') : undefined,
        createdFrom: query.created_from ? parseTime(query.created_from, '/created_from', 'PUBLIC_API_QUERY_INVALID') : undefined,
        createdTo: query.created_to ? parseTime(query.created_to, '/created_to', 'PUBLIC_API_QUERY_INVALID') : undefined,
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

    async update(ctx: ServiceContext, id: string, patch: UpdatePostBody) {
      const post = await loadForChange(ctx, id);
      if (post.status !== 'draft' && post.status !== 'scheduled') {
        throw new AppError('PUBLIC_API_STATE_CONFLICT', `A ${post.status} post cannot be edited; only drafts and scheduled posts can.`);
      }
      const platforms = patch.platforms ?? post.platforms;
      const mergedOptions = patch.platform_options !== undefined ? mergePatch(post.platform_options, patch.platform_options) ?? {} : post.platform_options;
      if (!Value.Check(PlatformOptions, mergedOptions)) {
        const details = [...Value.Errors(PlatformOptions, mergedOptions)].slice(0, 20).map((e) => ({ path: `/platform_options${e.instancePath}`, message: e.message }));
        throw new AppError('PUBLIC_API_BODY_INVALID', 'platform_options is invalid after applying the patch.', { details });
      }
      const platformOptions = mergedOptions as PlatformOptions;
      const content = patch.content ?? post.content;
      const mediaIds = patch.media_ids === undefined ? post.media_ids : (patch.media_ids ?? []);
      const scheduleAt = patch.schedule_at === undefined ? post.schedule_at : patch.schedule_at === null ? null : parseTime(patch.schedule_at, '/schedule_at');
      const connectionIds = patch.connection_ids ?? [];
      const issues = [
        ...checkPlatformRules({ content, platforms, platformOptions, mediaCount: mediaIds.length }),
        ...(patch.schedule_at !== undefined ? checkSchedule(scheduleAt, deps.clock.now()) : []),
        // The whole resulting post: its media must still exist, be ready and fit the (possibly new) platforms.
        ...(await deps.media.postIssues(ctx, mediaIds, platforms)),
        ...requestIssues({ connectionIds, publishNow: false }),
      ];
      if (issues.length > 0) throw validationFailed(issues);

      const status: PostStatus = scheduleAt ? 'scheduled' : 'draft';
      const wasScheduled = post.status === 'scheduled';
      const rescheduled = status === 'scheduled' && (!wasScheduled || post.schedule_at?.getTime() !== scheduleAt?.getTime());
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, { content, platforms, platformOptions, mediaIds, status, scheduleAt });

      const oldTargets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      let targetIds = oldTargets.map((t) => t.id);
      if (patch.platforms !== undefined && patch.platforms.join() !== post.platforms.join()) {
        await removePublishJobs(ctx.db, targetIds);
        await repo.deleteTargets(ctx.db, ctx.workspaceId, id);
        targetIds = await createTargets(ctx, updated);
      } else if (status !== post.status) {
        await repo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['pending', 'scheduled'], status === 'scheduled' ? 'scheduled' : 'pending');
      }
      if (status === 'scheduled') await queuePublishJobs(ctx.db, targetIds, scheduleAt!, scheduleAt);
      else if (wasScheduled) await removePublishJobs(ctx.db, targetIds);
      return emit(ctx, updated, rescheduled ? ['post.updated', 'post.scheduled'] : ['post.updated']);
    },

    async cancel(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      if (post.status === 'publishing') throw new AppError('PUBLIC_API_STATE_CONFLICT', 'This post is being published and can no longer be cancelled.');
      if (post.status !== 'draft' && post.status !== 'scheduled') throw new AppError('PUBLIC_API_STATE_CONFLICT', `A ${post.status} post cannot be cancelled.`);
      const targetIds = await repo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['pending', 'scheduled'], 'cancelled');
      await removePublishJobs(ctx.db, targetIds);
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, { status: 'cancelled' });
      return emit(ctx, updated, ['post.cancelled']);
    },

    async remove(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      if (!['draft', 'scheduled', 'cancelled', 'failed'].includes(post.status)) {
        throw new AppError('PUBLIC_API_STATE_CONFLICT', `A ${post.status} post cannot be deleted; deleting it on the platforms is a separate action.`);
      }
      const targetIds = await repo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['pending', 'scheduled'], 'cancelled');
      await removePublishJobs(ctx.db, targetIds);
      const deleted = await repo.updatePost(ctx.db, ctx.workspaceId, id, { deleted: true });
      await emit(ctx, deleted, ['post.deleted']);
      return { id: deleted.id, object: 'post', deleted: true };
    },
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
