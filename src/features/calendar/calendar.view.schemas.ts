// TypeBox schemas of what the calendar API answers: a calendar event (a view of a post, or of an automation's run
// to come), a page of them in a window, and an ICS feed. Rendered by calendar.service.ts and calendar.feeds.ts.
import { Type } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { CALENDAR_EVENT_STATUSES, CALENDAR_EVENT_TYPES } from './calendar.schemas.ts';

const EVENT_EXAMPLE = {
  id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'calendar_event',
  type: 'post',
  title: 'Our winter release is out',
  starts_at: '2026-12-01T08:30:00.000Z',
  date: '2026-12-01',
  local_start: '2026-12-01T09:30:00+01:00',
  status: 'scheduled',
  platforms: ['x', 'linkedin'],
  brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6a',
  post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
  automation_id: null,
  recycled_from: null,
  queue_id: null,
  editable: true,
};

export const CalendarEvent = named(
  'CalendarEvent',
  Type.Object({
    id: Type.String({
      description: 'A post event’s id is its post’s id; an automation run’s is `<automation id>@<slot, UTC>`.',
    }),
    object: Type.Literal('calendar_event'),
    type: StringEnum(CALENDAR_EVENT_TYPES),
    title: Type.String({ description: 'The post’s first line (at most 80 characters), or the automation’s name.' }),
    starts_at: Timestamp,
    date: Type.String({ description: 'The bucket: the local date of `starts_at` in the request’s `tz`.' }),
    local_start: Type.String({ description: '`starts_at` as local time in `tz`, with its offset.' }),
    status: StringEnum(CALENDAR_EVENT_STATUSES, {
      description: 'The post’s status, or `planned` for an automation run to come.',
    }),
    platforms: Type.Array(StringEnum(PLATFORM_NAMES)),
    brand_id: Type.String(),
    post_id: Type.Union([Type.String(), Type.Null()]),
    automation_id: Type.Union([Type.String(), Type.Null()]),
    recycled_from: Type.Union([Type.String(), Type.Null()], {
      description: 'A recycled copy: the post it recycles, the id of its family (docs/queues.md "Recycling").',
    }),
    queue_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The queue a post was added to (docs/queues.md); null for other posts and automation runs.',
    }),
    editable: Type.Boolean({
      description:
        'Whether PATCH and DELETE can change it now: drafts, scheduled posts and posts awaiting approval. Automation runs never are (change the automation).',
    }),
  }),
  EVENT_EXAMPLE,
);

export const CalendarEventPage = named(
  'CalendarEventPage',
  Type.Object({
    items: Type.Array(CalendarEvent),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` to get the next page; null on the last page.',
    }),
    has_more: Type.Boolean(),
    from: Timestamp,
    to: Timestamp,
    tz: Type.String({ description: 'The zone buckets were computed in.' }),
  }),
  {
    items: [EVENT_EXAMPLE],
    next_cursor: null,
    has_more: false,
    from: '2026-11-30T23:00:00.000Z',
    to: '2026-12-31T23:00:00.000Z',
    tz: 'Europe/Paris',
  },
);

const FEED_EXAMPLE = {
  id: 'calf_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'calendar_feed',
  name: 'Team plan',
  brand_ids: null,
  platforms: null,
  types: ['post', 'automation_run'],
  token_last4: 'x9Qa',
  created_at: '2026-11-20T10:00:00.000Z',
  last_read_at: null,
  revoked_at: null,
};

export const CalendarFeed = named(
  'CalendarFeed',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('calendar_feed'),
    name: Type.String(),
    brand_ids: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Null: every brand.' }),
    platforms: Type.Union([Type.Array(StringEnum(PLATFORM_NAMES)), Type.Null()], { description: 'Null: all.' }),
    types: Type.Array(StringEnum(CALENDAR_EVENT_TYPES)),
    token_last4: Type.String({ description: 'The end of the URL’s token, to recognise it; the URL is shown once.' }),
    created_at: Timestamp,
    last_read_at: NullableTimestamp,
    revoked_at: NullableTimestamp,
  }),
  FEED_EXAMPLE,
);

export const CreatedCalendarFeed = named(
  'CreatedCalendarFeed',
  Type.Object({
    feed: CalendarFeed,
    url: Type.String({
      description: 'The secret subscription URL (`…/calendar/{token}.ics`), shown only in this answer.',
    }),
  }),
  { feed: FEED_EXAMPLE, url: 'https://herald.example.com/calendar/hcal_Q2FsZW5kYXJGZWVkVG9rZW5FeGFtcGxlMDE.ics' },
);

export const CalendarFeedPage = named(
  'CalendarFeedPage',
  Type.Object({
    items: Type.Array(CalendarFeed),
    next_cursor: Type.Null(),
    has_more: Type.Boolean(),
  }),
  { items: [FEED_EXAMPLE], next_cursor: null, has_more: false },
);
