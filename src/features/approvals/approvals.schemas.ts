// TypeBox schemas of what the approvals API accepts: the policy patch, the list queries, the item and batch actions.
// What it answers is in approvals.view.schemas.ts.
import { Type, type Static } from 'typebox';
import { EnumList, named, StringEnum } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { UpdatePostBody } from '../posts/posts.schemas.ts';
import { APPROVAL_MODES, APPROVAL_SOURCES, APPROVER_ROLES, EXPIRY_ACTIONS } from './approvals.policy.ts';
import { ITEM_KINDS, ITEM_STATUSES } from './approvals.repo.ts';

export const ITEM_ACTIONS = ['approve', 'reject', 'edit_and_approve', 'comment'] as const;
export const BATCH_ACTIONS = ['approve_all', 'reject_all'] as const;
export const BATCH_STATUSES = ['open', 'completed'] as const;
export const BATCH_OUTCOMES = ['approved', 'rejected', 'skipped'] as const;

/** The longest expiry: 90 days, in seconds. */
const EXPIRE_MAX_SECONDS = 90 * 24 * 3600;

const policyFields = {
  mode: Type.Optional(
    StringEnum(APPROVAL_MODES, {
      description:
        '`off`: nothing waits. `members`: what members submit waits; owners and admins go straight through. `everyone`: every role waits.',
    }),
  ),
  sources: Type.Optional(
    Type.Array(StringEnum(APPROVAL_SOURCES), {
      uniqueItems: true,
      maxItems: APPROVAL_SOURCES.length,
      description: 'The sources the mode applies to (a post’s `created_via`; `inbox_automation` for replies).',
    }),
  ),
  approver_roles: Type.Optional(
    Type.Array(StringEnum(APPROVER_ROLES), { minItems: 1, uniqueItems: true, maxItems: APPROVER_ROLES.length }),
  ),
  allow_self_approval: Type.Optional(Type.Boolean()),
  expire_after: Type.Optional(
    Type.Union([Type.Integer({ minimum: 60, maximum: EXPIRE_MAX_SECONDS }), Type.Null()], {
      description: 'Seconds a pending item waits before it expires (60 s to 90 days); null: never.',
    }),
  ),
  on_expire: Type.Optional(StringEnum(EXPIRY_ACTIONS, { description: 'What expiry does to the post.' })),
  require_reject_reason: Type.Optional(Type.Boolean()),
};

export const BrandOverrideBody = Type.Object(policyFields, { additionalProperties: false });

export const UpdatePolicyBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 0,
      description: 'The `version` you read (0 before any change): 409 `PUBLIC_API_VERSION_CONFLICT` when stale.',
    }),
    ...policyFields,
    brand_overrides: Type.Optional(
      Type.Record(Type.String({ maxLength: 200 }), Type.Union([BrandOverrideBody, Type.Null()]), {
        description:
          'Per brand id, the fields that differ from the workspace’s; merged into the stored overrides, `null` removes a brand’s.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdatePolicyBody = Static<typeof UpdatePolicyBody>;

const Cursor = Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' }));
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }));

export const ListItemsQuery = Type.Object(
  {
    status: Type.Optional(EnumList(ITEM_STATUSES, 'Items in any of these statuses: `status=pending`.')),
    kind: Type.Optional(StringEnum(ITEM_KINDS)),
    source: Type.Optional(EnumList(APPROVAL_SOURCES, 'Items from any of these sources.')),
    brand_id: Type.Optional(Type.String({ maxLength: 200 })),
    platform: Type.Optional(StringEnum(PLATFORM_NAMES)),
    created_from: Type.Optional(Type.String({ format: 'date-time', description: 'Requested at or after.' })),
    created_to: Type.Optional(Type.String({ format: 'date-time', description: 'Requested before.' })),
    batch_id: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Limit,
    cursor: Cursor,
  },
  { additionalProperties: false },
);
export type ListItemsQuery = Static<typeof ListItemsQuery>;

export const ListBatchesQuery = Type.Object(
  { status: Type.Optional(StringEnum(BATCH_STATUSES)), limit: Limit, cursor: Cursor },
  { additionalProperties: false },
);
export type ListBatchesQuery = Static<typeof ListBatchesQuery>;

export const ApprovalIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The approval item id (`apr_…`).',
    examples: ['apr_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});
export const BatchIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The approval batch id (`aprb_…`).',
    examples: ['aprb_01jdq4x1k9m2v7c3r5t8w0yz6e'],
  }),
});

export const ItemActionBody = Type.Object(
  {
    action: StringEnum(ITEM_ACTIONS),
    version: Type.Integer({ minimum: 1, description: 'The item’s `version` you read: 409 when it moved on.' }),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'Why (a rejection; required unless the policy says otherwise), or the text of a comment.',
      }),
    ),
    patch: Type.Optional(UpdatePostBody),
    schedule_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Approve for this time instead (needed when the proposed time has passed).',
      }),
    ),
    publish_now: Type.Optional(Type.Literal(true, { description: 'Approve and publish at once.' })),
  },
  { additionalProperties: false },
);
export type ItemActionBody = Static<typeof ItemActionBody>;

export const BatchActionBody = Type.Object(
  {
    action: StringEnum(BATCH_ACTIONS),
    expected_item_ids: Type.Array(Type.String({ maxLength: 200 }), {
      minItems: 1,
      maxItems: 500,
      uniqueItems: true,
      description:
        'The items you reviewed. Only these are decided; items added to the batch, or changed (superseded), since are left alone.',
    }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type BatchActionBody = Static<typeof BatchActionBody>;

named('UpdateApprovalPolicyRequest', UpdatePolicyBody, {
  version: 2,
  mode: 'members',
  expire_after: 259200,
  brand_overrides: { brand_01jdq4x1k9m2v7c3r5t8w0yz6a: { mode: 'everyone' } },
});
named('ApprovalItemAction', ItemActionBody, { action: 'reject', version: 1, reason: 'The launch date is wrong.' });
named('ApprovalBatchAction', BatchActionBody, {
  action: 'approve_all',
  expected_item_ids: ['apr_01jdq4x1k9m2v7c3r5t8w0yz6b', 'apr_01jdq4x1k9m2v7c3r5t8w0yz6g'],
});
