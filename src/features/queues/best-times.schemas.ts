// TypeBox schemas of best-time suggestions (docs/queues.md "Best times"): what POST /v1/queues/{id}/suggest-slots
// and the MCP tool suggest_queue_slots accept, and what they answer.
import { Type, type Static } from 'typebox';
import { named } from '../../app/envelope.ts';
import {
  BEST_TIMES_DEFAULT_COUNT,
  BEST_TIMES_LOOKBACK_DAYS,
  BEST_TIMES_MAX_COUNT,
  BEST_TIMES_MIN_SAMPLE,
  BEST_TIMES_MIN_SAMPLE_FLOOR,
  BEST_TIMES_MIN_SAMPLE_MAX,
  BEST_TIMES_SETTLE_HOURS,
} from './best-times.ts';

export const SuggestSlotsParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'The queue id.' }),
});

export const SuggestSlotsBody = named(
  'SuggestSlotsRequest',
  Type.Object(
    {
      count: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: BEST_TIMES_MAX_COUNT,
          default: BEST_TIMES_DEFAULT_COUNT,
          description: 'How many slots to propose.',
        }),
      ),
      connection_ids: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
          minItems: 1,
          maxItems: 100,
          uniqueItems: true,
          description:
            "Read only these accounts' posts: among the queue's connections, or the brand's when the queue has none. Default: all of them.",
        }),
      ),
      timezone: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description:
            "IANA zone to group posts in and to give the slots in. Default: the zone most of the queue's slots use (required for a queue without slots).",
        }),
      ),
      min_sample: Type.Optional(
        Type.Integer({
          minimum: BEST_TIMES_MIN_SAMPLE_FLOOR,
          maximum: BEST_TIMES_MIN_SAMPLE_MAX,
          default: BEST_TIMES_MIN_SAMPLE,
          description: 'Posts a weekday-hour needs before it is scored from history.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  { count: 5 },
);
export type SuggestSlotsBody = Static<typeof SuggestSlotsBody>;

const Nullable = <T extends ReturnType<typeof Type.Number>>(s: T, description: string) =>
  Type.Union([s, Type.Null()], { description });

export const SuggestedSlotSchema = Type.Object({
  day_of_week: Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday … 6 = Saturday, in `timezone`.' }),
  time: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local time, `HH:mm`.' }),
  timezone: Type.String({ description: "The queue's IANA time zone." }),
  score: Nullable(
    Type.Number({ minimum: 0 }),
    "Mean engagement index of the slot's posts: 1 is the accounts' own average, 1.4 is 40 % above it. Null for a default.",
  ),
  confidence: Nullable(
    Type.Number({ minimum: 0, maximum: 1 }),
    '1 − relative standard error of the score (its standard error ÷ the score), clamped to [0, 1]. Null for a default.',
  ),
  sample_size: Type.Integer({ minimum: 0, description: 'Posts measured in this weekday-hour.' }),
  source: Type.Union([Type.Literal('history'), Type.Literal('default')], {
    description:
      '`history`: scored from your posts. `default`: a conventional slot with no evidence behind it, used where history is too thin.',
  }),
});

export const SlotSuggestions = named(
  'SlotSuggestions',
  Type.Object({
    slots: Type.Array(SuggestedSlotSchema, {
      description: 'Best first: scored slots by score, then the defaults that fill the count.',
    }),
    basis: Type.Object(
      {
        measure: Type.Literal('engagement_index', {
          description:
            "Each post's engagement rate (engagements ÷ reach, else impressions), or its engagements where the platform gives neither, divided by the mean of the same over its account's posts.",
        }),
        brand_id: Type.String(),
        connection_ids: Type.Union([Type.Array(Type.String()), Type.Null()], {
          description: "The accounts read; null: every post of the queue's brand.",
        }),
        timezone: Type.String(),
        window: Type.Object(
          { from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }) },
          {
            description: `Publication times read: ${BEST_TIMES_LOOKBACK_DAYS} days ending ${BEST_TIMES_SETTLE_HOURS} hours ago (younger posts are still growing).`,
          },
        ),
        min_sample: Type.Integer(),
        samples: Type.Integer({ description: 'Published posts (per account) with known engagements in the window.' }),
        samples_by_rate: Type.Integer({ description: 'Of them, measured by engagement rate.' }),
        slots_measured: Type.Integer({ description: 'Weekday-hours with at least `min_sample` posts.' }),
        history: Type.Integer({ description: 'Slots answered from history.' }),
        defaults: Type.Integer({ description: 'Slots answered from the defaults.' }),
      },
      { description: 'What the suggestion rests on.' },
    ),
  }),
  {
    slots: [
      {
        day_of_week: 2,
        time: '09:00',
        timezone: 'Europe/Paris',
        score: 1.42,
        confidence: 0.81,
        sample_size: 6,
        source: 'history',
      },
      {
        day_of_week: 1,
        time: '09:00',
        timezone: 'Europe/Paris',
        score: null,
        confidence: null,
        sample_size: 1,
        source: 'default',
      },
    ],
    basis: {
      measure: 'engagement_index',
      brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6b',
      connection_ids: null,
      timezone: 'Europe/Paris',
      window: { from: '2026-08-27T10:00:00.000Z', to: '2026-11-25T10:00:00.000Z' },
      min_sample: 3,
      samples: 41,
      samples_by_rate: 30,
      slots_measured: 4,
      history: 1,
      defaults: 1,
    },
  },
);
