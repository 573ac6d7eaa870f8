// TypeBox schemas of the queues API (docs/queues.md): what it accepts (a queue, its patch, the slot preview's window)
// and what it answers (the queue, its slots). Rules the schema cannot say (a known zone, the brand's connections)
// are the service's (422 naming the rule).
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';

export const GAP_POLICIES = ['close', 'leave'] as const;
export type GapPolicy = (typeof GAP_POLICIES)[number];
export const QUEUE_SLOT_STATUSES = ['free', 'taken'] as const;

/** Slots per queue: one every hour of the week is 168; room for a few more zones. */
export const MAX_SLOTS = 336;
export const MAX_PAUSES = 366;
/** The widest window the preview reads, and the most slots it lists at once. */
export const MAX_PREVIEW_DAYS = 366;
export const MAX_PREVIEW_SLOTS = 1000;

export const WeeklySlot = named(
  'QueueWeeklySlot',
  Type.Object(
    {
      day_of_week: Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday … 6 = Saturday.' }),
      time: Type.String({
        pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
        description: 'Wall-clock time `HH:mm` (24 h) in `timezone`.',
      }),
      timezone: Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'IANA zone the time is read in, across daylight-saving changes (a time the clocks skip is read after the jump; one they repeat, at its first occurrence).',
      }),
    },
    { additionalProperties: false },
  ),
  { day_of_week: 1, time: '09:00', timezone: 'Europe/Paris' },
);

const Slots = Type.Array(WeeklySlot, { maxItems: MAX_SLOTS, description: 'The weekly time slots.' });
const Pauses = Type.Array(Type.String({ format: 'date' }), {
  maxItems: MAX_PAUSES,
  uniqueItems: true,
  description: 'Dates (`YYYY-MM-DD`) on which no slot is offered; a slot’s date is its local date in its zone.',
});
const ConnectionIds = Type.Union(
  [
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50, uniqueItems: true }),
    Type.Null(),
  ],
  { description: 'Connections of the brand a post queued here may target; null: every connection of the brand.' },
);
const MinSpacing = Type.Integer({
  minimum: 0,
  maximum: 10_080,
  description:
    'Minutes that must separate two scheduled posts on one connection: a slot closer than that to another post on one of the post’s connections is skipped for it. 0: no spacing.',
});
const Gap = StringEnum(GAP_POLICIES, {
  description:
    'When a queued post is cancelled, deleted, published now or given its own time: `close` moves the later unpinned posts up, `leave` leaves its slot free.',
});
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateQueueBody = named(
  'CreateQueueRequest',
  Type.Object(
    {
      brand_id: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description: 'Else the `x-herald-brand-id` header’s brand, else the default.',
        }),
      ),
      name: Name,
      connection_ids: Type.Optional(ConnectionIds),
      slots: Type.Optional(Slots),
      queue_slots_from: Type.Optional(
        Type.Literal('best_times', {
          description:
            'Instead of `slots`: the slots `POST /v1/queues/{id}/suggest-slots` would propose (7, from the engagement of the brand’s or `connection_ids`’ posts, else marked defaults), in `timezone` (docs/queues.md "Best times").',
        }),
      ),
      timezone: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'With `queue_slots_from`: the IANA zone of the slots.',
        }),
      ),
      pauses: Type.Optional(Pauses),
      min_spacing_minutes: Type.Optional(MinSpacing),
      gap_policy: Type.Optional(Gap),
    },
    { additionalProperties: false },
  ),
  {
    name: 'Weekday mornings',
    slots: [
      { day_of_week: 1, time: '09:00', timezone: 'Europe/Paris' },
      { day_of_week: 3, time: '09:00', timezone: 'Europe/Paris' },
    ],
    pauses: ['2026-12-25'],
    min_spacing_minutes: 60,
    gap_policy: 'close',
  },
);
export type CreateQueueBody = Static<typeof CreateQueueBody>;

export const UpdateQueueBody = named(
  'UpdateQueueRequest',
  Type.Object(
    {
      name: Type.Optional(Name),
      connection_ids: Type.Optional(ConnectionIds),
      slots: Type.Optional(Slots),
      pauses: Type.Optional(Pauses),
      min_spacing_minutes: Type.Optional(MinSpacing),
      gap_policy: Type.Optional(Gap),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  { slots: [{ day_of_week: 2, time: '12:30', timezone: 'America/New_York' }] },
);
export type UpdateQueueBody = Static<typeof UpdateQueueBody>;

export const QueueIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const ListQueuesQuery = Type.Object(
  {
    brand_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this brand’s queues.' })),
  },
  { additionalProperties: false },
);
export type ListQueuesQuery = Static<typeof ListQueuesQuery>;

export const QueueSlotsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Start of the window; default now.' })),
    to: Type.Optional(
      Type.String({
        format: 'date-time',
        description: `End of the window (excluded); default 7 days after \`from\`, at most ${MAX_PREVIEW_DAYS} days after it.`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PREVIEW_SLOTS, description: 'Most slots listed; default 200.' }),
    ),
  },
  { additionalProperties: false },
);
export type QueueSlotsQuery = Static<typeof QueueSlotsQuery>;

export const QUEUE_EXAMPLE = {
  id: 'que_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'queue',
  brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6b',
  name: 'Weekday mornings',
  connection_ids: null,
  slots: [{ day_of_week: 1, time: '09:00', timezone: 'Europe/Paris' }],
  pauses: ['2026-12-25'],
  min_spacing_minutes: 60,
  gap_policy: 'close',
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
};

export const Queue = named(
  'Queue',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('queue'),
    brand_id: Type.String(),
    name: Type.String(),
    connection_ids: ConnectionIds,
    slots: Slots,
    pauses: Pauses,
    min_spacing_minutes: Type.Integer(),
    gap_policy: Gap,
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  QUEUE_EXAMPLE,
);

export const DeletedQueue = named(
  'DeletedQueue',
  Type.Object({ id: Type.String(), object: Type.Literal('queue'), deleted: Type.Literal(true) }),
  { id: QUEUE_EXAMPLE.id, object: 'queue', deleted: true },
);

export const QueueSlot = named(
  'QueueSlot',
  Type.Object({
    at: Timestamp,
    day_of_week: Type.Integer(),
    time: Type.String(),
    timezone: Type.String(),
    status: StringEnum(QUEUE_SLOT_STATUSES, { description: '`taken`: a post holds the slot (`post_id`).' }),
    post_id: Type.Union([Type.String(), Type.Null()]),
  }),
  {
    at: '2026-11-30T08:00:00.000Z',
    day_of_week: 1,
    time: '09:00',
    timezone: 'Europe/Paris',
    status: 'taken',
    post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
  },
);

export const QueueSlots = named(
  'QueueSlots',
  Type.Object({
    object: Type.Literal('queue_slots'),
    queue_id: Type.String(),
    from: Timestamp,
    to: Timestamp,
    slots: Type.Array(QueueSlot),
    has_more: Type.Boolean({ description: 'More slots in the window than `limit`: read on from `next_from`.' }),
    next_from: NullableTimestamp,
  }),
  {
    object: 'queue_slots',
    queue_id: QUEUE_EXAMPLE.id,
    from: '2026-11-30T00:00:00.000Z',
    to: '2026-12-07T00:00:00.000Z',
    slots: [
      {
        at: '2026-11-30T08:00:00.000Z',
        day_of_week: 1,
        time: '09:00',
        timezone: 'Europe/Paris',
        status: 'taken',
        post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
      },
    ],
    has_more: false,
    next_from: null,
  },
);
