// Creating a post (POST /v1/posts) and checking one without creating it (POST /v1/posts/validate): the brand,
// the schedule, each platform's rules, the media and the connections, then the post, its targets and its jobs.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import { findBrandForPosts, type BrandForPosts } from '../brands/brands.repo.ts';
import type { BrandCheck } from '../brands/brand-rules.ts';
import { appliedView, asRuleIssues, checkPostBrand } from './posts.brand.ts';
import { createPostRows } from './posts.create.repo.ts';
import { firstCommentMediaIssues, prepareFirstCommentVariants } from './posts.first-comment-media.ts';
import type { PostStatus } from './posts.repo.ts';
import { checkConnectionBoards, checkPlatformRules, checkSchedule, type RuleIssue } from './posts.rules.ts';
import type { CreatePostBody } from './posts.schemas.ts';
import { emitPost, emitView, publishNow, type PostsDeps } from './posts.writing.ts';
import { resolveConnections, type TargetPlan } from './posts.connections.ts';
import { readCreateContext } from './posts.context.repo.ts';
import type { Policy } from '../approvals/approvals.policy.ts';
import { renderCreated } from './posts.view.ts';
import { resolveScheduleWithIssues } from './posts.schedule.ts';
import { initialMetadata } from '../../app/metadata.ts';
import { gateOf, holdForApproval, type ApprovalOrigin } from './posts.approval.ts';
import { createQueuedPost, resolveQueue } from '../queues/queues.assign.ts';
import type { QueueRow } from '../queues/queues.repo.ts';

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
    /** The queue the post joins (`queue`), its slot taken on create. */
    queue: QueueRow | null;
    /** The workspace's approval policy, read with the rest (for the gate). */
    policy: Policy;
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
    // The brand's rules, its default connections and the approval policy, in one statement.
    const context = await readCreateContext(ctx.db, ctx.workspaceId, brandId, body.platforms);
    const resolution = await resolveConnections(ctx.db, deps.platforms, {
      workspaceId: ctx.workspaceId,
      brandId,
      platforms: body.platforms,
      connectionIds: body.connection_ids ?? [],
      required: scheduleAt !== null || body.publish_now === true || body.queue !== undefined,
      defaults: context.defaults,
    });
    // Only a post that asks for a queue reads one (docs/queues.md).
    const queued =
      body.queue !== undefined || body.queue_id !== undefined
        ? await resolveQueue(
            ctx.db,
            ctx.workspaceId,
            brandId,
            body,
            resolution.targets.map((t) => t.connectionId),
          )
        : { queue: null, issues: [] };
    const draft = { content: body.content, platforms: body.platforms, platformOptions: body.platform_options ?? {} };
    const brand = await checkPostBrand(ctx.db, ctx.workspaceId, brandId, draft, known ?? context.brand ?? null);
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
      ...(await firstCommentMediaIssues(deps.media, ctx, body.platforms, draft.platformOptions, resolution.limitsOf)),
      ...resolution.issues,
      ...checkConnectionBoards(draft.platformOptions, resolution.targets),
      ...queued.issues,
    ];
    return {
      scheduleAt,
      timezone,
      issues,
      targets: resolution.targets,
      brand,
      queue: queued.queue,
      policy: context.policy,
    };
  }

  return {
    /** `origin`: for features that create posts for a run (automations, repurpose, imports): the approval source. */
    async create(ctx: ServiceContext, body: CreatePostBody, origin: ApprovalOrigin = {}) {
      const resolved = await resolveBrand(ctx, body.brand_id);
      const brandId = resolved.id;
      const checked = await checkCreate(ctx, resolved, body);
      const { timezone, issues, targets, brand, queue } = checked;
      if (issues.length > 0) throw validationFailed(issues);
      // The approval gate, for a post that would go out (docs/approvals.md): held, it waits for a reviewer.
      const outgoing = checked.scheduleAt !== null || body.publish_now === true || queue !== null;
      const gate = outgoing ? await gateOf(ctx, brandId, origin, checked.policy) : undefined;
      const held = gate?.gated === true;
      const queued = queue !== null;
      const status: PostStatus = held ? 'pending_approval' : checked.scheduleAt || queued ? 'scheduled' : 'draft';
      const now = deps.clock.now();
      // A queued post's time is its slot's, taken last (createQueuedPost); until then, now stands for it.
      const scheduleAt = queued ? now : checked.scheduleAt;
      const row = {
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
      };
      const newTargets = targets.map((plan) => ({
        id: newId('tgt'),
        platform: plan.platform,
        connectionId: plan.connectionId,
      }));
      const targetOptions = {
        sandbox: ctx.workspaceMode === 'test',
        status: status === 'scheduled' ? ('scheduled' as const) : ('pending' as const),
        jobsAt: status === 'scheduled' ? scheduleAt : null,
      };
      // The post, its targets and (scheduled) their jobs in one round trip (posts.create.repo.ts); a queued post
      // takes a slot claimed for it, or one under the queue's lock (docs/queues.md).
      const created = queue
        ? await createQueuedPost(ctx, queue, body.queue!, row, newTargets, targetOptions, now, deps.queueClaims)
        : await createPostRows(ctx.db, row, newTargets, targetOptions);
      const { post } = created;
      // Images fitted to each platform are made in a job now, so they are ready when the post goes out.
      await deps.media.prepareVariants(ctx, post.media_ids, post.platforms, { options: body.platform_options });
      await prepareFirstCommentVariants(deps.media, ctx, post.platforms, post.platform_options);
      const warnings = asRuleIssues(brand.warnings);
      if (held) {
        const action = body.publish_now === true ? 'publish_now' : 'schedule';
        const pending = await holdForApproval(deps, ctx, post, action, origin, gate);
        // Holding changed the post's approval only: its new targets are rendered as written, without reading them.
        const view = await renderCreated(ctx.db, ctx.workspaceId, pending, created.targets, deps.media);
        const heldTypes = queued ? (['post.created', 'post.queued'] as const) : (['post.created'] as const);
        return { post_id: post.id, post: await emitView(ctx, view, [...heldTypes]), warnings };
      }
      if (body.publish_now === true) {
        const publishing = await publishNow(deps, ctx, post, ['pending']);
        return {
          post_id: post.id,
          post: await emitPost(deps, ctx, publishing, ['post.created', 'post.publishing']),
          warnings,
        };
      }
      const view = await renderCreated(ctx.db, ctx.workspaceId, post, created.targets, deps.media);
      const types = queued
        ? (['post.created', 'post.scheduled', 'post.queued'] as const)
        : scheduleAt
          ? (['post.created', 'post.scheduled'] as const)
          : (['post.created'] as const);
      return { post_id: post.id, post: await emitView(ctx, view, [...types]), warnings };
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
