// Posts and the approval gate (docs/approvals.md): holding a post that would be scheduled or published when the
// policy says so, and what a decision does to a held post (out at its time or now, back to draft, cancelled).
// Create, edit and publish-now call `gateOf` once and hand its decision to `holdForApproval`; the approvals feature calls the rest through the
// posts service.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, notFound } from '../../app/errors.ts';
import { queuePublishJobs, removePublishJobs } from '../../app/publish-queue.ts';
import { gateFor } from '../approvals/approvals.gate.ts';
import type { Policy } from '../approvals/approvals.policy.ts';
import { submitForApproval, type cancelPending, type supersedePending } from '../approvals/approvals.submit.ts';
import { postApproval } from '../approvals/approvals.view.ts';
import * as targetsRepo from '../publishing/targets.repo.ts';
import { appliedView } from './posts.brand.ts';
import * as repo from './posts.repo.ts';
import type { PostRow } from './posts.repo.ts';
import { emitPost, publishNow, type PostsDeps } from './posts.writing.ts';
import { leaveQueue } from '../queues/queues.assign.ts';

/**
 * Who asks, for the approval item: defaults to the calling surface; automations and imports name their run. The
 * source's type is also the post's `created_via`, which every later edit or publish is gated by.
 */
export interface ApprovalOrigin {
  source?: { type: PostRow['created_via']; id: string | null };
  batchId?: string | null;
  /** `always`: the post waits for review whatever the policy says (a repurpose job's `approval` mode asks for it). */
  review?: 'policy' | 'always';
}

/** The snapshot a reviewer sees: per platform, the first part's text as it will be published. */
function previewOf(post: PostRow): Record<string, unknown> {
  return {
    content: post.content,
    media_ids: post.media_ids,
    schedule_at: post.schedule_at ? post.schedule_at.toISOString() : null,
    platforms: appliedView(post.platforms, post.content, post.platform_options, post.brand_additions).map((a) => ({
      platform: a.platform,
      text: a.text,
    })),
  };
}

/**
 * The origin of a post already written: the policy is read for its `created_via` whoever edits or publishes it, so
 * an automation's output held for review cannot be let out by an edit from a surface the policy does not review.
 */
export function originOf(post: PostRow): ApprovalOrigin {
  return { source: { type: post.created_via, id: null } };
}

/** The gate's decision and the policy it read, for a post about to be scheduled or published by this caller. */
export type PostGate = Awaited<ReturnType<typeof gateFor>>;

/**
 * The gate for a post about to go out: held when the policy says so, or always for an `always` origin. Read once per
 * write; the decision (with its policy) is handed to holdForApproval rather than read again.
 */
export async function gateOf(
  ctx: ServiceContext,
  brandId: string,
  origin: ApprovalOrigin = {},
  /** The workspace's policy, when the write has just read it (readCreateContext). */
  policy?: Policy,
): Promise<PostGate> {
  const gate = await gateFor(ctx, brandId, origin.source?.type ?? ctx.via, policy);
  return origin.review === 'always' ? { ...gate, gated: true } : gate;
}

/**
 * The post (already written as `pending_approval`, its targets `pending`) goes to the review queue asking to be
 * published now or at its schedule; the post shows the request. `gate`: the decision that held it (gateOf), whose
 * policy is used as read; without it the policy is read here.
 */
export async function holdForApproval(
  deps: PostsDeps,
  ctx: ServiceContext,
  post: PostRow,
  action: 'publish_now' | 'schedule',
  origin: ApprovalOrigin = {},
  gate?: PostGate,
): Promise<PostRow> {
  const source = origin.source ?? { type: ctx.via, id: null };
  const { policy } = gate ?? (await gateFor(ctx, post.brand_id, source.type));
  const item = await submitForApproval(ctx, {
    kind: 'post',
    subject: { type: 'post', id: post.id },
    brandId: post.brand_id,
    platforms: post.platforms,
    proposedAction: { type: action, at: action === 'schedule' ? post.schedule_at : null },
    source,
    preview: previewOf(post),
    batchId: origin.batchId ?? null,
    policy,
    now: deps.clock.now(),
  });
  return repo.updatePost(ctx.db, ctx.workspaceId, post.id, { approval: postApproval(item) });
}

/** The post's open approval request, if any, is superseded or cancelled; the post shows it. */
export async function withdrawRequest(
  ctx: ServiceContext,
  post: PostRow,
  settle: typeof supersedePending | typeof cancelPending,
): Promise<PostRow> {
  const item = await settle(ctx, { type: 'post', id: post.id });
  return item ? repo.updatePost(ctx.db, ctx.workspaceId, post.id, { approval: postApproval(item) }) : post;
}

async function loadHeld(ctx: ServiceContext, id: string): Promise<PostRow> {
  const post = await repo.findPost(ctx.db, ctx.workspaceId, id, true);
  if (!post) throw notFound('post');
  if (post.status !== 'pending_approval')
    throw new AppError('PUBLIC_API_STATE_CONFLICT', `Post ${id} is ${post.status}, not awaiting approval.`);
  return post;
}

export function createPostApprovals(deps: PostsDeps) {
  return {
    /** Approved: the held post goes out now, or is scheduled at `scheduleAt` with its publish jobs. */
    async releaseApproved(
      ctx: ServiceContext,
      id: string,
      when: { publishNow: true } | { scheduleAt: Date },
      approval: Record<string, unknown>,
    ): Promise<Record<string, unknown>> {
      const post = await loadHeld(ctx, id);
      if ('publishNow' in when) {
        const publishing = await publishNow(deps, ctx, post, ['pending']);
        const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, { approval });
        return emitPost(deps, ctx, { ...publishing, approval: updated.approval }, ['post.publishing']);
      }
      const targetIds = await targetsRepo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['pending'], 'scheduled');
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, {
        status: 'scheduled',
        scheduleAt: when.scheduleAt,
        approval,
      });
      // The same hand-over as a post scheduled without review: jobs due at the schedule, in this transaction.
      await queuePublishJobs(ctx.db, targetIds, when.scheduleAt, when.scheduleAt);
      return emitPost(deps, ctx, updated, ['post.scheduled']);
    },

    /** Rejected (or expired to draft): the post is a draft again, unscheduled, showing why. */
    async returnToDraft(
      ctx: ServiceContext,
      id: string,
      approval: Record<string, unknown>,
    ): Promise<Record<string, unknown>> {
      // A queued post leaves its slot (docs/queues.md "Moving and leaving").
      await leaveQueue(ctx, deps.media, id, deps.clock.now());
      await loadHeld(ctx, id);
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, {
        status: 'draft',
        scheduleAt: null,
        publishNow: false,
        approval,
      });
      return emitPost(deps, ctx, updated, ['post.updated']);
    },

    /** Expired with `on_expire: cancel`: the held post and its targets are cancelled. */
    async cancelHeld(
      ctx: ServiceContext,
      id: string,
      approval: Record<string, unknown>,
    ): Promise<Record<string, unknown>> {
      await leaveQueue(ctx, deps.media, id, deps.clock.now());
      await loadHeld(ctx, id);
      const targetIds = await targetsRepo.setTargetStatus(ctx.db, ctx.workspaceId, id, ['pending'], 'cancelled');
      await removePublishJobs(ctx.db, targetIds);
      const updated = await repo.updatePost(ctx.db, ctx.workspaceId, id, { status: 'cancelled', approval });
      return emitPost(deps, ctx, updated, ['post.cancelled']);
    },
  };
}
