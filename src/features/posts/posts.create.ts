// Creating a post (POST /v1/posts) and checking one without creating it (POST /v1/posts/validate): the brand,
// the schedule, each platform's rules, the media and the connections, then the post, its targets and its jobs.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { queuePublishJobs } from '../../app/publish-queue.ts';
import { newId } from '../../lib/ids.ts';
import { findBrandForPosts, type BrandForPosts } from '../brands/brands.repo.ts';
import type { BrandCheck } from '../brands/brand-rules.ts';
import { appliedView, asRuleIssues, checkPostBrand } from './posts.brand.ts';
import * as repo from './posts.repo.ts';
import type { PostStatus } from './posts.repo.ts';
import type { TargetPlan } from './posts.connections.ts';
import { checkConnectionBoards, checkPlatformRules, checkSchedule, type RuleIssue } from './posts.rules.ts';
import type { CreatePostBody } from './posts.schemas.ts';
import { createTargets, emitPost, publishNow, resolveTargets, type PostsDeps } from './posts.writing.ts';
import { resolveScheduleWithIssues } from './posts.schedule.ts';
import { initialMetadata } from '../../app/metadata.ts';
import { holdForApproval, isGated, type ApprovalOrigin } from './posts.approval.ts';

export function createPostCreation(deps: PostsDeps) {
  /** The post's brand; read here (the brand's rules) only when the body names one the header did not check. */
  async function resolveBrand(
    ctx: ServiceContext,
    bodyBrandId: string | undefined,
  ): Promise<{ id: string; brand?: BrandForPosts }> {
    if (bodyBrandId === undefined || bodyBrandId === ctx.brandId) {
      if (ctx.brandId === null)
        throw new AppError(
          'PUBLIC_API_BRAND_FORBIDDEN',
          'This key may not use the default brand: send x-herald-brand-id or brand_id.',
        );
      return { id: ctx.brandId };
    }
    if (ctx.brandFromHeader) {
      throw new AppError(
        'PUBLIC_API_BODY_INVALID',
        `brand_id ${bodyBrandId} differs from the x-herald-brand-id header ${ctx.brandId}.`,
        { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
      );
    }
    const allowed = !ctx.allowedBrandIds || ctx.allowedBrandIds.includes(bodyBrandId);
    const brand = allowed ? await findBrandForPosts(ctx.db, ctx.workspaceId, bodyBrandId) : undefined;
    if (!brand) {
      throw new AppError(
        'PUBLIC_API_BRAND_FORBIDDEN',
        'That brand is not in this workspace or not reachable by this key.',
      );
    }
    return { id: bodyBrandId, brand };
  }

  async function checkCreate(
    ctx: ServiceContext,
    { id: brandId, brand: known }: { id: string; brand?: BrandForPosts },
    body: CreatePostBody,
    /** Media the request brings that is not fetched yet (a GPT action's files): counted, not planned. */
    pendingMedia = 0,
  ): Promise<{
    scheduleAt: Date | null;
    timezone: string | null;
    issues: RuleIssue[];
    targets: TargetPlan[];
    brand: BrandCheck;
  }> {
    if (body.publish_now === true && body.schedule_at !== undefined) {
      throw new AppError('PUBLIC_API_BODY_INVALID', 'Send either publish_now or schedule_at, not both.', {
        details: [{ path: '/schedule_at', message: 'cannot be combined with publish_now' }],
      });
    }
    const { scheduleAt, timezone, ...schedule } = resolveScheduleWithIssues({
      scheduleAt: body.schedule_at,
      timezone: body.timezone,
    });
    const mediaIds = body.media_ids ?? [];
    const resolution = await resolveTargets(
      deps,
      ctx,
      brandId,
      body.platforms,
      body.connection_ids ?? [],
      scheduleAt !== null || body.publish_now === true,
    );
    const draft = { content: body.content, platforms: body.platforms, platformOptions: body.platform_options ?? {} };
    const brand = await checkPostBrand(ctx.db, ctx.workspaceId, brandId, draft, known);
    const issues = [
      ...checkPlatformRules(
        { ...draft, mediaCount: mediaIds.length + pendingMedia, brandAdditions: brand.additions },
        resolution.limitsOf,
      ),
      ...asRuleIssues(brand.errors),
      ...schedule.issues,
      ...checkSchedule(scheduleAt, deps.clock.now()),
      ...(await deps.media.postIssues(ctx, mediaIds, body.platforms, {
        options: body.platform_options,
        limitsOf: resolution.limitsOf,
      })),
      ...resolution.issues,
      ...checkConnectionBoards(draft.platformOptions, resolution.targets),
    ];
    return { scheduleAt, timezone, issues, targets: resolution.targets, brand };
  }

  return {
    /** `origin`: for features that create posts for a run (automations, repurpose, imports): the approval source. */
    async create(ctx: ServiceContext, body: CreatePostBody, origin: ApprovalOrigin = {}) {
      const resolved = await resolveBrand(ctx, body.brand_id);
      const brandId = resolved.id;
      const { scheduleAt, timezone, issues, targets, brand } = await checkCreate(ctx, resolved, body);
      if (issues.length > 0) throw validationFailed(issues);
      // The approval gate, for a post that would go out (docs/approvals.md): held, it waits for a reviewer.
      const outgoing = scheduleAt !== null || body.publish_now === true;
      const held = outgoing && (origin.review === 'always' || (await isGated(ctx, brandId, origin)));
      const status: PostStatus = held ? 'pending_approval' : scheduleAt ? 'scheduled' : 'draft';
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
        createdVia: origin.source?.type ?? ctx.via,
        createdBy: ctx.userId,
        timezone,
        metadata: initialMetadata(body.metadata),
        brandAdditions: brand.additions,
      });
      const targetIds = await createTargets(ctx, post, targets);
      // Images fitted to each platform are made in a job now, so they are ready when the post goes out.
      await deps.media.prepareVariants(ctx, post.media_ids, post.platforms, { options: body.platform_options });
      if (held) {
        const pending = await holdForApproval(
          deps,
          ctx,
          post,
          body.publish_now === true ? 'publish_now' : 'schedule',
          origin,
        );
        return {
          post_id: post.id,
          post: await emitPost(deps, ctx, pending, ['post.created']),
          warnings: asRuleIssues(brand.warnings),
        };
      }
      if (body.publish_now === true) {
        const publishing = await publishNow(deps, ctx, post, ['pending']);
        return {
          post_id: post.id,
          post: await emitPost(deps, ctx, publishing, ['post.created', 'post.publishing']),
          warnings: asRuleIssues(brand.warnings),
        };
      }
      if (scheduleAt) await queuePublishJobs(ctx.db, targetIds, scheduleAt, scheduleAt);
      const view = await emitPost(deps, ctx, post, scheduleAt ? ['post.created', 'post.scheduled'] : ['post.created']);
      return { post_id: post.id, post: view, warnings: asRuleIssues(brand.warnings) };
    },

    /** `pendingMedia`: files the request names that are fetched only on create (they count toward media rules). */
    async validate(ctx: ServiceContext, body: CreatePostBody, pendingMedia = 0) {
      const { issues, brand } = await checkCreate(ctx, await resolveBrand(ctx, body.brand_id), body, pendingMedia);
      return {
        valid: issues.length === 0,
        issues,
        warnings: asRuleIssues(brand.warnings),
        applied: appliedView(body.platforms, body.content, body.platform_options ?? {}, brand.additions),
        media: await deps.media.mediaPlans(ctx, body.media_ids ?? [], body.platforms, {
          options: body.platform_options,
        }),
      };
    },
  };
}
