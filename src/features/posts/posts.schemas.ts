// TypeBox schemas of the posts API: they validate requests, type the handlers and write the OpenAPI document.
// The post as the API shows it: posts.view.schemas.ts.
import { Type, type Static } from 'typebox';
import { IdempotencyKeyField } from '../../app/idempotency-field.ts';
import { FileRefList } from '../media/media.file-refs.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { MediaPlan } from '../media/media.schemas.ts';
import { EnumList, named, StringEnum } from '../../app/envelope.ts';
import { PlatformOptions } from './posts.platform-options.ts';
import { CREATED_POST_EXAMPLE, DELETED_POST_EXAMPLE, VALIDATE_RESULT_EXAMPLE } from './posts.examples.ts';
import { METADATA_LIMITS, MetadataInput, MetadataPatch } from '../../app/metadata.ts';

/** `queue` of a new post: the earliest free slot of its queue, or the first after the latest taken one. */
export const QUEUE_POSITIONS = ['next', 'last'] as const;

export const PlatformName = StringEnum(PLATFORM_NAMES, { description: 'A platform Herald publishes to.' });

// Per-platform options live in posts.platform-options.ts; importers keep reading them from here.
export * from './posts.platform-options.ts';

export const POST_SORTS = ['-created_at', 'schedule_at', '-schedule_at'] as const;

/** ISO 8601 date and time, with `Z` or an offset (absolute) or without (a local time read in `timezone`). */
const ScheduleTime = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([zZ]|[+-]\\d{2}:?\\d{2})?$',
    maxLength: 40,
    description,
    examples: ['2026-12-01T09:00:00Z', '2026-12-01T09:00:00'],
  });
const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'An IANA time zone (`Europe/Paris`, `America/New_York`): a `schedule_at` without an offset is read as a local time there, across daylight-saving changes. Kept on the post, so later edits of `schedule_at` without an offset use it too.',
  examples: ['America/New_York'],
});

const IdList = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { uniqueItems: true, maxItems: 20, description });

export const CreatePostBody = Type.Object(
  {
    brand_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Brand of the post; else the `x-herald-brand-id` header, else the default brand.',
      }),
    ),
    content: Type.String({ maxLength: 100_000, description: 'The text of the post.' }),
    platforms: Type.Array(PlatformName, { minItems: 1, maxItems: 20, uniqueItems: true }),
    publish_now: Type.Optional(Type.Boolean({ description: 'Publish at once. Not together with `schedule_at`.' })),
    schedule_at: Type.Optional(
      ScheduleTime(
        'When to publish: ISO 8601 with `Z` or an offset, or a local time without one together with `timezone`. Neither this nor `publish_now`: a draft.',
      ),
    ),
    timezone: Type.Optional(TimeZone),
    queue: Type.Optional(
      StringEnum(QUEUE_POSITIONS, {
        description:
          'Add the post to a queue instead of giving it a time (docs/queues.md): `next` takes the earliest free slot from now, `last` the first slot after the latest taken one. The post gets that slot as its `schedule_at`. Not together with `schedule_at` or `publish_now`.',
      }),
    ),
    queue_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'With `queue`: the queue of the post’s brand to add it to; required when the brand has more than one.',
      }),
    ),
    metadata: Type.Optional(MetadataInput),
    media_ids: Type.Optional(IdList('Uploaded media to attach, in order.')),
    platform_options: Type.Optional(PlatformOptions),
    connection_ids: Type.Optional(
      IdList('Connections to publish through; each gets its own target. Platforms without one use the brand default.'),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { content: 'Shipping Herald 1.0 today 🚀', platforms: ['x', 'bluesky'], schedule_at: '2026-12-01T09:00:00Z' },
    ],
  },
);
export type CreatePostBody = Static<typeof CreatePostBody>;

/**
 * `POST /posts` and `/posts/validate` over REST: the post, and what a caller that sends no headers adds (a custom
 * GPT action; docs/gpt-actions.md). MCP tools take CreatePostBody: they have their own idempotency_key.
 */
export const CreatePostRequestBody = Type.Object(
  {
    ...CreatePostBody.properties,
    openaiFileIdRefs: Type.Optional(FileRefList(10, 'images or videos for the post, after `media_ids`')),
    idempotency_key: IdempotencyKeyField,
  },
  { additionalProperties: false, examples: (CreatePostBody as { examples?: unknown[] }).examples },
);

export const UpdatePostBody = Type.Object(
  {
    content: Type.Optional(Type.String({ maxLength: 100_000 })),
    platforms: Type.Optional(Type.Array(PlatformName, { minItems: 1, maxItems: 20, uniqueItems: true })),
    schedule_at: Type.Optional(
      Type.Union(
        [
          ScheduleTime('A new time, absolute or local (read in `timezone`, or the zone kept on the post).'),
          Type.Null(),
        ],
        {
          description:
            'A new time; `null` turns a scheduled post back into a draft. Without an offset it is read in `timezone`, or in the zone kept on the post.',
        },
      ),
    ),
    timezone: Type.Optional(
      Type.Union([TimeZone, Type.Null()], {
        description:
          'A new zone. Alone, it moves a post scheduled in a zone to the same local time in the new zone; `null` forgets the zone (the schedule stays the same instant).',
      }),
    ),
    metadata: Type.Optional(MetadataPatch),
    media_ids: Type.Optional(Type.Union([IdList('Replaces the media list.'), Type.Null()])),
    platform_options: Type.Optional(
      Type.Union([
        Type.Object({}, { additionalProperties: true, description: 'Merged into the current options (RFC 7396).' }),
        Type.Null(),
      ]),
    ),
    connection_ids: Type.Optional(Type.Union([IdList('Replaces the chosen connections.'), Type.Null()])),
  },
  {
    additionalProperties: false,
    description: 'A JSON Merge Patch (RFC 7396) of the post: fields present replace, `null` removes.',
    examples: [{ schedule_at: '2026-12-02T09:00:00+01:00' }],
  },
);
export type UpdatePostBody = Static<typeof UpdatePostBody>;

export const PostIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The post id (`post_…`).' }),
});

export const ListPostsQuery = Type.Object(
  {
    status: Type.Optional(
      EnumList(
        [
          'draft',
          'pending_approval',
          'scheduled',
          'publishing',
          'published',
          'partially_published',
          'failed',
          'cancelled',
        ],
        'Posts in any of these statuses: `status=scheduled,failed` or `status=scheduled&status=failed`.',
      ),
    ),
    brand_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    platform: Type.Optional(PlatformName),
    scheduled_from: Type.Optional(Type.String({ format: 'date-time' })),
    scheduled_to: Type.Optional(Type.String({ format: 'date-time' })),
    created_from: Type.Optional(Type.String({ format: 'date-time' })),
    created_to: Type.Optional(Type.String({ format: 'date-time' })),
    recycled_from: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'Only the copies a recycling rule made of this post (docs/queues.md "Recycling"), not the post itself.',
      }),
    ),
    metadata: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        maxProperties: 10,
        propertyNames: { type: 'string', minLength: 1, maxLength: METADATA_LIMITS.keyLength, pattern: '^[^\\[\\]]+$' },
        additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
        description:
          'Posts whose metadata holds each of these pairs: `metadata[crm_id]=cmp_8812` (several pairs: all must match, at most 10).',
        examples: [{ crm_id: 'cmp_8812' }],
      }),
    ),
    sort: Type.Optional(
      StringEnum(POST_SORTS, {
        description: 'Default `-created_at`; posts without a schedule come last.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'The `next_cursor` of the previous page; only valid with the same filters and sort.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListPostsQuery = Static<typeof ListPostsQuery>;

export const ValidationIssue = Type.Object({
  platform: Type.Union([PlatformName, Type.Null()]),
  rule: Type.String(),
  message: Type.String(),
  path: Type.String(),
});

const Warnings = Type.Array(ValidationIssue, {
  description:
    "What the brand's rules flag without refusing the post (`banned_term`, `required_term_missing` when the brand makes them warnings).",
});
export const BrandAddition = Type.Object({
  rule: StringEnum(['cta', 'required_terms', 'signature', 'default_hashtags'] as const),
  text: Type.String(),
});
export const ValidateResult = Type.Object({
  valid: Type.Boolean({ description: 'True when `issues` is empty (warnings do not count).' }),
  issues: Type.Array(ValidationIssue),
  warnings: Warnings,
  applied: Type.Array(
    Type.Object({
      platform: PlatformName,
      additions: Type.Array(BrandAddition, { description: "What the brand's rules add on this platform, in order." }),
      text: Type.String({
        description: 'The first part exactly as it will be published, additions included (counted in the limits).',
      }),
    }),
    { description: 'One entry per platform, in `platforms` order.' },
  ),
  media: Type.Optional(
    Type.Array(MediaPlan, {
      description:
        'Per platform and media item, what Herald will do to fit it (`converted from image/png to image/jpeg`, `scaled to 1440×1080`, `metadata stripped`).',
    }),
  ),
});
export const CreatedPost = Type.Object({ post_id: Type.String(), post: Type.Ref('Post'), warnings: Warnings });
export const ActionBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('PlatformOptions', PlatformOptions);
named('CreatePostRequest', CreatePostRequestBody);
named('UpdatePostRequest', UpdatePostBody);
named('ValidationIssue', ValidationIssue);
named('ValidationResult', ValidateResult, VALIDATE_RESULT_EXAMPLE);
named('CreatedPost', CreatedPost, CREATED_POST_EXAMPLE);
export const DeletedPost = named(
  'DeletedPost',
  Type.Object({ id: Type.String(), object: Type.Literal('post'), deleted: Type.Literal(true) }),
  DELETED_POST_EXAMPLE,
);
