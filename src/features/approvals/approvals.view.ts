// What the approvals API answers, built from rows: an item (with its history when read alone), a batch with its
// counts, the policy. Outbox events carry the same item view.
import type { BatchRow, HistoryRow, ItemRow, ItemStatus } from './approvals.repo.ts';
import { ITEM_STATUSES } from './approvals.repo.ts';
import type { Policy } from './approvals.policy.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function renderItem(row: ItemRow, history?: HistoryRow[]): Record<string, unknown> {
  return {
    id: row.id,
    object: 'approval_item',
    batch_id: row.batch_id,
    kind: row.kind,
    brand_id: row.brand_id,
    subject: { type: row.subject_type, id: row.subject_id },
    proposed_action: { type: row.action_type, at: iso(row.action_at) },
    source: { type: row.source_type, id: row.source_id },
    platforms: row.platforms,
    preview: row.preview,
    version: row.version,
    status: row.status,
    requested_by: row.requested_by,
    requested_at: row.requested_at.toISOString(),
    decided_by: row.decided_by,
    decided_at: iso(row.decided_at),
    reason: row.reason,
    expires_at: iso(row.expires_at),
    ...(history
      ? {
          history: history.map((h) => ({
            type: h.type,
            actor_id: h.actor_id,
            reason: h.reason,
            data: h.data,
            created_at: h.created_at.toISOString(),
          })),
        }
      : {}),
  };
}

/** What a post shows of the item that gates it (the `approval` field of a post). */
export function postApproval(row: ItemRow): Record<string, unknown> {
  return {
    status: row.status,
    item_id: row.id,
    reason: row.reason,
    decided_by: row.decided_by,
    decided_at: iso(row.decided_at),
  };
}

export function renderBatch(row: BatchRow, counts: Partial<Record<ItemStatus, number>>): Record<string, unknown> {
  return {
    id: row.id,
    object: 'approval_batch',
    source: { type: row.source_type, id: row.source_id },
    status: row.status,
    item_counts: Object.fromEntries(ITEM_STATUSES.map((s) => [s, counts[s] ?? 0])),
    created_at: row.created_at.toISOString(),
    completed_at: iso(row.completed_at),
  };
}

export function renderPolicy(policy: Policy): Record<string, unknown> {
  return {
    object: 'approval_policy',
    mode: policy.mode,
    sources: policy.sources,
    approver_roles: policy.approver_roles,
    allow_self_approval: policy.allow_self_approval,
    expire_after: policy.expire_after,
    on_expire: policy.on_expire,
    require_reject_reason: policy.require_reject_reason,
    brand_overrides: policy.brand_overrides,
    version: policy.version,
    updated_at: iso(policy.updated_at),
  };
}
