// Creating a post (POST /v1/posts) and checking one without creating it (POST /v1/posts/validate): the brand,
// the schedule, each platform's rules, the media and the connections, then the post, its targets and its jobs.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { queuePublishJobs } from '../../app/publish-queue.ts';
import { newId } from '../../lib/ids.ts';
import { findBrand } from '../workspaces/workspaces.repo.ts';
import * as repo from './posts.repo.ts';
import type { PostStatus } from './posts.repo.ts';
import type { TargetPlan } from './posts.connections.ts';
import { checkPlatformRules, checkSchedule, type RuleIssue } from './posts.rules.ts';
import type { CreatePostBody } from './posts.schemas.ts';
import { createTargets, emitPost, parseTime, publishNow, resolveTargets, type PostsDeps } from './posts.writing.ts';

export function createPostCreation(deps: PostsDeps) {
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
    const resolution = await resolveTargets(
      deps,
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
        const publishing = await publishNow(deps, ctx, post, ['pending']);
        return { post_id: post.id, post: await emitPost(deps, ctx, publishing, ['post.created', 'post.publishing']) };
      }
      if (scheduleAt) await queuePublishJobs(ctx.db, targetIds, scheduleAt, scheduleAt);
      const view = await emitPost(deps, ctx, post, scheduleAt ? ['post.created', 'post.scheduled'] : ['post.created']);
      return { post_id: post.id, post: view };
    },

    async validate(ctx: ServiceContext, body: CreatePostBody) {
      const { issues } = await checkCreate(ctx, await resolveBrand(ctx, body.brand_id), body);
      return { valid: issues.length === 0, issues };
    },
  };
}
