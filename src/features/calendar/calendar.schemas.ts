// TypeBox schemas of what the calendar API accepts (docs/calendar.md): the window and filters of
// GET /v1/calendar/events, a reschedule, a new ICS feed. What it answers is in calendar.view.schemas.ts.
import { Type, type Static } from 'typebox';
import { EnumList, named, StringEnum } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { POST_STATUSES } from '../posts/posts.view.schemas.ts';

export const CALENDAR_EVENT_TYPES = ['post', 'automation_run'] as const;
export type CalendarEventType = (typeof CALENDAR_EVENT_TYPES)[number];
/** A post's own status, or `planned`: an automation's run still to come. */
export const CALENDAR_EVENT_STATUSES = [...POST_STATUSES, 'planned'] as const;
export type CalendarEventStatus = (typeof CALENDAR_EVENT_STATUSES)[number];
export const CALENDAR_PAGE_DEFAULT = 100;
export const CALENDAR_PAGE_MAX = 500;
/** Active feeds a workspace may hold: each is a standing read of its calendar by anyone holding the URL. */
export const CALENDAR_FEEDS_MAX = 50;

const Boundary = (what: string) =>
  Type.String({
    minLength: 10,
    maxLength: 40,
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$',
    description: `${what}: a date (\`2026-03-01\`, midnight in \`tz\`) or a date-time with \`Z\` or an offset.`,
  });

export const CalendarEventsQuery = Type.Object(
  {
    from: Boundary('Start of the window (inclusive)'),
    to: Boundary('End of the window (exclusive); at most 92 days after `from`'),
    tz: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'The IANA zone events are bucketed in (each event’s `date`), and dates in `from`/`to` read in. Default `UTC`.',
        examples: ['Europe/Paris'],
      }),
    ),
    brand_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Only this brand (else the `x-herald-brand-id` header, else every brand the key reaches).',
      }),
    ),
    platform: Type.Optional(EnumList(PLATFORM_NAMES, 'Only events on these platforms: `platform=x,linkedin`.')),
    status: Type.Optional(
      EnumList(
        CALENDAR_EVENT_STATUSES,
        'Only events in these states. Default: every state but `cancelled` (ask for it to see cancelled posts).',
      ),
    ),
    type: Type.Optional(EnumList(CALENDAR_EVENT_TYPES, 'Only these kinds of event: `type=post`.')),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CALENDAR_PAGE_MAX,
        default: CALENDAR_PAGE_DEFAULT,
        description: 'Page size.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'The `next_cursor` of the previous page; only valid with the same window and filters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CalendarEventsQuery = Static<typeof CalendarEventsQuery>;

export const CalendarEventParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 300,
    description: 'The calendar event id: a post id (`post_…`), or `<automation id>@<slot>` for an automation run.',
    examples: ['post_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

export const RescheduleEventBody = Type.Object(
  {
    starts_at: Type.String({
      format: 'date-time',
      description: 'The new time, with `Z` or an offset. A post scheduled in a zone keeps its zone.',
      examples: ['2026-12-01T09:30:00+01:00'],
    }),
  },
  { additionalProperties: false },
);
export type RescheduleEventBody = Static<typeof RescheduleEventBody>;

export const CreateFeedBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Shown as the calendar’s name when subscribed.' }),
    brand_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Only this brand. Default: the `x-herald-brand-id` header’s brand, else every brand the key reaches.',
      }),
    ),
    platforms: Type.Optional(
      Type.Array(StringEnum(PLATFORM_NAMES), {
        minItems: 1,
        maxItems: PLATFORM_NAMES.length,
        uniqueItems: true,
        description: 'Only events on these platforms. Default: all.',
      }),
    ),
    types: Type.Optional(
      Type.Array(StringEnum(CALENDAR_EVENT_TYPES), {
        minItems: 1,
        maxItems: CALENDAR_EVENT_TYPES.length,
        uniqueItems: true,
        description: 'The kinds of event the feed shows. Default: both.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateFeedBody = Static<typeof CreateFeedBody>;

export const FeedIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The feed id (`calf_…`).',
    examples: ['calf_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

named('RescheduleCalendarEventRequest', RescheduleEventBody, { starts_at: '2026-12-01T09:30:00+01:00' });
named('CreateCalendarFeedRequest', CreateFeedBody, { name: 'Team plan', platforms: ['linkedin', 'x'] });
