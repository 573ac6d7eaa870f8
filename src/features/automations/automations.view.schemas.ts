// TypeBox schemas of what the automations API answers: the automation, a run and a preview, with their OpenAPI
// names and examples. Built in automations.view.ts from the stored rows.
import { Type } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import {
  AUTOMATION_STATUSES,
  AutomationDestination,
  AutomationGenerator,
  AutomationOptions,
  AutomationOutput,
  AutomationSource,
  RUN_STATUSES,
  RUN_TRIGGERS,
} from './automations.schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);
const Failure = Nullable(Type.Object({ code: Type.String(), message: Type.String() }));

export const Automation = named(
  'Automation',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('automation'),
    brand_id: Type.String(),
    name: Type.String(),
    status: StringEnum(AUTOMATION_STATUSES, {
      description:
        '`active` runs; `paused` by a person or after too many failed runs in a row; `error` cannot run (its brand is gone); `archived` was deleted.',
    }),
    source: AutomationSource,
    generator: AutomationGenerator,
    destinations: Type.Array(AutomationDestination),
    output: AutomationOutput,
    options: AutomationOptions,
    next_run_at: Type.Union([Timestamp, Type.Null()], {
      description: 'The next slot (the next occurrence, or the next feed poll); null when nothing is due.',
    }),
    last_run_at: NullableTimestamp,
    last_error: Failure,
    consecutive_failures: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  {
    id: 'auto_01jdq4x1k9m2v7c3r5t8w0yz6b',
    object: 'automation',
    brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6a',
    name: 'Weekly tip',
    status: 'active',
    source: {
      type: 'schedule',
      rrule: 'DTSTART;TZID=Europe/Paris:20261130T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO',
      timezone: 'Europe/Paris',
    },
    generator: { type: 'library', items: ['Tip: schedule posts a week ahead.'], count: 1 },
    destinations: [{ platform: 'linkedin' }],
    output: { mode: 'draft' },
    options: { max_items_per_run: 5, backfill: false, use_item_image: false },
    next_run_at: '2026-11-30T08:00:00.000Z',
    last_run_at: null,
    last_error: null,
    consecutive_failures: 0,
    created_at: '2026-11-26T10:00:00.000Z',
    updated_at: '2026-11-26T10:00:00.000Z',
  },
);

export const AutomationRun = named(
  'AutomationRun',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('automation_run'),
    automation_id: Type.String(),
    trigger: StringEnum(RUN_TRIGGERS),
    slot: Type.String({
      description: 'What the run is for (one run per slot): the scheduled time, `manual:<minute>` or `event:<id>`.',
    }),
    status: StringEnum(RUN_STATUSES, {
      description: '`skipped`: the automation was paused or archived before the run started.',
    }),
    started_at: NullableTimestamp,
    finished_at: NullableTimestamp,
    items_seen: Type.Integer({ description: 'Feed items (or library texts) read.' }),
    items_new: Type.Integer({ description: 'Items not seen before, made into posts.' }),
    posts_created: Type.Array(Type.String()),
    approval_batch_id: Nullable(Type.String()),
    error: Failure,
    created_at: Timestamp,
  }),
  {
    id: 'arun_01jdq4x1k9m2v7c3r5t8w0yz6c',
    object: 'automation_run',
    automation_id: 'auto_01jdq4x1k9m2v7c3r5t8w0yz6b',
    trigger: 'feed',
    slot: '2026-11-26T10:15:00.000Z',
    status: 'completed',
    started_at: '2026-11-26T10:15:01.000Z',
    finished_at: '2026-11-26T10:15:02.000Z',
    items_seen: 20,
    items_new: 2,
    posts_created: ['post_01jdq4x1k9m2v7c3r5t8w0yz6d', 'post_01jdq4x1k9m2v7c3r5t8w0yz6e'],
    approval_batch_id: null,
    error: null,
    created_at: '2026-11-26T10:15:00.000Z',
  },
);

const Issue = Type.Object({
  platform: Nullable(Type.String()),
  rule: Type.String(),
  message: Type.String(),
  path: Type.Optional(Type.String()),
});

export const AutomationPreview = named(
  'AutomationPreview',
  Type.Object({
    object: Type.Literal('automation_preview'),
    automation_id: Type.String(),
    slot: Nullable(Type.String({ description: 'The slot the next run would have (null for an event source).' })),
    items_seen: Type.Integer(),
    items_new: Type.Integer(),
    posts: Type.Array(
      Type.Object({
        item: Nullable(
          Type.Object({ key: Type.String(), title: Nullable(Type.String()), url: Nullable(Type.String()) }),
        ),
        content: Type.String(),
        platforms: Type.Array(Type.String()),
        platform_options: Type.Record(Type.String(), Type.Unknown()),
        connection_ids: Type.Array(Type.String()),
        schedule_at: NullableTimestamp,
        publish_now: Type.Boolean(),
        image_url: Nullable(Type.String()),
        valid: Type.Boolean({ description: 'Whether POST /posts would accept it now.' }),
        issues: Type.Array(Issue),
      }),
    ),
    error: Failure,
  }),
  {
    object: 'automation_preview',
    automation_id: 'auto_01jdq4x1k9m2v7c3r5t8w0yz6b',
    slot: '2026-11-26T10:30:00.000Z',
    items_seen: 20,
    items_new: 1,
    posts: [
      {
        item: { key: 'guid:https://example.com/p/42', title: 'We ship on Monday', url: 'https://example.com/p/42' },
        content: 'We ship on Monday\n\nhttps://example.com/p/42',
        platforms: ['linkedin'],
        platform_options: {},
        connection_ids: [],
        schedule_at: null,
        publish_now: false,
        image_url: null,
        valid: true,
        issues: [],
      },
    ],
    error: null,
  },
);
