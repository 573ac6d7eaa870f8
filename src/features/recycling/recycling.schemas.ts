// TypeBox schemas of evergreen recycling (docs/queues.md "Recycling"): the rule a client sends to
// `POST /v1/posts/{id}/recycle` and the rule a post shows as `recycle`. Ranges (every_days, times, until) are rules of
// the service, a 422 naming the rule, like every other rule a post breaks.
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';

export const RECYCLE_VARY = ['none', 'rotate_variants'] as const;
export type RecycleVary = (typeof RECYCLE_VARY)[number];
export const RECYCLE_STATUSES = ['active', 'stopped', 'finished'] as const;
export type RecycleStatus = (typeof RECYCLE_STATUSES)[number];

export const MAX_RECYCLE_TIMES = 100;
export const MAX_VARIANTS = 50;

export const RecycleBody = named(
  'RecycleRequest',
  Type.Object(
    {
      every_days: Type.Integer({
        description: 'Days between two copies (at least 1); the first copy comes this long after now.',
      }),
      times: Type.Integer({ description: `How many copies to make, 1 to ${MAX_RECYCLE_TIMES}.` }),
      until: Type.Optional(
        Type.String({
          format: 'date-time',
          description:
            'No copy after this instant (in the future); the rule finishes then even if `times` is not reached.',
        }),
      ),
      vary: Type.Optional(
        StringEnum(RECYCLE_VARY, {
          description:
            '`none`: every copy repeats the post as it is; `rotate_variants`: the copies take the texts of `variants` in order, round and round. Default: `rotate_variants` when `variants` is given, else `none`.',
        }),
      ),
      variants: Type.Optional(
        Type.Array(Type.String({ maxLength: 100_000 }), {
          maxItems: MAX_VARIANTS,
          description:
            "Texts the copies take in turn (with `rotate_variants`, required), each checked against every target platform's text rules; a copy's text replaces the post's `content` and its per-platform `content` overrides.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  {
    every_days: 7,
    times: 4,
    variants: ['Our scheduling guide, still fresh.', 'In case you missed it: our scheduling guide.'],
  },
);
export type RecycleBody = Static<typeof RecycleBody>;

export const RECYCLE_RULE_EXAMPLE = {
  every_days: 7,
  times: 4,
  until: null,
  vary: 'rotate_variants',
  variants: ['Our guide to scheduling, still fresh.', 'In case you missed it: our scheduling guide.'],
  status: 'active',
  done: 1,
  next_at: '2026-12-08T09:00:00.000Z',
  last_copy_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6d',
  error: null,
  created_at: '2026-11-24T09:00:00.000Z',
  updated_at: '2026-12-01T09:00:00.000Z',
};

export const RecycleRule = named(
  'RecycleRule',
  Type.Object({
    every_days: Type.Integer(),
    times: Type.Integer(),
    until: NullableTimestamp,
    vary: StringEnum(RECYCLE_VARY),
    variants: Type.Array(Type.String()),
    status: StringEnum(RECYCLE_STATUSES, {
      description:
        '`active`: copies still to come; `stopped`: by `DELETE …/recycle` or a copy refused; `finished`: all made.',
    }),
    done: Type.Integer({ description: 'Copies made so far.' }),
    next_at: Type.Union([Timestamp, Type.Null()], { description: 'When the next copy is due; null unless active.' }),
    last_copy_id: Type.Union([Type.String(), Type.Null()], { description: 'The latest copy (`post_…`).' }),
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
      description: 'Why the rule stopped on its own (a copy refused).',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
