// What other features call to put something in the review queue (docs/approvals.md "Submitting"): submit an item
// (superseding the subject's open request), withdraw one, and open or close the batch a run's items belong to.
// Each call writes in the caller's transaction, with its history row and outbox event.
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import { appendEvent } from '../events/outbox.ts';
import type { ApprovalSource, PolicyFields } from './approvals.policy.ts';
import * as repo from './approvals.repo.ts';
import type { ActionType, BatchRow, ItemKind, ItemRow } from './approvals.repo.ts';
import { renderItem } from './approvals.view.ts';

export interface Submission {
  kind: ItemKind;
  subject: { type: string; id: string };
  brandId: string;
  platforms: string[];
  proposedAction: { type: ActionType; at: Date | null };
  source: { type: ApprovalSource; id: string | null };
  /** A snapshot of what will go out, per platform. */
  preview: Record<string, unknown>;
  batchId?: string | null;
  /** The policy the gate used (expiry and what expiry does are fixed on the item when it is asked for). */
  policy: PolicyFields;
  now: Date;
}

/** Opens a request; the subject's open one, if any, is superseded by it. */
export async function submitForApproval(ctx: ServiceContext, s: Submission): Promise<ItemRow> {
  if (s.batchId) {
    const batch = await repo.findBatch(ctx.db, ctx.workspaceId, s.batchId);
    if (!batch || batch.status !== 'open')
      throw new AppError('PUBLIC_API_STATE_CONFLICT', `Batch ${s.batchId} is not open in this workspace.`);
  }
  const id = newId('apr');
  await supersedePending(ctx, s.subject, id);
  const item = await repo.insertItem(ctx.db, {
    id,
    workspace_id: ctx.workspaceId,
    brand_id: s.brandId,
    batch_id: s.batchId ?? null,
    kind: s.kind,
    subject_type: s.subject.type,
    subject_id: s.subject.id,
    action_type: s.proposedAction.type,
    action_at: s.proposedAction.at,
    source_type: s.source.type,
    source_id: s.source.id,
    platforms: s.platforms,
    preview: s.preview,
    on_expire: s.policy.on_expire,
    requested_by: ctx.userId,
    expires_at: s.policy.expire_after === null ? null : new Date(s.now.getTime() + s.policy.expire_after * 1000),
  });
  await repo.appendHistory(ctx.db, ctx.workspaceId, id, {
    type: 'submit',
    actorId: ctx.userId,
    data: { source: s.source, proposed_action: renderItem(item).proposed_action },
  });
  await appendEvent(ctx.db, ctx.workspaceId, 'approval.requested', renderItem(item));
  return item;
}

/** Settles the subject's open request, if any, as `superseded` or `cancelled`, with its history row. */
async function withdrawPending(
  ctx: ServiceContext,
  subject: { type: string; id: string },
  status: 'superseded' | 'cancelled',
  data: Record<string, unknown> = {},
): Promise<ItemRow | undefined> {
  const open = await repo.findPendingItem(ctx.db, ctx.workspaceId, subject.type, subject.id);
  if (!open) return undefined;
  const settled = await repo.settleItem(ctx.db, ctx.workspaceId, open.id, {
    status,
    decidedBy: ctx.userId,
    reason: null,
  });
  const type = status === 'superseded' ? 'supersede' : 'cancel';
  await repo.appendHistory(ctx.db, ctx.workspaceId, open.id, { type, actorId: ctx.userId, data });
  return settled;
}

/** The subject changed while its request was open: that request is superseded (by `byItemId` when one follows). */
export function supersedePending(
  ctx: ServiceContext,
  subject: { type: string; id: string },
  byItemId: string | null = null,
): Promise<ItemRow | undefined> {
  return withdrawPending(ctx, subject, 'superseded', byItemId ? { superseded_by: byItemId } : {});
}

/** The subject was cancelled or deleted while its request was open: the request is cancelled. */
export function cancelPending(
  ctx: ServiceContext,
  subject: { type: string; id: string },
): Promise<ItemRow | undefined> {
  return withdrawPending(ctx, subject, 'cancelled');
}

/** A run (automation, repurpose job, import) starts: its items are submitted with this batch's id. */
export function openBatch(ctx: ServiceContext, source: { type: ApprovalSource; id: string | null }): Promise<BatchRow> {
  return repo.insertBatch(ctx.db, {
    id: newId('aprb'),
    workspaceId: ctx.workspaceId,
    sourceType: source.type,
    sourceId: source.id,
  });
}

/** The run is over: no more items join the batch (its open items stay open). */
export async function closeBatch(ctx: ServiceContext, batchId: string): Promise<BatchRow> {
  const batch = await repo.completeBatch(ctx.db, ctx.workspaceId, batchId);
  if (!batch) throw new AppError('PUBLIC_API_NOT_FOUND', 'No approval batch with that id in this workspace.');
  return batch;
}
