// TypeBox schemas of what the approvals API answers (an item, a batch, the policy, a batch action's results), with
// their OpenAPI names and examples. The shapes are built in approvals.view.ts.
import { Type } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { APPROVAL_MODES, APPROVAL_SOURCES, APPROVER_ROLES, EXPIRY_ACTIONS } from './approvals.policy.ts';
import { ACTION_TYPES, HISTORY_TYPES, ITEM_KINDS, ITEM_STATUSES } from './approvals.repo.ts';
import { BATCH_ACTIONS, BATCH_OUTCOMES, BATCH_STATUSES, BrandOverrideBody } from './approvals.schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

const ITEM_EXAMPLE = {
  id: 'apr_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'approval_item',
  batch_id: null,
  kind: 'post',
  brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6a',
  subject: { type: 'post', id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6c' },
  proposed_action: { type: 'schedule', at: '2026-12-01T09:00:00.000Z' },
  source: { type: 'api', id: null },
  platforms: ['linkedin'],
  preview: {
    content: 'We ship on Monday.',
    media_ids: [],
    schedule_at: '2026-12-01T09:00:00.000Z',
    platforms: [{ platform: 'linkedin', text: 'We ship on Monday.' }],
  },
  version: 1,
  status: 'pending',
  requested_by: 'usr_01jdq4x1k9m2v7c3r5t8w0yz6d',
  requested_at: '2026-11-26T10:00:00.000Z',
  decided_by: null,
  decided_at: null,
  reason: null,
  expires_at: '2026-11-29T10:00:00.000Z',
};

const HistoryEntry = Type.Object({
  type: StringEnum(HISTORY_TYPES),
  actor_id: Nullable(Type.String({ description: 'Who did it; null: Herald itself (expiry).' })),
  reason: Nullable(Type.String()),
  data: Type.Object({}, { additionalProperties: true }),
  created_at: Timestamp,
});

export const ApprovalItem = named(
  'ApprovalItem',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('approval_item'),
    batch_id: Nullable(Type.String()),
    kind: StringEnum(ITEM_KINDS),
    brand_id: Type.String(),
    subject: Type.Object({ type: Type.String({ description: '`post`, or `inbox_reply`.' }), id: Type.String() }),
    proposed_action: Type.Object({
      type: StringEnum(ACTION_TYPES),
      at: Nullable(Type.String({ format: 'date-time', description: 'The time asked for (`schedule`).' })),
    }),
    source: Type.Object({ type: StringEnum(APPROVAL_SOURCES), id: Nullable(Type.String()) }),
    platforms: Type.Array(Type.String()),
    preview: Type.Object(
      {},
      { additionalProperties: true, description: 'What will go out, per platform, as it was when requested.' },
    ),
    version: Type.Integer({ description: 'Send it with an action; it moves on with every change of status.' }),
    status: StringEnum(ITEM_STATUSES),
    requested_by: Nullable(Type.String()),
    requested_at: Timestamp,
    decided_by: Nullable(Type.String()),
    decided_at: NullableTimestamp,
    reason: Nullable(Type.String()),
    expires_at: NullableTimestamp,
    history: Type.Optional(
      Type.Array(HistoryEntry, { description: 'Every step, oldest first (only when the item is read alone).' }),
    ),
  }),
  ITEM_EXAMPLE,
);

const counts = Object.fromEntries(ITEM_STATUSES.map((s) => [s, Type.Integer({ minimum: 0 })]));

export const ApprovalBatch = named(
  'ApprovalBatch',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('approval_batch'),
    source: Type.Object({ type: StringEnum(APPROVAL_SOURCES), id: Nullable(Type.String()) }),
    status: StringEnum(BATCH_STATUSES, { description: '`completed` once the run that filled it ended.' }),
    item_counts: Type.Object(counts),
    created_at: Timestamp,
    completed_at: NullableTimestamp,
  }),
  {
    id: 'aprb_01jdq4x1k9m2v7c3r5t8w0yz6e',
    object: 'approval_batch',
    source: { type: 'automation', id: 'auto_01jdq4x1k9m2v7c3r5t8w0yz6f' },
    status: 'completed',
    item_counts: { pending: 2, approved: 1, rejected: 0, expired: 0, cancelled: 0, superseded: 0 },
    created_at: '2026-11-26T10:00:00.000Z',
    completed_at: '2026-11-26T10:00:05.000Z',
  },
);

export const ApprovalPolicy = named(
  'ApprovalPolicy',
  Type.Object({
    object: Type.Literal('approval_policy'),
    mode: StringEnum(APPROVAL_MODES),
    sources: Type.Array(StringEnum(APPROVAL_SOURCES)),
    approver_roles: Type.Array(StringEnum(APPROVER_ROLES)),
    allow_self_approval: Type.Boolean(),
    expire_after: Nullable(Type.Integer({ description: 'Seconds; null: never.' })),
    on_expire: StringEnum(EXPIRY_ACTIONS),
    require_reject_reason: Type.Boolean(),
    brand_overrides: Type.Record(Type.String(), BrandOverrideBody),
    version: Type.Integer({ description: '0 until the policy is first changed.' }),
    updated_at: NullableTimestamp,
  }),
  {
    object: 'approval_policy',
    mode: 'members',
    sources: ['api', 'mcp', 'dashboard', 'cli', 'automation', 'repurpose', 'queue_import', 'inbox_automation'],
    approver_roles: ['owner', 'admin'],
    allow_self_approval: false,
    expire_after: 259200,
    on_expire: 'to_draft',
    require_reject_reason: true,
    brand_overrides: { brand_01jdq4x1k9m2v7c3r5t8w0yz6a: { mode: 'everyone' } },
    version: 3,
    updated_at: '2026-11-26T10:00:00.000Z',
  },
);

export const BatchActionResult = named(
  'ApprovalBatchResult',
  Type.Object({
    batch_id: Type.String(),
    action: StringEnum(BATCH_ACTIONS),
    results: Type.Array(
      Type.Object({
        item_id: Type.String(),
        outcome: StringEnum(BATCH_OUTCOMES),
        error: Nullable(
          Type.Object({
            code: Type.String(),
            message: Type.String(),
            details: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
          }),
        ),
      }),
    ),
  }),
  {
    batch_id: 'aprb_01jdq4x1k9m2v7c3r5t8w0yz6e',
    action: 'approve_all',
    results: [
      { item_id: 'apr_01jdq4x1k9m2v7c3r5t8w0yz6b', outcome: 'approved', error: null },
      {
        item_id: 'apr_01jdq4x1k9m2v7c3r5t8w0yz6g',
        outcome: 'skipped',
        error: { code: 'PUBLIC_API_STATE_CONFLICT', message: 'Item apr_… is superseded, not pending.' },
      },
    ],
  },
);
