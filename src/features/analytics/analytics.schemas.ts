// TypeBox schemas of what the analytics API accepts: the summary's filters (shared by the CSV export), the
// insights' generation request and status change. What it answers is in analytics.view.schemas.ts.
import { Type, type Static } from 'typebox';
import { EnumList, StringEnum } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { INSIGHT_KINDS, INSIGHT_SEVERITIES, INSIGHT_STATUSES } from './insights/types.ts';

/** The summary's default window, and the longest one a request may ask for. */
export const SUMMARY_DEFAULT_DAYS = 30;
export const SUMMARY_MAX_DAYS = 366;
export const TOP_POSTS_DEFAULT = 5;
export const TOP_POSTS_MAX = 50;
/** Units of the summary's series (`interval`): calendar hours, days, ISO weeks (from Monday) and months in `tz`. */
export const SUMMARY_INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type SummaryInterval = (typeof SUMMARY_INTERVALS)[number];
/**
 * The most buckets one series may have. A year of days is 367 at most, so only hours reach it (about 41 days of
 * them): a chart has no use for more points, and the answer stays small.
 */
export const SUMMARY_MAX_BUCKETS = 1000;
/** Periods insights are generated over: the last 30, 90 or 180 days. */
export const INSIGHT_PERIODS = ['30d', '90d', '180d'] as const;
export type InsightPeriod = (typeof INSIGHT_PERIODS)[number];

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Time = (description: string) => Type.String({ format: 'date-time', description });

export const PostAnalyticsParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The post id (`post_…`).',
    examples: ['post_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

const WindowFilters = {
  brand_id: Type.Optional(
    Id('Only this brand (else the `x-herald-brand-id` header, else every brand the key reaches).'),
  ),
  connection_id: Type.Optional(
    Type.Array(Id('A connection id.'), {
      minItems: 1,
      maxItems: 50,
      description: 'Only these accounts: `connection_id=conn_a,conn_b` or repeated.',
    }),
  ),
  platform: Type.Optional(EnumList(PLATFORM_NAMES, 'Only these platforms: `platform=x,linkedin` or repeated.')),
  family: Type.Optional(
    Id(
      'Only one recycled family (docs/queues.md "Recycling"): this post and every copy whose `recycled_from` names it.',
    ),
  ),
  from: Type.Optional(
    Time(`Start of the window (inclusive), by publication time. Default: ${SUMMARY_DEFAULT_DAYS} days before \`to\`.`),
  ),
  to: Type.Optional(Time('End of the window (exclusive). Default: now.')),
};

export const SummaryQuery = Type.Object(
  {
    ...WindowFilters,
    top: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TOP_POSTS_MAX,
        default: TOP_POSTS_DEFAULT,
        description: 'How many top posts to list.',
      }),
    ),
    interval: Type.Optional(
      StringEnum(SUMMARY_INTERVALS, {
        description: `Adds \`series\`: the window's totals per calendar hour, day, ISO week (from Monday) or month in \`tz\`, clipped to the window. At most ${SUMMARY_MAX_BUCKETS.toLocaleString('en')} buckets, else 422. Without it there is no \`series\`.`,
      }),
    ),
    tz: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "The IANA zone the series' buckets follow, across daylight-saving changes. Default `UTC`; an unknown zone is a 422.",
        examples: ['Europe/Paris'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type SummaryQuery = Static<typeof SummaryQuery>;

export const ExportQuery = Type.Object(WindowFilters, { additionalProperties: false });
export type ExportQuery = Static<typeof ExportQuery>;

export const InsightIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The insight id (`ins_…`).',
    examples: ['ins_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

export const ListInsightsQuery = Type.Object(
  {
    status: Type.Optional(EnumList(INSIGHT_STATUSES, 'Only insights in these states: `status=new,viewed`.')),
    kind: Type.Optional(EnumList(INSIGHT_KINDS, 'Only these kinds.')),
    severity: Type.Optional(EnumList(INSIGHT_SEVERITIES, 'Only these severities.')),
    brand_id: Type.Optional(Id('Only this brand (else the header, else every brand the key reaches).')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'The `next_cursor` of the previous page; only valid with the same filters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListInsightsQuery = Static<typeof ListInsightsQuery>;

export const GenerateInsightsBody = Type.Object(
  {
    platforms: Type.Optional(
      Type.Array(StringEnum(PLATFORM_NAMES), {
        minItems: 1,
        maxItems: PLATFORM_NAMES.length,
        uniqueItems: true,
        description: "Only these platforms' posts (default: all).",
      }),
    ),
    period: Type.Optional(
      StringEnum(INSIGHT_PERIODS, {
        default: '90d',
        description: 'The posts considered: those published in the last 30, 90 or 180 days.',
      }),
    ),
    regenerate: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Run the rules again even when insights for the same brand, platforms and period were generated within the last 24 hours.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'GenerateInsightsRequest',
    examples: [{ platforms: ['x', 'linkedin'], period: '90d', regenerate: false }],
  },
);
export type GenerateInsightsBody = Static<typeof GenerateInsightsBody>;

export const UpdateInsightBody = Type.Object(
  {
    status: StringEnum(INSIGHT_STATUSES, {
      description:
        'What you did with it: `viewed`, `dismissed` (regenerating will not bring it back as new), `acted_upon`, or back to `new`. Herald records it; it does not carry out the recommendation.',
    }),
  },
  { additionalProperties: false, title: 'UpdateInsightRequest', examples: [{ status: 'dismissed' }] },
);
export type UpdateInsightBody = Static<typeof UpdateInsightBody>;
