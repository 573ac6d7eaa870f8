// Changing a post after it was created: edit (a draft or scheduled post), cancel (also the targets of a post being
// published that wait between attempts), publish now, retry (the failed targets, and the waiting ones at once),
// delete. Each changes the post, its targets, its publish jobs and the outbox in the caller's transaction.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { queuePublishJobs, removePublishJobs } from '../../app/publish-queue.ts';
import { findConnections as findConnectionsById } from '../connections/connections.repo.ts';
import * as targetsRepo from '../publishing/targets.repo.ts';
import * as repo from './posts.repo.ts';
import type { PostRow, PostStatus } from './posts.repo.ts';
import { renderPost } from './posts.view.ts';
import { asRuleIssues, checkPostBrand } from './posts.brand.ts';
import { firstCommentMediaIssues, prepareFirstCommentVariants } from './posts.first-comment-media.ts';
import { checkConnectionBoards, checkPlatformRules, checkSchedule, type RuleIssue } from './posts.rules.ts';
import { PlatformOptions, type UpdatePostBody } from './posts.schemas.ts';
import { createTargets, emitPost, publishNow, resolveTargets, type PostsDeps } from './posts.writing.ts';
import { resolveSchedule } from './posts.schedule.ts';
import { mergeMetadata } from '../../app/metadata.ts';
import { cancelPending, supersedePending } from '../approvals/approvals.submit.ts';
import { gateOf, holdForApproval, originOf, withdrawRequest } from './posts.approval.ts';
import { cancelPublishing, inFlight } from './posts.cancelling.ts';
import { leaveQueue } from '../queues/queues.assign.ts';

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

async function loadForChange(ctx: ServiceContext, id: string): Promise<PostRow> {
  const post = await repo.findPost(ctx.db, ctx.workspaceId, id, true);
  if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
  return post;
}

export function createPostChanges(deps: PostsDeps) {
  return {
    /**
     * `approvalEdit`: a reviewer's edit_and_approve, which keeps the post held for the approval that follows; any
     * other edit of a held post supersedes its request (and the gate decides again).
     */
    async update(ctx: ServiceContext, id: string, patch: UpdatePostBody, options: { approvalEdit?: boolean } = {}) {
      // A time set explicitly pins a queued post: it leaves its slot (docs/queues.md "Moving and leaving").
      if (patch.schedule_at !== undefined) await leaveQueue(ctx, deps.media, id, deps.clock.now());
      const post = await loadForChange(ctx, id);
      if (!['draft', 'scheduled', 'pending_approval'].includes(post.status)) {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `A ${post.status} post cannot be edited; only drafts, scheduled posts and posts awaiting approval can.`,
        );
      }
      const platforms = patch.platforms ?? post.platforms;
      const mergedOptions =
        patch.platform_options !== undefined
          ? (mergePatch(post.platform_options, patch.platform_options) ?? {})
          : post.platform_options;
      // The merged options are checked against their schema only when the patch changed them. TypeBox's value
      // checker (some 300 modules) loads on the first such edit, not at start (docs/decisions.md "Start-up loads
      // what serving needs").
      const { Value } = patch.platform_options !== undefined ? await import('typebox/value') : { Value: null };
      if (Value && !Value.Check(PlatformOptions, mergedOptions)) {
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
      const { scheduleAt, timezone } = resolveSchedule(
        { scheduleAt: patch.schedule_at, timezone: patch.timezone },
        { scheduleAt: post.schedule_at, timezone: post.timezone },
      );
      const metadata = patch.metadata !== undefined ? mergeMetadata(post.metadata, patch.metadata) : undefined;
      // A post held for publish-now still wants to go out after an edit that leaves its schedule alone.
      const publishNowHeld = post.status === 'pending_approval' && post.schedule_at === null;
      const outgoing = scheduleAt !== null || (publishNowHeld && patch.schedule_at === undefined);
      // Read once: a held post hands the same decision (and policy) to holdForApproval.
      const gate =
        options.approvalEdit !== true && outgoing ? await gateOf(ctx, post.brand_id, originOf(post)) : undefined;
      const held = options.approvalEdit === true || gate?.gated === true;
      const status: PostStatus = held ? 'pending_approval' : scheduleAt ? 'scheduled' : 'draft';
      const oldTargets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      // Targets are re-planned when platforms or connections change, or when a post that will now publish has a
      // target still without a connection; connections already chosen are kept for the platforms that stay.
      const replan =
        (patch.platforms !== undefined && patch.platforms.join() !== post.platforms.join()) ||
        patch.connection_ids !== undefined ||
        (status !== 'draft' && oldTargets.some((t) => t.connection_id === null));
      const kept = oldTargets
        .filter((t) => t.connection_id !== null && platforms.includes(t.platform))
        .map((t) => t.connection_id!);
      const resolution = await resolveTargets(
        deps,
        ctx,
        post.brand_id,
        platforms,
        patch.connection_ids === undefined ? [...new Set(kept)] : (patch.connection_ids ?? []),
        status !== 'draft',
      );
      // The brand's rules on the edited post, with the brand as it is now (additions are fixed again).
      const brand = await checkPostBrand(ctx.db, ctx.workspaceId, post.brand_id, {
        content,
        platforms,
        platformOptions,
      });
      const issues = [
        ...checkPlatformRules(
          { content, platforms, platformOptions, mediaCount: mediaIds.length, brandAdditions: brand.additions },
          resolution.limitsOf,
        ),
        ...asRuleIssues(brand.errors),
        ...(patch.schedule_at !== undefined || patch.timezone !== undefined
          ? checkSchedule(scheduleAt, deps.clock.now())
          : []),
        // The whole resulting post: its media must still exist, be ready and fit the (possibly new) platforms.
        ...(await deps.media.postIssues(ctx, mediaIds, platforms, {
          options: platformOptions,
          limitsOf: resolution.limitsOf,
        })),
        ...(await firstCommentMediaIssues(deps.media, ctx, platforms, platformOptions, resolution.limitsOf)),
        ...resolution.issues,
        ...checkConnectionBoards(platformOptions, resolution.targets),
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
        timezone,
        metadata,
        brandAdditions: brand.additions,
      });
      await deps.media.prepareVariants(ctx, mediaIds, platforms, { options: platformOptions });
      await prepareFirstCommentVariants(deps.media, ctx, platforms, platformOptions);

      let targetIds = oldTargets.map((t) => t.id);
      if (replan) {
        await removePublishJobs(ctx.db, targetIds);
        await targetsRepo.deleteTargets(ctx.db, ctx.workspaceId, id);
        targetIds = await createTargets(ctx, updated, resolution.targets);
      } else if (status !== post.status) {
        await targetsRepo.setTargetStatus(
          ctx.db,
          ctx.workspaceId,
          id,
          ['pending', 'scheduled'],
          status === 'scheduled' ? 'scheduled' : 'pending',
        );
      }
      if (status === 'scheduled') await queuePublishJobs(ctx.db, targetIds, scheduleAt!, scheduleAt);
      else if (wasScheduled) await removePublishJobs(ctx.db, targetIds);
      if (options.approvalEdit) return emitPost(deps, ctx, updated, ['post.updated']);
      // Editing a held post supersedes its request; if the gate still holds it, a new request replaces it.
      const final = held
        ? await holdForApproval(deps, ctx, updated, scheduleAt ? 'schedule' : 'publish_now', originOf(post), gate)
        : await withdrawRequest(ctx, updated, supersedePending);
      return emitPost(deps, ctx, final, rescheduled ? ['post.updated', 'post.scheduled'] : ['post.updated']);
    },

    async cancel(ctx: ServiceContext, id: string) {
      await leaveQueue(ctx, deps.media, id, deps.clock.now());
      const post = await loadForChange(ctx, id);
      if (post.status === 'publishing') return cancelPublishing(ctx, post, deps);
      if (!['draft', 'scheduled', 'pending_approval'].includes(post.status))
        throw new AppError('PUBLIC_API_STATE_CONFLICT', `A ${post.status} post cannot be cancelled.`);
      const targetIds = await targetsRepo.setTargetStatus(
        ctx.db,
        ctx.workspaceId,
        id,
        ['pending', 'scheduled'],
        'cancelled',
      );
      await removePublishJobs(ctx.db, targetIds);
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, { status: 'cancelled' });
      return emitPost(deps, ctx, await withdrawRequest(ctx, updated, cancelPending), ['post.cancelled']);
    },

    /** POST /posts/{id}/publish: a draft or scheduled post goes out now (its connections must be usable). */
    async publish(ctx: ServiceContext, id: string) {
      await leaveQueue(ctx, deps.media, id, deps.clock.now());
      const post = await loadForChange(ctx, id);
      if (post.status !== 'draft' && post.status !== 'scheduled')
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `A ${post.status} post cannot be published now; only drafts and scheduled posts can.`,
        );
      const targets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      const resolution = await resolveTargets(
        deps,
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
            // Fixed when the post was written: what validate showed is what goes out.
            brandAdditions: post.brand_additions,
          },
          resolution.limitsOf,
        ),
        // Media may have been deleted, or have failed, since the draft was written.
        ...(await deps.media.postIssues(ctx, post.media_ids, post.platforms, {
          options: post.platform_options,
          limitsOf: resolution.limitsOf,
        })),
        ...(await firstCommentMediaIssues(deps.media, ctx, post.platforms, post.platform_options, resolution.limitsOf)),
        ...resolution.issues,
        ...checkConnectionBoards(post.platform_options, resolution.targets),
      ];
      if (issues.length > 0) throw validationFailed(issues);
      if (targets.some((t) => t.connection_id === null)) {
        await removePublishJobs(
          ctx.db,
          targets.map((t) => t.id),
        );
        await targetsRepo.deleteTargets(ctx.db, ctx.workspaceId, id);
        await createTargets(ctx, post, resolution.targets);
      }
      const gate = await gateOf(ctx, post.brand_id, originOf(post));
      if (gate.gated) {
        // Held: the request asks to publish now; nothing is due until a reviewer approves.
        await removePublishJobs(
          ctx.db,
          await targetsRepo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['scheduled'], 'pending'),
        );
        const held = await repo.updatePost(ctx.db, ctx.workspaceId, id, {
          status: 'pending_approval',
          scheduleAt: null,
        });
        return emitPost(deps, ctx, await holdForApproval(deps, ctx, held, 'publish_now', originOf(post), gate), [
          'post.updated',
        ]);
      }
      return emitPost(deps, ctx, await publishNow(deps, ctx, post, ['pending', 'scheduled']), ['post.publishing']);
    },

    /**
     * POST /posts/{id}/retry: the failed targets go out again, and targets waiting between automatic attempts are
     * attempted now; the published ones are left alone, and so is a target a worker is publishing this instant.
     */
    async retry(ctx: ServiceContext, id: string) {
      const post = await loadForChange(ctx, id);
      const targets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      const failed = targets.filter((t) => t.status === 'failed');
      const busy = post.status === 'publishing' ? await targetsRepo.targetsInFlight(ctx.db, ctx.workspaceId, id) : [];
      const waiting = targets.filter((t) => t.status === 'publishing' && !busy.some((b) => b.id === t.id));
      if (failed.length === 0 && waiting.length === 0) {
        if (busy.length > 0) throw inFlight('retried', busy);
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `Only failed targets, or targets waiting for their next attempt, can be retried; this post is ${post.status}.`,
        );
      }
      // A target whose account was reconnected since (a new connection) goes through the brand's current one.
      const resolution = await resolveTargets(
        deps,
        ctx,
        post.brand_id,
        [...new Set(failed.map((t) => t.platform))],
        [],
        true,
      );
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
        if (replacement)
          await targetsRepo.setTargetConnection(ctx.db, ctx.workspaceId, t.id, replacement.connectionId!);
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
      const now = deps.clock.now();
      const forward = await targetsRepo.bringAttemptsForward(
        ctx.db,
        ctx.workspaceId,
        waiting.map((t) => t.id),
      );
      await queuePublishJobs(ctx.db, forward, now, null);
      if (post.status !== 'publishing')
        return emitPost(deps, ctx, await publishNow(deps, ctx, post, ['failed']), ['post.publishing']);
      // Still publishing: the post keeps its schedule, which targets still `scheduled` are claimed against.
      const again = await targetsRepo.makeTargetsDueNow(ctx.db, ctx.workspaceId, id, ['failed']);
      await queuePublishJobs(ctx.db, again, now, null);
      return renderPost(ctx.db, ctx.workspaceId, post, deps.media);
    },

    /**
     * DELETE /posts/{id}: Herald's record of a post of which nothing is out. Herald deletes nothing on the platforms,
     * so a post with a part published is refused whatever its status says (a row derived before parts counted).
     */
    async remove(ctx: ServiceContext, id: string) {
      await leaveQueue(ctx, deps.media, id, deps.clock.now());
      const post = await loadForChange(ctx, id);
      if (!['draft', 'scheduled', 'pending_approval', 'cancelled', 'failed'].includes(post.status)) {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `A ${post.status} post cannot be deleted; deleting it on the platforms is a separate action.`,
        );
      }
      const targets = await repo.findTargets(ctx.db, ctx.workspaceId, [id]);
      const out = (
        await repo.findParts(
          ctx.db,
          ctx.workspaceId,
          targets.map((t) => t.id),
        )
      ).filter((p) => p.state === 'published');
      if (out.length > 0)
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          'Parts of this post are published on their platforms; deleting it on the platforms is a separate action.',
          {
            details: out.map((p) => {
              const platform = targets.find((t) => t.id === p.target_id)!.platform;
              return {
                platform,
                rule: 'published_part',
                message: `Part ${p.position + 1} is published on ${platform} (${p.platform_post_id}).`,
              };
            }),
          },
        );
      const targetIds = await targetsRepo.setTargetStatus(
        ctx.db,
        ctx.workspaceId,
        id,
        ['pending', 'scheduled'],
        'cancelled',
      );
      await removePublishJobs(ctx.db, targetIds);
      await withdrawRequest(ctx, post, cancelPending);
      const deleted = await repo.updatePost(ctx.db, ctx.workspaceId, id, { deleted: true });
      await emitPost(deps, ctx, deleted, ['post.deleted']);
      return { id: deleted.id, object: 'post', deleted: true };
    },
  };
}
