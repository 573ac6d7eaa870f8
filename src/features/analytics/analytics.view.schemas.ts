// TypeBox schemas of what the analytics API answers — a post's metrics, the summary, insights — with their
// OpenAPI names and examples. A metric a platform does not give is `null` and listed in `unavailable`, never 0.
import { Type, type TSchema } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { METRIC_NAMES } from '../../platforms/types.ts';
import { INSIGHT_KINDS, INSIGHT_SEVERITIES, INSIGHT_STATUSES } from './insights/types.ts';

const Nullable = (s: TSchema, description?: string) => Type.Union([s, Type.Null()], description ? { description } : {});
const Count = Type.Number({ minimum: 0 });
const Rate = Nullable(
  Type.Number({ minimum: 0 }),
  'Engagements ÷ reach (else impressions) over the targets reporting both; 0.0375 is 3.75 %. Null when none does.',
);
const Platform = StringEnum(PLATFORM_NAMES);
const MetricName = StringEnum(METRIC_NAMES);

const perMetric = (value: TSchema, description: string) =>
  Type.Object(Object.fromEntries(METRIC_NAMES.map((m) => [m, value])), { description });

const Window = Type.Object({ from: Timestamp, to: Timestamp });

const example = {
  totals: {
    posts: 42,
    targets: 61,
    engagements: 1830,
    engagement_rate: 0.0412,
    metrics: {
      impressions: 52_000,
      reach: 41_000,
      likes: 1320,
      comments: 210,
      shares: 240,
      quotes: 12,
      saves: 48,
      clicks: 390,
      video_views: null,
    },
    reporting: {
      impressions: 61,
      reach: 44,
      likes: 61,
      comments: 61,
      shares: 61,
      quotes: 20,
      saves: 12,
      clicks: 35,
      video_views: 0,
    },
    unavailable: ['video_views'],
  },
};

export const Totals = named(
  'AnalyticsTotals',
  Type.Object({
    posts: Type.Integer({ minimum: 0, description: 'Posts with at least one target in the group.' }),
    targets: Type.Integer({ minimum: 0, description: 'Published targets (a post on one account) in the group.' }),
    engagements: Nullable(
      Count,
      'likes + comments + shares + quotes + saves, over the targets reporting any of them; null when none does.',
    ),
    engagement_rate: Rate,
    metrics: perMetric(
      Nullable(Count),
      'Sum of each metric over the targets that report it; null when no target does (the platforms do not give it).',
    ),
    reporting: perMetric(Type.Integer({ minimum: 0 }), 'How many targets each sum covers.'),
    unavailable: Type.Array(MetricName, { description: 'Metrics no target of the group reports.' }),
  }),
  example.totals,
);

const Delta = Type.Object(
  {
    change: Nullable(Type.Number(), 'This period minus the previous one; null when either is unknown.'),
    percent: Nullable(Type.Number(), 'The change in % of the previous value; null when that is 0 or unknown.'),
  },
  { description: 'Against the previous period of the same length.' },
);

export const AnalyticsSummary = named(
  'AnalyticsSummary',
  Type.Object({
    object: Type.Literal('analytics_summary'),
    period: Window,
    previous_period: Window,
    totals: Totals,
    previous_totals: Totals,
    deltas: Type.Object({
      posts: Delta,
      targets: Delta,
      engagements: Delta,
      engagement_rate: Delta,
      metrics: perMetric(Delta, 'Per metric.'),
    }),
    top_posts: Type.Array(
      Type.Object({
        post_id: Type.String(),
        excerpt: Type.String({ description: 'The first 120 characters of the post.' }),
        platforms: Type.Array(Platform),
        published_at: Timestamp,
        engagements: Count,
        engagement_rate: Rate,
      }),
      { description: 'Posts of the window with the most engagements, best first.' },
    ),
    platform_breakdown: Type.Array(Type.Object({ platform: Platform, totals: Totals }), {
      description: 'The totals per platform, by platform name.',
    }),
    series: Type.Optional(
      Type.Array(
        Type.Object({
          from: Type.String({
            format: 'date-time',
            description:
              "The bucket's start on the `tz` clock, or the window's `from` for a bucket that began before it.",
          }),
          to: Type.String({
            format: 'date-time',
            description: "The next bucket's start, or the window's `to` for a bucket that ends after it.",
          }),
          totals: Totals,
        }),
        {
          description:
            'Only with `interval`: the totals over all platforms of the posts published in each calendar hour, day, ISO week or month in `tz`, oldest first, every bucket present (an empty one has 0 posts and null metrics).',
        },
      ),
    ),
  }),
  {
    object: 'analytics_summary',
    period: { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' },
    previous_period: { from: '2026-10-02T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' },
    totals: example.totals,
    previous_totals: example.totals,
    deltas: {
      posts: { change: 0, percent: 0 },
      targets: { change: 0, percent: 0 },
      engagements: { change: 0, percent: 0 },
      engagement_rate: { change: 0, percent: 0 },
      metrics: Object.fromEntries(
        METRIC_NAMES.map((m) => [m, m === 'video_views' ? { change: null, percent: null } : { change: 0, percent: 0 }]),
      ),
    },
    top_posts: [
      {
        post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
        excerpt: 'Our winter release is out: faster sync, a new calendar and…',
        platforms: ['linkedin', 'x'],
        published_at: '2026-11-12T09:00:00.000Z',
        engagements: 312,
        engagement_rate: 0.061,
      },
    ],
    platform_breakdown: [{ platform: 'x', totals: example.totals }],
    series: [
      { from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z', totals: example.totals },
      { from: '2026-11-02T00:00:00.000Z', to: '2026-11-03T00:00:00.000Z', totals: example.totals },
    ],
  },
);

const MetricValue = Type.Object({
  value: Nullable(Count, 'The latest reading; null unless `status` is `ok`.'),
  status: StringEnum(['ok', 'unavailable', 'pending'] as const, {
    description: '`unavailable`: the platform does not give it; `pending`: not read yet.',
  }),
});

export const PostAnalytics = named(
  'PostAnalytics',
  Type.Object({
    object: Type.Literal('post_analytics'),
    post_id: Type.String(),
    totals: Totals,
    targets: Type.Array(
      Type.Object({
        target_id: Type.String(),
        platform: Platform,
        connection_id: Nullable(Type.String()),
        status: Type.String({ description: "The target's publishing status; only `published` targets have metrics." }),
        published_at: NullableTimestamp,
        last_synced_at: Nullable(Timestamp, 'When its metrics were last read; null: not yet.'),
        engagements: Nullable(Count),
        engagement_rate: Rate,
        metrics: perMetric(MetricValue, 'The latest value of each metric.'),
        unavailable: Type.Array(MetricName),
        series: perMetric(
          Type.Array(Type.Object({ captured_at: Timestamp, value: Count })),
          'Every reading of each metric, oldest first (empty for metrics never read or unavailable).',
        ),
      }),
    ),
  }),
  {
    object: 'post_analytics',
    post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
    totals: example.totals,
    targets: [
      {
        target_id: 'tgt_01jdq4x1k9m2v7c3r5t8w0yz6c',
        platform: 'x',
        connection_id: 'conn_01jdq4x1k9m2v7c3r5t8w0yz6d',
        status: 'published',
        published_at: '2026-11-12T09:00:00.000Z',
        last_synced_at: '2026-11-13T09:00:00.000Z',
        engagements: 57,
        engagement_rate: 0.0285,
        metrics: Object.fromEntries(
          METRIC_NAMES.map((m) => [
            m,
            m === 'saves'
              ? { value: null, status: 'unavailable' }
              : { value: m === 'impressions' ? 2000 : 10, status: 'ok' },
          ]),
        ),
        unavailable: ['saves'],
        series: Object.fromEntries(
          METRIC_NAMES.map((m) => [m, m === 'likes' ? [{ captured_at: '2026-11-12T10:00:00.000Z', value: 4 }] : []]),
        ),
      },
    ],
  },
);

const insightExample = {
  id: 'ins_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'insight',
  brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6b',
  kind: 'best_time',
  severity: 'tip',
  title: 'Post on linkedin on Tuesday at 09:00 UTC',
  body: 'Your 4 linkedin posts published on Tuesday between 9:00 and 9:59 UTC averaged 86 engagements, 1.9× your linkedin average of 45.2 over 31 posts.',
  evidence: {
    metric: 'engagements_per_post',
    value: 86,
    baseline: 45.2,
    sample_size: 4,
    window: { from: '2026-09-02T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' },
  },
  recommendation: { action: 'schedule_at_slot', params: { platform: 'linkedin', day_of_week: 2, hour_utc: 9 } },
  status: 'new',
  fingerprint: '6f1c0e2b9a7d4c3e8f5a1b2c3d4e5f60',
  generated_by: { engine: 'rules', provider: 'deterministic', model: null },
  period: { from: '2026-09-02T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' },
  created_at: '2026-12-01T00:00:01.000Z',
  updated_at: '2026-12-01T00:00:01.000Z',
  expires_at: '2026-12-31T00:00:01.000Z',
};

export const Insight = named(
  'Insight',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('insight'),
    brand_id: Type.String(),
    kind: StringEnum(INSIGHT_KINDS),
    severity: StringEnum(INSIGHT_SEVERITIES),
    title: Type.String(),
    body: Type.String(),
    evidence: Type.Object({
      metric: Type.String({ description: 'What was measured (docs/analytics.md "Insights").' }),
      value: Type.Number(),
      baseline: Type.Number({ description: 'What `value` is compared with.' }),
      sample_size: Type.Integer({ minimum: 0 }),
      window: Window,
    }),
    recommendation: Type.Object({
      action: Type.String({ description: 'What to do (`schedule_at_slot`, `add_media` …); Herald does not do it.' }),
      params: Type.Object({}, { additionalProperties: true }),
    }),
    status: StringEnum(INSIGHT_STATUSES),
    fingerprint: Type.String({ description: 'Names the finding without its numbers; stable across regenerations.' }),
    generated_by: Type.Object(
      {
        engine: Type.String({ description: '`rules`, or `llm` when a configured model reworded title and body.' }),
        provider: Type.String(),
        model: Nullable(Type.String()),
        fallback_reason: Type.Optional(Type.String()),
      },
      { description: 'Who wrote title and body. The finding and its evidence always come from the rules.' },
    ),
    period: Window,
    created_at: Timestamp,
    updated_at: Timestamp,
    expires_at: Timestamp,
  }),
  insightExample,
);

export const InsightGeneration = named(
  'InsightGeneration',
  Type.Object({
    object: Type.Literal('insight_generation'),
    cached: Type.Boolean({ description: 'True when answered from a generation of the last 24 hours.' }),
    generated_at: Timestamp,
    period: Window,
    platforms: Nullable(Type.Array(Platform), 'The platforms considered; null: all.'),
    items: Type.Array(Insight, { description: 'The insights of that generation, most severe first.' }),
  }),
  {
    object: 'insight_generation',
    cached: false,
    generated_at: '2026-12-01T00:00:01.000Z',
    period: { from: '2026-09-02T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' },
    platforms: null,
    items: [insightExample],
  },
);
