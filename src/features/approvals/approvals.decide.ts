// Deciding approval items (docs/approvals.md "Deciding"): approve, reject, edit and approve, comment, one item at a
// time or a batch's reviewed items, and expiry by the sweeper. Each decision checks the item's version, the
// decider's role and the self-approval rule, writes the item, its history and its outbox event, and hands the
// subject to its feature (posts: out at its time or now, back to draft, cancelled) in the caller's transaction.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, isAppError, notFound, validationFailed } from '../../app/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { appendEvent } from '../events/outbox.ts';
import { discardReply, releaseApprovedReply } from '../inbox/replies.ts';
import { findPost } from '../posts/posts.repo.ts';
import { checkSchedule } from '../posts/posts.rules.ts';
import type { UpdatePostBody } from '../posts/posts.schemas.ts';
import { parseTime } from '../posts/posts.writing.ts';
import { callerRole, mayDecide } from './approvals.gate.ts';
import { effectivePolicy } from './approvals.policy.ts';
import * as repo from './approvals.repo.ts';
import type { ItemRow } from './approvals.repo.ts';
import type { BatchActionBody, ItemActionBody } from './approvals.schemas.ts';
import { postApproval, renderItem } from './approvals.view.ts';

type View = Record<string, unknown>;

/** What the approvals feature asks of the posts service for a held post (src/features/posts/posts.approval.ts). */
export interface HeldPosts {
  releaseApproved(
    ctx: ServiceContext,
    id: string,
    when: { publishNow: true } | { scheduleAt: Date },
    approval: View,
  ): Promise<View>;
  returnToDraft(ctx: ServiceContext, id: string, approval: View): Promise<View>;
  cancelHeld(ctx: ServiceContext, id: string, approval: View): Promise<View>;
  update(ctx: ServiceContext, id: string, patch: UpdatePostBody, options: { approvalEdit?: boolean }): Promise<View>;
}

export interface DecisionDeps {
  posts: HeldPosts;
  clock: Clock;
}

const REFUSALS = {
  role_not_approver: 'Your role is not among the approver roles of this brand’s approval policy.',
  self_approval: 'You asked for this approval yourself, and the policy does not allow self-approval.',
} as const;

/** The item, if the caller may see it (a key limited to brands sees only theirs); 404 otherwise. */
export async function visibleItem(ctx: ServiceContext, id: string, lock = false): Promise<repo.ItemRow> {
  const item = await repo.findItem(ctx.db, ctx.workspaceId, id, lock);
  if (!item || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(item.brand_id))) throw notFound('approval item');
  return item;
}

/**
 * The item locked for a decision, its subject locked first: every writer takes the post's row before its item's
 * (an edit of the post locks the post, then supersedes the item), so a decision racing an edit or the sweeper
 * waits for it instead of deadlocking, and then reads the item as the other left it.
 */
async function lockForDecision(ctx: ServiceContext, id: string): Promise<ItemRow> {
  const seen = await visibleItem(ctx, id);
  if (seen.kind === 'post') await findPost(ctx.db, ctx.workspaceId, seen.subject_id, true);
  return visibleItem(ctx, id, true);
}

function ruleError(rule: string, path: string, message: string): AppError {
  return validationFailed([{ platform: null, rule, path, message }]);
}

/** Past the proposed time: approving needs a new schedule_at or publish_now, as any past schedule does. */
function schedulePassed(item: ItemRow, at: Date): AppError {
  return ruleError(
    'approval_schedule_passed',
    '/schedule_at',
    `Item ${item.id} asked to publish at ${at.toISOString()}, which has passed: approve with schedule_at (a future time) or publish_now.`,
  );
}

export function createApprovalDecisions(deps: DecisionDeps) {
  /** When an approved post goes out: the reviewer's choice, else the time asked for (which must still be ahead). */
  async function releaseTime(
    ctx: ServiceContext,
    item: ItemRow,
    body: Pick<ItemActionBody, 'schedule_at' | 'publish_now'>,
  ): Promise<{ publishNow: true } | { scheduleAt: Date }> {
    if (body.publish_now === true && body.schedule_at !== undefined)
      throw new AppError('PUBLIC_API_BODY_INVALID', 'Send either publish_now or schedule_at, not both.', {
        details: [{ path: '/schedule_at', message: 'cannot be combined with publish_now' }],
      });
    const now = deps.clock.now();
    if (body.publish_now === true) return { publishNow: true };
    if (body.schedule_at !== undefined) {
      const at = parseTime(body.schedule_at, '/schedule_at');
      const issues = checkSchedule(at, now);
      if (issues.length > 0) throw validationFailed(issues);
      return { scheduleAt: at };
    }
    // The post's own schedule: the one asked for, or the one an edit_and_approve gave it; none: publish now.
    const at = (await findPost(ctx.db, ctx.workspaceId, item.subject_id))?.schedule_at ?? null;
    if (!at) return { publishNow: true };
    if (checkSchedule(at, now).length > 0) throw schedulePassed(item, at);
    return { scheduleAt: at };
  }

  async function settle(
    ctx: ServiceContext,
    item: ItemRow,
    status: 'approved' | 'rejected' | 'expired',
    actorId: string | null,
    reason: string | null,
  ): Promise<ItemRow> {
    const settled = await repo.settleItem(ctx.db, ctx.workspaceId, item.id, { status, decidedBy: actorId, reason });
    const type = status === 'approved' ? 'approve' : status === 'rejected' ? 'reject' : 'expire';
    await repo.appendHistory(ctx.db, ctx.workspaceId, item.id, { type, actorId, reason });
    await appendEvent(ctx.db, ctx.workspaceId, `approval.${status}`, renderItem(settled));
    return settled;
  }

  async function decideItem(ctx: ServiceContext, id: string, body: ItemActionBody): Promise<View> {
    const item = await lockForDecision(ctx, id);
    if (body.version !== item.version)
      throw new AppError(
        'PUBLIC_API_VERSION_CONFLICT',
        `Item ${id} is at version ${item.version}, not ${body.version}: it changed since you read it. Read it again and decide on what it is now.`,
        { details: [{ path: '/version', rule: 'stale_version', message: `current version is ${item.version}` }] },
      );
    if (body.action === 'comment') {
      if (body.reason === undefined)
        throw ruleError('comment_required', '/reason', 'A comment needs its text in reason.');
      await repo.appendHistory(ctx.db, ctx.workspaceId, id, {
        type: 'comment',
        actorId: ctx.userId,
        reason: body.reason,
      });
      return renderItem(item, await repo.listHistory(ctx.db, ctx.workspaceId, id));
    }
    if (item.status !== 'pending')
      throw new AppError('PUBLIC_API_STATE_CONFLICT', `Item ${id} is ${item.status}; only pending items are decided.`);
    if (item.kind === 'inbox_reply' && body.action === 'edit_and_approve')
      throw new AppError(
        'PUBLIC_API_STATE_CONFLICT',
        'An inbox reply is approved or rejected as it is: reject it and answer with POST /inbox/{id}/respond instead.',
      );
    const policy = effectivePolicy(await repo.findPolicy(ctx.db, ctx.workspaceId), item.brand_id);
    const refusal = mayDecide({
      policy,
      role: await callerRole(ctx),
      deciderId: ctx.userId,
      requestedBy: item.requested_by,
    });
    if (refusal)
      throw new AppError('PUBLIC_API_APPROVAL_FORBIDDEN', REFUSALS[refusal], {
        details: [{ path: '/action', rule: refusal, message: REFUSALS[refusal] }],
      });

    if (body.action === 'reject') {
      if (policy.require_reject_reason && body.reason === undefined)
        throw ruleError('reason_required', '/reason', 'This approval policy needs a reason to reject.');
      const settled = await settle(ctx, item, 'rejected', ctx.userId, body.reason ?? null);
      // An inbox reply rejected is discarded, never sent (docs/inbox.md "Approval mode").
      if (item.kind === 'inbox_reply') {
        await discardReply(ctx.db, ctx.workspaceId, item.subject_id);
        return renderItem(settled);
      }
      await deps.posts.returnToDraft(ctx, item.subject_id, postApproval(settled));
      return renderItem(settled);
    }
    if (body.action === 'edit_and_approve') {
      if (body.patch === undefined)
        throw new AppError('PUBLIC_API_BODY_INVALID', 'edit_and_approve needs patch: the edit to the post.', {
          details: [{ path: '/patch', message: 'is required for edit_and_approve' }],
        });
      if (body.patch.schedule_at === null)
        throw new AppError(
          'PUBLIC_API_BODY_INVALID',
          'edit_and_approve cannot unschedule the post: reject it to return it to draft, or approve with publish_now.',
          { details: [{ path: '/patch/schedule_at', message: 'cannot be null in edit_and_approve' }] },
        );
      await deps.posts.update(ctx, item.subject_id, body.patch, { approvalEdit: true });
      await repo.appendHistory(ctx.db, ctx.workspaceId, id, {
        type: 'edit',
        actorId: ctx.userId,
        data: { fields: Object.keys(body.patch).sort() },
      });
    }
    if (item.kind === 'inbox_reply') {
      // Approved: the reply is queued to be sent by the worker, at most once (src/features/inbox/replies.ts).
      const settled = await settle(ctx, item, 'approved', ctx.userId, body.reason ?? null);
      await releaseApprovedReply(ctx.db, ctx.workspaceId, item.subject_id);
      return renderItem(settled);
    }
    const when = await releaseTime(ctx, item, body);
    const settled = await settle(ctx, item, 'approved', ctx.userId, body.reason ?? null);
    await deps.posts.releaseApproved(ctx, item.subject_id, when, postApproval(settled));
    return renderItem(settled);
  }

  return {
    decideItem,

    /**
     * A batch's reviewed items, one result each. Only `expected_item_ids` are touched, at the version they are at
     * now: an item superseded since the reviewer loaded the batch is no longer pending (its replacement has another
     * id) and is skipped; items added since are not in the list. Each item is decided in a savepoint, so one item's
     * refusal leaves the others' decisions standing.
     */
    async decideBatch(ctx: ServiceContext, batchId: string, body: BatchActionBody) {
      const batch = await repo.findBatch(ctx.db, ctx.workspaceId, batchId);
      if (!batch) throw new AppError('PUBLIC_API_NOT_FOUND', 'No approval batch with that id in this workspace.');
      const items = new Map(
        (await repo.itemsByIds(ctx.db, ctx.workspaceId, body.expected_item_ids)).map((i) => [i.id, i]),
      );
      const action = body.action === 'approve_all' ? 'approve' : 'reject';
      const results = [];
      for (const itemId of body.expected_item_ids) {
        const item = items.get(itemId);
        if (!item || item.batch_id !== batchId) {
          results.push({
            item_id: itemId,
            outcome: 'skipped' as const,
            error: { code: 'PUBLIC_API_NOT_FOUND', message: `No item ${itemId} in batch ${batchId}.` },
          });
          continue;
        }
        await ctx.db.query('SAVEPOINT approval_batch_item');
        try {
          await decideItem(ctx, itemId, { action, version: item.version, reason: body.reason });
          await ctx.db.query('RELEASE SAVEPOINT approval_batch_item');
          results.push({
            item_id: itemId,
            outcome: action === 'approve' ? ('approved' as const) : ('rejected' as const),
            error: null,
          });
        } catch (error) {
          await ctx.db.query('ROLLBACK TO SAVEPOINT approval_batch_item');
          if (!isAppError(error)) throw error;
          results.push({
            item_id: itemId,
            outcome: 'skipped' as const,
            error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
          });
        }
      }
      return { batch_id: batchId, action: body.action, results };
    },

    /**
     * The sweeper's step for one item due to expire: locked as a decision locks it, then expired and its post
     * handled, unless a decision or an edit settled it meanwhile (false).
     */
    async expireItem(ctx: ServiceContext, id: string): Promise<boolean> {
      const item = await lockForDecision(ctx, id);
      if (item.status !== 'pending' || item.expires_at === null || item.expires_at > deps.clock.now()) return false;
      const reason = `No decision before ${item.expires_at.toISOString()}.`;
      const settled = await settle(ctx, item, 'expired', null, reason);
      if (item.kind === 'inbox_reply') await discardReply(ctx.db, ctx.workspaceId, item.subject_id);
      if (item.kind !== 'post') return true;
      const approval = postApproval(settled);
      if (item.on_expire === 'cancel') await deps.posts.cancelHeld(ctx, item.subject_id, approval);
      else await deps.posts.returnToDraft(ctx, item.subject_id, approval);
      return true;
    },
  };
}
