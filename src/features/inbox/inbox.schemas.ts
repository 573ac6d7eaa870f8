// TypeBox schemas of the inbox API (docs/inbox.md): the list query, the item change, draft and respond bodies, and
// the `inbox_item` it answers (rendered in inbox.view.ts).
import { Type, type Static } from 'typebox';
import { EnumList, named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { INBOX_KINDS, INBOX_STATUSES } from './inbox.types.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);
const Id = (description: string) => Type.String({ maxLength: 200, description });
const Label = Type.String({ minLength: 1, maxLength: 50, pattern: '^[\\p{L}\\p{N}_.:-]+$' });

export const RESPONSE_STATUSES = ['pending_approval', 'queued', 'sending', 'sent', 'failed', 'discarded'] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];

export const ListInboxQuery = Type.Object(
  {
    kind: Type.Optional(EnumList(INBOX_KINDS, 'Items of any of these kinds.')),
    status: Type.Optional(EnumList(INBOX_STATUSES, 'Items in any of these statuses: `status=open`.')),
    platform: Type.Optional(StringEnum(PLATFORM_NAMES)),
    connection_id: Type.Optional(Id('Items of this connection.')),
    brand_id: Type.Optional(Id('Items of this brand’s connections.')),
    post_id: Type.Optional(Id('Items on this Herald post.')),
    assignee_id: Type.Optional(Id('Items assigned to this member.')),
    label: Type.Optional(Label),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Text the message contains (case-insensitive).' }),
    ),
    received_from: Type.Optional(Type.String({ format: 'date-time', description: 'Received at or after.' })),
    received_to: Type.Optional(Type.String({ format: 'date-time', description: 'Received before.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
  },
  { additionalProperties: false },
);
export type ListInboxQuery = Static<typeof ListInboxQuery>;

export const InboxIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The inbox item id (`inb_…`).',
    examples: ['inb_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

export const UpdateInboxItemBody = Type.Object(
  {
    status: Type.Optional(StringEnum(INBOX_STATUSES)),
    assignee_id: Type.Optional(Nullable(Id('A member of the workspace, or null to unassign.'))),
    labels: Type.Optional(Type.Array(Label, { maxItems: 20, uniqueItems: true, description: 'Replaces the labels.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateInboxItemBody = Static<typeof UpdateInboxItemBody>;

export const DraftBody = Type.Object(
  {
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: 5000, pattern: '\\S', description: 'Store this text.' }),
    ),
    template: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 5000,
        description: 'Fill this template (`{{author}}`, `{{brand.*}}` …).',
      }),
    ),
    generate: Type.Optional(
      Type.Literal(true, { description: 'Write one with the text-generation provider and the brand context.' }),
    ),
  },
  { additionalProperties: false },
);
export type DraftBody = Static<typeof DraftBody>;

export const RespondBody = Type.Object(
  {
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 5000, pattern: '\\S' })),
    use_draft: Type.Optional(Type.Literal(true, { description: 'Send the item’s stored draft.' })),
    private: Type.Optional(
      Type.Boolean({ description: 'Answer privately (a direct message) where the platform can.' }),
    ),
  },
  { additionalProperties: false },
);
export type RespondBody = Static<typeof RespondBody>;

const ErrorObject = Type.Object({ code: Type.String(), rule: Type.Optional(Type.String()), message: Type.String() });

export const InboxResponse = Type.Object({
  id: Type.String(),
  text: Type.String(),
  private: Type.Boolean(),
  source: StringEnum(['api', 'automation'] as const),
  automation_id: Nullable(Type.String()),
  sent_by: Nullable(Type.String()),
  status: StringEnum(RESPONSE_STATUSES),
  platform_reply_id: Nullable(Type.String()),
  permalink: Nullable(Type.String()),
  error: Nullable(ErrorObject),
  created_at: Timestamp,
  sent_at: NullableTimestamp,
});

const InboxItemFields = {
  id: Type.String(),
  object: Type.Literal('inbox_item'),
  kind: StringEnum(INBOX_KINDS),
  platform: Type.String(),
  connection_id: Type.String(),
  brand_id: Nullable(Type.String()),
  post_id: Nullable(Type.String()),
  platform_post_id: Nullable(Type.String()),
  thread_id: Type.String(),
  parent_id: Nullable(Type.String()),
  platform_item_id: Type.String(),
  author: Type.Object({
    platform_user_id: Type.String(),
    username: Nullable(Type.String()),
    display_name: Nullable(Type.String()),
    avatar_url: Nullable(Type.String()),
  }),
  text: Type.String(),
  permalink: Nullable(Type.String()),
  received_at: Timestamp,
  status: StringEnum(INBOX_STATUSES),
  assignee_id: Nullable(Type.String()),
  labels: Type.Array(Type.String()),
  reply_window_ends_at: NullableTimestamp,
  from_account: Type.Boolean({ description: 'The connected account’s own message.' }),
  automation_paused: Type.Boolean({ description: 'A person answered in this thread: automations leave it alone.' }),
  draft: Nullable(
    Type.Object({
      text: Type.String(),
      source: StringEnum(['text', 'template', 'generated'] as const),
      generated_by: Nullable(Type.Object({}, { additionalProperties: true })),
      updated_at: Timestamp,
    }),
  ),
  responses: Type.Array(InboxResponse),
};

const RESPONSE_EXAMPLE = {
  id: 'inr_01jdq4x1k9m2v7c3r5t8w0yz6c',
  text: 'Thanks! We sent you the details by DM.',
  private: false,
  source: 'api',
  automation_id: null,
  sent_by: 'usr_01jdq4x1k9m2v7c3r5t8w0yz6d',
  status: 'sent',
  platform_reply_id: '1870000000000000001',
  permalink: null,
  error: null,
  created_at: '2026-03-02T09:15:00.000Z',
  sent_at: '2026-03-02T09:15:01.000Z',
};
const ITEM_EXAMPLE = {
  id: 'inb_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'inbox_item',
  kind: 'comment',
  platform: 'x',
  connection_id: 'conn_01jdq4x1k9m2v7c3r5t8w0yz6e',
  brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6a',
  post_id: null,
  platform_post_id: '1869999999999999999',
  thread_id: '1869999999999999999',
  parent_id: '1869999999999999999',
  platform_item_id: '1870000000000000000',
  author: { platform_user_id: '42', username: 'ana_lima', display_name: 'Ana Lima', avatar_url: null },
  text: 'How much is it?',
  permalink: null,
  received_at: '2026-03-02T09:00:00.000Z',
  status: 'replied',
  assignee_id: null,
  labels: ['pricing'],
  reply_window_ends_at: null,
  from_account: false,
  automation_paused: true,
  draft: null,
  responses: [RESPONSE_EXAMPLE],
};

export const InboxItem = named('InboxItem', Type.Object(InboxItemFields), ITEM_EXAMPLE);
export const InboxItemWithThread = named(
  'InboxItemWithThread',
  Type.Object({
    ...InboxItemFields,
    thread: Type.Array(Type.Object(InboxItemFields), {
      description: 'Every item of the thread (this one included), oldest first, at most 200.',
    }),
  }),
  { ...ITEM_EXAMPLE, thread: [ITEM_EXAMPLE] },
);

export const RespondResult = named(
  'InboxRespondResult',
  Type.Object({
    status: StringEnum(['sent', 'failed'] as const),
    platform_reply_id: Nullable(Type.String()),
    error: Nullable(ErrorObject),
    response: InboxResponse,
  }),
  { status: 'sent', platform_reply_id: '1870000000000000001', error: null, response: RESPONSE_EXAMPLE },
);

named('UpdateInboxItemRequest', UpdateInboxItemBody, { status: 'resolved', labels: ['billing'] });
named('InboxDraftRequest', DraftBody, { generate: true });
named('InboxRespondRequest', RespondBody, { text: 'Thanks, we have sent you a DM.' });
