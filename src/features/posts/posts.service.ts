// Posts: create, read, list, edit, cancel, delete and validate (API.md "Posts"). Each write changes the post,
// its targets, its publish jobs and the events outbox in the caller's transaction, so they commit together.
import { Value } from 'typebox/value';
import type { ServiceContext } from '../../app/context.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { PlatformRegistry } from '../../platforms/registry.ts';
import { queuePublishJobs, removePublishJobs } from '../../app/publish-queue.ts';
import { findConnections as findConnectionsById } from '../connections/connections.repo.ts';
import { makeTargetsDueNow } from '../publishing/targets.repo.ts';
import { appendEvent } from '../events/outbox.ts';
import type { MediaService } from '../media/media.service.ts';
import { findBrand } from '../workspaces/workspaces.repo.ts';
import * as repo from './posts.repo.ts';
import type { PostRow, PostStatus } from './posts.repo.ts';
import { resolveConnections, type Resolution, type TargetPlan } from './posts.connections.ts';
import { checkPlatformRules, checkSchedule, type RuleIssue } from './posts.rules.ts';
import { PlatformOptions, type CreatePostBody, type ListPostsQuery, type UpdatePostBody } from './posts.schemas.ts';
import { renderPost, renderPosts } from './posts.view.ts';

export interface PostsDeps {
  clock: Clock;
  platforms: PlatformRegistry;
  /** Checks `media_ids` (exist, ready, fit each platform) and renders a post's `media`: src/features/media. */
  media: Pick<MediaService, 'postIssues' | 'renderLists'>;
}

/** A timestamp from the API: ISO 8601 with a zone (the schema checked the shape); normalised to a Date. */
function parseTime(
  value: string,
  path: string,
  code: 'PUBLIC_API_BODY_INVALID' | 'PUBLIC_API_QUERY_INVALID' = 'PUBLIC_API_BODY_INVALID',
): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new AppError(code, `${path.slice(1)} is not a valid time.`, {
      details: [{ path, message: 'is not a valid time' }],
    });
  return date;
}

/** RFC 7396 JSON Merge Patch of plain objects. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export function createPostsService(deps: PostsDeps) {
  /** The connection of every target, and the issues when the post will publish without one (posts.connections.ts). */
  function resolve(
    ctx: ServiceContext,
    brandId: string,
    platforms: PlatformName[],
    connectionIds: string[],
    required: boolean,
  ): Promise<Resolution> {
    return resolveConnections(ctx.db, deps.platforms, {
      workspaceId: ctx.workspaceId,
      brandId,
      platforms,
      connectionIds,
      required,
    });
  }

  async function resolveBrand(ctx: ServiceContext, bodyBrandId: string | undefined): Promise<string> {
    if (bodyBrandId === undefined || bodyBrandId === ctx.brandId) {
      if (ctx.brandId === null)
        throw new AppError(
          'PUBLIC_API_BRAND_FORBIDDEN',
          'This key may not use the default brand: send x-herald-brand-id or brand_id.',
        );
      return ctx.brandId;
    }
    if (ctx.brandFromHeader) {
      throw new AppError(
        'PUBLIC_API_BODY_INVALID',
        `brand_id ${bodyBrandId} differs from the x-herald-brand-id header ${ctx.brandId}.`,
        { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
      );
    }
    const allowed = !ctx.allowedBrandIds || ctx.allowedBrandIds.includes(bodyBrandId);
    if (!allowed || !(await findBrand(ctx.db, ctx.workspaceId, bodyBrandId))) {
      throw new AppError(
        'PUBLIC_API_BRAND_FORBIDDEN',
        'That brand is not in this workspace or not reachable by this key.',
      );
    }
    return bodyBrandId;
  }

  async function checkCreate(
    ctx: ServiceContext,
    brandId: string,
    body: CreatePostBody,
  ): Promise<{ scheduleAt: Date | null; issues: RuleIssue[]; targets: TargetPlan[] }> {
    if (body.publish_now === true && body.schedule_at !== undefined) {
      throw new AppError('PUBLIC_API_BODY_INVALID', 'Send either publish_now or schedule_at, not both.', {
        details: [{ path: '/schedule_at', message: 'cannot be combined with publish_now' }],
      });
    }
    const scheduleAt = body.schedule_at !== undefined ? parseTime(body.schedule_at, '/schedule_at') : null;
    const mediaIds = body.media_ids ?? [];
    const resolution = await resolve(
      ctx,
      brandId,
      body.platforms,
      body.connection_ids ?? [],
      scheduleAt !== null || body.publish_now === true,
    );
    const issues = [
      ...checkPlatformRules(
        {
          content: body.content,
          platforms: body.platforms,
          platformOptions: body.platform_options ?? {},
          mediaCount: mediaIds.length,
        },
        resolution.limitsOf,
      ),
      ...checkSchedule(scheduleAt, deps.clock.now()),
      ...(await deps.media.postIssues(ctx, mediaIds, body.platforms)),
      ...resolution.issues,
    ];
    return { scheduleAt, issues, targets: resolution.targets };
  }

  async function loadForChange(ctx: ServiceContext, id: string): Promise<PostRow> {
    const post = await repo.findPost(ctx.db, ctx.workspaceId, id, true);
    if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
    return post;
  }

  async function emit(
    ctx: ServiceContext,
    post: PostRow,
    types: Parameters<typeof appendEvent>[2][],
  ): Promise<Record<string, unknown>> {
    const view = await renderPost(ctx.db, ctx.workspaceId, post, deps.media);
    for (const type of types) await appendEvent(ctx.db, ctx.workspaceId, type, view);
    return view;
  }

  async function createTargets(ctx: ServiceContext, post: PostRow, plans: TargetPlan[]): Promise<string[]> {
    const status = post.status === 'scheduled' ? 'scheduled' : 'pending';
    const targets = plans.map(
      (plan) =>
        ({
          id: newId('tgt'),
          platform: plan.platform,
          connectionId: plan.connectionId,
          sandbox: ctx.workspaceMode === 'test',
          status,
        }) as const,
    );
    await repo.insertTargets(ctx.db, ctx.workspaceId, post.id, targets);
    return targets.map((t) => t.id);
  }

  /** Hands the post's targets in `from` to the engine at once: due now, jobs queued, the post `publishing`. */
  async function publishNow(
    ctx: ServiceContext,
    post: PostRow,
    from: Array<'pending' | 'scheduled' | 'failed'>,
  ): Promise<PostRow> {
    const ids = await makeTargetsDueNow(ctx.db, ctx.workspaceId, post.id, from);
    await queuePublishJobs(ctx.db, ids, deps.clock.now(), null);
    return repo.updatePost(ctx.db, ctx.workspaceId, post.id, {
      status: 'publishing',
      publishNow: true,
      scheduleAt: null,
    });
  }

  return {
    async create(ctx: ServiceContext, body: CreatePostBody) {
      const brandId = await resolveBrand(ctx, body.brand_id);
      const { scheduleAt, issues, targets } = await checkCreate(ctx, brandId, body);
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
      const targetIds = await createTargets(ctx, post, targets);
      if (body.publish_now === true) {
        const publishing = await publishNow(ctx, post, ['pending']);
        return { post_id: post.id, post: await emit(ctx, publishing, ['post.created', 'post.publishing']) };
      }
      if (scheduleAt) await queuePublishJobs(ctx.db, targetIds, scheduleAt, scheduleAt);
      const view = await emit(ctx, post, scheduleAt ? ['post.created', 'post.scheduled'] : ['post.created']);
      return { post_id: post.id, post: view };
    },

    async validate(ctx: ServiceContext, body: CreatePostBody) {
      const { issues } = await checkCreate(ctx, await resolveBrand(ctx, body.brand_id), body);
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
        statuses: query.status ? ([...new Set(query.status.split(','))] as PostStatus[]) : undefined,
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
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `A ${post.status} post cannot be edited; only drafts and scheduled posts can.`,
        );
      }
      const platforms = patch.platforms ?? post.platforms;
      const mergedOptions =
        patch.platform_options !== undefined
          ? (mergePatch(post.platform_options, patch.platform_options) ?? {})
          : post.platform_options;
      if (!Value.Check(PlatformOptions, mergedOptions)) {
        const details = [...Value.Errors(PlatformOptions, mergedOptions)]
          .slice(0, 20)
          .map((e) => ({ path: `/platform_options${e.instancePath}`, message: e.message }));
        throw new AppError('PUBLIC_API_BODY_INVALID', 'platform_options is invalid after applying the patch.', {
          details,
        });
      }
      const platformOptions = mergedOptions as PlatformOptions;
      const content = patch.content ?? post.content;
      const mediaIds = patch.media_ids === undefined ? post.media_ids : (patch.media_ids ?? []);
      const scheduleAt =
        patch.schedule_at === undefined
          ? post.schedule_at
          : patch.schedule_at === null
            ? null
            : parseTime(patch.schedule_at, '/schedule_at');
      const status: PostStatus = scheduleAt ? 'scheduled' : 'draft';
      const oldTargets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      // Targets are re-planned when platforms or connections change, or when a post that will now publish has a
      // target still without a connection; connections already chosen are kept for the platforms that stay.
      const replan =
        (patch.platforms !== undefined && patch.platforms.join() !== post.platforms.join()) ||
        patch.connection_ids !== undefined ||
        (status === 'scheduled' && oldTargets.some((t) => t.connection_id === null));
      const kept = oldTargets
        .filter((t) => t.connection_id !== null && platforms.includes(t.platform))
        .map((t) => t.connection_id!);
      const resolution = await resolve(
        ctx,
        post.brand_id,
        platforms,
        patch.connection_ids === undefined ? [...new Set(kept)] : (patch.connection_ids ?? []),
        status === 'scheduled',
      );
      const issues = [
        ...checkPlatformRules(
          { content, platforms, platformOptions, mediaCount: mediaIds.length },
          resolution.limitsOf,
        ),
        ...(patch.schedule_at !== undefined ? checkSchedule(scheduleAt, deps.clock.now()) : []),
        // The whole resulting post: its media must still exist, be ready and fit the (possibly new) platforms.
        ...(await deps.media.postIssues(ctx, mediaIds, platforms)),
        ...resolution.issues,
      ];
      if (issues.length > 0) throw validationFailed(issues);

      const wasScheduled = post.status === 'scheduled';
      const rescheduled =
        status === 'scheduled' && (!wasScheduled || post.schedule_at?.getTime() !== scheduleAt?.getTime());
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, {
        content,
        platforms,
        platformOptions,
        mediaIds,
        status,
        scheduleAt,
      });

      let targetIds = oldTargets.map((t) => t.id);
      if (replan) {
        await removePublishJobs(ctx.db, targetIds);
        await repo.deleteTargets(ctx.db, ctx.workspaceId, id);
        targetIds = await createTargets(ctx, updated, resolution.targets);
      } else if (status !== post.status) {
        await repo.setTargetStatus(
          ctx.db,
          ctx.workspaceId,
          id,
          ['pending', 'scheduled'],
          status === 'scheduled' ? 'scheduled' : 'pending',
        );
      }
      if (status === 'scheduled') await queuePublishJobs(ctx.db, targetIds, scheduleAt!, scheduleAt);
      else if (wasScheduled) await removePublishJobs(ctx.db, targetIds);
      return emit(ctx, updated, rescheduled ? ['post.updated', 'post.scheduled'] : ['post.updated']);
    },

    async cancel(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      if (post.status === 'publishing')
        throw new AppError('PUBLIC_API_STATE_CONFLICT', 'This post is being published and can no longer be cancelled.');
      if (post.status !== 'draft' && post.status !== 'scheduled')
        throw new AppError('PUBLIC_API_STATE_CONFLICT', `A ${post.status} post cannot be cancelled.`);
      const targetIds = await repo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['pending', 'scheduled'], 'cancelled');
      await removePublishJobs(ctx.db, targetIds);
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, { status: 'cancelled' });
      return emit(ctx, updated, ['post.cancelled']);
    },

    /** POST /posts/{id}/publish: a draft or scheduled post goes out now (its connections must be usable). */
    async publish(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      if (post.status !== 'draft' && post.status !== 'scheduled')
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `A ${post.status} post cannot be published now; only drafts and scheduled posts can.`,
        );
      const targets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      const resolution = await resolve(
        ctx,
        post.brand_id,
        post.platforms,
        [...new Set(targets.flatMap((t) => (t.connection_id ? [t.connection_id] : [])))],
        true,
      );
      const issues = [
        ...checkPlatformRules(
          {
            content: post.content,
            platforms: post.platforms,
            platformOptions: post.platform_options,
            mediaCount: post.media_ids.length,
          },
          resolution.limitsOf,
        ),
        // Media may have been deleted, or have failed, since the draft was written.
        ...(await deps.media.postIssues(ctx, post.media_ids, post.platforms)),
        ...resolution.issues,
      ];
      if (issues.length > 0) throw validationFailed(issues);
      if (targets.some((t) => t.connection_id === null)) {
        await removePublishJobs(
          ctx.db,
          targets.map((t) => t.id),
        );
        await repo.deleteTargets(ctx.db, ctx.workspaceId, id);
        await createTargets(ctx, post, resolution.targets);
      }
      return emit(ctx, await publishNow(ctx, post, ['pending', 'scheduled']), ['post.publishing']);
    },

    /** POST /posts/{id}/retry: the failed targets go out again; the published ones are left alone. */
    async retry(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      const targets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      const failed = targets.filter((t) => t.status === 'failed');
      if ((post.status !== 'failed' && post.status !== 'partially_published') || failed.length === 0) {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `Only failed targets can be retried; this post is ${post.status}.`,
        );
      }
      // A target whose account was reconnected since (a new connection) goes through the brand's current one.
      const resolution = await resolve(ctx, post.brand_id, [...new Set(failed.map((t) => t.platform))], [], true);
      const current = await findConnectionsById(
        ctx.db,
        ctx.workspaceId,
        failed.flatMap((t) => (t.connection_id ? [t.connection_id] : [])),
      );
      const issues: RuleIssue[] = [];
      for (const t of failed) {
        const own = current.find((c) => c.id === t.connection_id);
        if (own?.status === 'active') continue;
        const replacement = resolution.targets.find(
          (plan) => plan.platform === t.platform && plan.connectionId !== null && plan.connectionId !== t.connection_id,
        );
        if (replacement) await repo.setTargetConnection(ctx.db, ctx.workspaceId, t.id, replacement.connectionId!);
        else
          issues.push(
            ...resolution.issues.filter((i) => i.platform === t.platform),
            ...(own
              ? [
                  {
                    platform: t.platform,
                    rule: 'connection_expired',
                    message: `The ${t.platform} account ${own.handle} must be reconnected before this target can be retried.`,
                    path: `/targets/${targets.indexOf(t)}`,
                  },
                ]
              : []),
          );
      }
      if (issues.length > 0) throw validationFailed(issues);
      return emit(ctx, await publishNow(ctx, post, ['failed']), ['post.publishing']);
    },

    async remove(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      if (!['draft', 'scheduled', 'cancelled', 'failed'].includes(post.status)) {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `A ${post.status} post cannot be deleted; deleting it on the platforms is a separate action.`,
        );
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
