// TypeBox schemas of what the repurpose API accepts (docs/repurpose.md): the job request, the list query and the id.
// What it answers is in repurpose.view.schemas.ts. Which source fields go with which `type` is a rule of the service
// (422 with the rule named), so the 400 schema stays one flat object a client can read at a glance.
import { Type, type Static } from 'typebox';
import { EnumList, named, StringEnum } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';

export const SOURCE_TYPES = ['url', 'text', 'post', 'media'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const OUTPUT_FORMATS = ['post', 'thread', 'caption'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const OUTPUT_MODES = ['draft', 'approval', 'schedule'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];
export const JOB_STATUSES = [
  'queued',
  'fetching',
  'generating',
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** Statuses a job does not leave. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'partially_completed', 'failed', 'cancelled'];

/** The most text a `text` source or a transcript may hold (a long article is ~50 KB). */
export const MAX_SOURCE_CHARS = 100_000;
/** Variants per target, and targets per job: each output is a post, so the product is bounded. */
export const MAX_COUNT = 5;
export const MAX_TARGETS = 10;

const LongText = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_SOURCE_CHARS, pattern: '\\S', description });

export const RepurposeSource = Type.Object(
  {
    type: StringEnum(SOURCE_TYPES, {
      description:
        '`url`: an article fetched and extracted; `text`: pasted text; `post`: a Herald post; `media`: a video with its `transcript`.',
    }),
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'For `url`: an http(s) page (HTML).' })),
    title: Type.Optional(Type.String({ maxLength: 300, description: 'For `text` and `media`: the title, if any.' })),
    text: Type.Optional(LongText('For `text`: the text to repurpose.')),
    post_id: Type.Optional(Type.String({ maxLength: 200, description: 'For `post`: a post of this workspace.' })),
    media_id: Type.Optional(Type.String({ maxLength: 200, description: 'For `media`: a media of this workspace.' })),
    transcript: Type.Optional(LongText('For `media`: the transcript. Required: Herald does not transcribe offline.')),
  },
  { additionalProperties: false },
);
export type RepurposeSource = Static<typeof RepurposeSource>;

export const RepurposeTarget = Type.Object(
  {
    platform: StringEnum(PLATFORM_NAMES),
    format: StringEnum(OUTPUT_FORMATS, {
      description: '`thread` on platforms that take threads; `post` and `caption` are one text.',
    }),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_COUNT, default: 1, description: 'Variants of this output.' }),
    ),
  },
  { additionalProperties: false },
);
export type RepurposeTarget = Static<typeof RepurposeTarget>;

const UtmValue = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._~-]+$' });

export const RepurposeOptions = Type.Object(
  {
    tone: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Guidance for a model; the extractive engine keeps the source’s words.',
      }),
    ),
    language: Type.Optional(Type.String({ maxLength: 35, description: 'A BCP 47 tag; guidance for a model.' })),
    hashtags: Type.Optional(
      Type.Boolean({ default: true, description: 'Hashtags from the source’s keywords and the brand’s defaults.' }),
    ),
    cta: Type.Optional(Type.String({ maxLength: 300, description: 'A call to action ending each output.' })),
    link: Type.Optional(
      Type.String({ maxLength: 2048, description: 'The link to share; a `url` source’s own URL when absent.' }),
    ),
    utm: Type.Optional(
      Type.Object(
        {
          source: Type.Optional(UtmValue),
          medium: Type.Optional(UtmValue),
          campaign: Type.Optional(UtmValue),
        },
        {
          additionalProperties: false,
          description:
            'UTM parameters added to the link: `utm_source` defaults to the platform, `utm_medium` to `social`, `utm_campaign` to `repurpose`.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RepurposeOptions = Static<typeof RepurposeOptions>;

export const RepurposeOutput = Type.Object(
  {
    mode: StringEnum(OUTPUT_MODES, {
      description:
        '`draft`: drafts; `approval`: posts held for review, one approval batch for the job; `schedule`: scheduled posts.',
    }),
    schedule: Type.Optional(
      Type.Object(
        {
          first_at: Type.String({
            maxLength: 40,
            description:
              'The first post’s time: ISO 8601 with an offset, or a local time without one, read in the brand’s time zone.',
          }),
          spacing_minutes: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 10_080, default: 60, description: 'Minutes between posts.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RepurposeOutput = Static<typeof RepurposeOutput>;

export const CreateRepurposeBody = named(
  'CreateRepurposeJobRequest',
  Type.Object(
    {
      brand_id: Type.Optional(
        Type.String({ maxLength: 200, description: 'The brand; the request’s brand otherwise.' }),
      ),
      source: RepurposeSource,
      targets: Type.Array(RepurposeTarget, { minItems: 1, maxItems: MAX_TARGETS }),
      options: Type.Optional(RepurposeOptions),
      output: Type.Optional(RepurposeOutput),
    },
    { additionalProperties: false },
  ),
  {
    source: { type: 'url', url: 'https://example.com/blog/launch' },
    targets: [
      { platform: 'x', format: 'thread' },
      { platform: 'linkedin', format: 'post' },
    ],
    options: { hashtags: true, utm: { campaign: 'launch' } },
    output: { mode: 'draft' },
  },
);
export type CreateRepurposeBody = Static<typeof CreateRepurposeBody>;

export const ListRepurposeQuery = Type.Object(
  {
    status: Type.Optional(EnumList(JOB_STATUSES, 'Jobs in any of these statuses: `status=completed`.')),
    brand_id: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
  },
  { additionalProperties: false },
);
export type ListRepurposeQuery = Static<typeof ListRepurposeQuery>;

export const RepurposeIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The job id (`rep_…`).',
    examples: ['rep_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});
