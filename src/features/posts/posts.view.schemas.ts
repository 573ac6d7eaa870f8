// TypeBox schemas of the post as the API shows it (posts.view.ts renders it): its statuses, its targets with their
// attempts, errors and parts. Requests and the options they carry: posts.schemas.ts.
import { Type } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { POST_EXAMPLE, TARGET_ERROR_EXAMPLE, TARGET_EXAMPLE } from './posts.examples.ts';
import { Metadata } from '../../app/metadata.ts';
import { PlatformName, PlatformOptions } from './posts.schemas.ts';
import { ITEM_STATUSES } from '../approvals/approvals.repo.ts';
import { RecycleRule } from '../recycling/recycling.schemas.ts';

// The values of the enumerations below, exported for the API tables (docs/api.md).
export const POST_STATUSES = [
  'draft',
  'pending_approval',
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
] as const;
export const TARGET_STATUSES = ['pending', 'scheduled', 'publishing', 'published', 'failed', 'cancelled'] as const;
export const PART_STATUSES = ['pending', 'publishing', 'published', 'failed', 'cancelled', 'unknown'] as const;
export const PART_KINDS = ['post', 'reply', 'first_comment'] as const;
export const TARGET_ERROR_CATEGORIES = [
  'auth',
  'content',
  'media',
  'rate_limit',
  'platform',
  'network',
  'unknown',
] as const;
export const POST_ORIGINS = ['api', 'mcp', 'dashboard', 'cli', 'automation', 'repurpose', 'queue_import'] as const;

export const PostStatus = StringEnum(POST_STATUSES, {
  description:
    '`pending_approval`: held by the approval policy until a reviewer decides (docs/approvals.md); its targets are `pending`.',
});
export const TargetStatus = StringEnum(TARGET_STATUSES);

/** What a post shows of its approval request; the item itself is GET /v1/approvals/items/{item_id}. */
export const PostApproval = named(
  'PostApproval',
  Type.Object({
    status: StringEnum(ITEM_STATUSES),
    item_id: Type.String({ description: 'The approval item (`apr_…`).' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was rejected (or expired).' }),
    decided_by: Type.Union([Type.String(), Type.Null()]),
    decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  {
    status: 'rejected',
    item_id: 'apr_01jdq4x1k9m2v7c3r5t8w0yz6b',
    reason: 'Wrong launch date.',
    decided_by: 'usr_01jdq4x1k9m2v7c3r5t8w0yz6c',
    decided_at: '2026-11-20T10:00:00.000Z',
  },
);

export const TargetError = Type.Object({
  code: Type.String({ description: 'A `PLATFORM_*` code.' }),
  category: StringEnum(TARGET_ERROR_CATEGORIES),
  message: Type.String(),
  retryable: Type.Boolean(),
  platform_status: Type.Union([Type.Integer(), Type.Null()]),
  platform_response: Type.Union([Type.String(), Type.Null()], { description: "The platform's answer, truncated." }),
  duplicate_of: Type.Optional(
    Type.Object(
      { post_id: Type.String({ description: 'The Herald post that holds the content on this account.' }) },
      {
        description:
          "`PLATFORM_DUPLICATE` only, when Herald published what the platform calls a duplicate: the Herald post holding that content (or that platform post) on the same account. Absent when the earlier post is not Herald's, or is deleted.",
      },
    ),
  ),
});

export const Attempt = Type.Object({
  started_at: Timestamp,
  finished_at: NullableTimestamp,
  duration_ms: Type.Union([Type.Integer(), Type.Null()], {
    description: 'How long the attempt took; null while running.',
  }),
  outcome: Type.Union([Type.String(), Type.Null()], {
    description:
      '`published`, `failed`, `retry` (another attempt is scheduled) or `interrupted` (the worker stopped mid-attempt; the next attempt looked the post up before sending anything); null while running.',
  }),
  error_code: Type.Union([Type.String(), Type.Null()]),
});

export const TargetPart = Type.Object({
  index: Type.Integer({
    minimum: 0,
    description: 'Position in the thread: 0 is the post itself, 1 its first reply, …; a first comment comes last.',
  }),
  kind: StringEnum(PART_KINDS, {
    description:
      '`post`: the post itself (index 0). `reply`: a reply of its thread. `first_comment`: the first comment (`platform_options.<platform>.first_comment`), a comment on the post or a reply to its last part.',
  }),
  status: StringEnum(PART_STATUSES, {
    description:
      "`published`: on the platform. `publishing`: the part the target is on (being sent, or waiting for the target's next attempt). `failed`: the part the target failed on. `pending`: not attempted yet. `cancelled`: the target was cancelled before this part went out. `unknown`: the target was cancelled after this part was sent without an answer (a timeout, a 5xx, a worker that died): it may be on the platform, and Herald will not look it up again; its `error` is the last one.",
  }),
  platform_post_id: Type.Union([Type.String(), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([TargetError, Type.Null()], {
    description: "On the part the target is on: the last attempt's error (the target's `error`).",
  }),
});

export const Target = Type.Object({
  id: Type.String(),
  platform: PlatformName,
  connection_id: Type.Union([Type.String(), Type.Null()]),
  sandbox: Type.Boolean({ description: 'True when the target publishes to a simulated platform.' }),
  status: TargetStatus,
  platform_post_id: Type.Union([Type.String(), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()]),
  published_at: NullableTimestamp,
  attempt_count: Type.Integer(),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], {
    description:
      "While a `publishing` target waits for an attempt: when it starts (now or past: due at once, as after publishing now; later: a retry's backoff, or the platform's rate-limit reset). Null while a platform call is in flight and in every other status. `POST /posts/{id}/retry` brings it forward to now; `POST /posts/{id}/cancel` stops it.",
  }),
  attempts: Type.Array(Attempt),
  error: Type.Union([TargetError, Type.Null()], {
    description: "Why the target failed; while it waits for another attempt, the last attempt's error.",
  }),
  parts: Type.Array(TargetPart, {
    description:
      'Every post the target publishes, in order: one, or the first post and each reply of a thread, then its first comment. `platform_post_id` and `url` of the target are those of part 0.',
  }),
});

export const Post = Type.Object(
  {
    id: Type.String({ examples: ['post_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('post'),
    workspace_id: Type.String({ format: 'uuid' }),
    brand_id: Type.String(),
    content: Type.String(),
    platforms: Type.Array(PlatformName),
    platform_options: PlatformOptions,
    brand_additions: Type.Record(
      Type.String(),
      Type.Object({
        suffix: Type.String({ description: 'Appended as it is to the first part of this platform.' }),
        additions: Type.Array(Type.Object({ rule: Type.String(), text: Type.String() })),
        brand_version: Type.Integer({ description: 'The brand version the additions come from.' }),
      }),
      {
        description:
          "What the brand's rules append to each platform's first part (signature, call to action, hashtags, missing required terms), fixed when the post was created or last edited; platforms without additions are absent.",
      },
    ),
    media: Type.Array(
      Type.Union([
        Type.Ref('Media'),
        Type.Object(
          { id: Type.String(), object: Type.Literal('media'), deleted: Type.Literal(true) },
          { description: 'A media deleted since it was attached.' },
        ),
      ]),
      { description: 'Attached media, in `media_ids` order, with their public fields.' },
    ),
    status: PostStatus,
    publish_now: Type.Boolean(),
    schedule_at: NullableTimestamp,
    timezone: Type.Union([Type.String(), Type.Null()], {
      description:
        'The IANA zone the post was scheduled in (`schedule_at` without an offset); edits of `schedule_at` without an offset are read in it. Null: scheduled at an absolute time.',
    }),
    metadata: Metadata,
    published_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
    created_via: StringEnum(POST_ORIGINS),
    approval: Type.Union([PostApproval, Type.Null()], {
      description:
        'The last approval request of the post (docs/approvals.md): its item, status and, once rejected, the reason. Null: never gated.',
    }),
    queue_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'The queue the post was added to (`queue` on create; docs/queues.md). Null: never queued, or its queue was deleted.',
    }),
    queue_slot: Type.Union([Timestamp, Type.Null()], {
      description:
        'The slot of `queue_id` the post holds (its `schedule_at`); null once it holds none: cancelled, deleted, published now, or pinned (its `schedule_at` set explicitly, so changes of the queue no longer move it).',
    }),
    recycled_from: Type.Union([Type.String(), Type.Null()], {
      description:
        'A recycled copy: the post it recycles, the id of its family (docs/queues.md "Recycling"). Null on every other post.',
    }),
    recycle: Type.Union([RecycleRule, Type.Null()], {
      description: 'The post’s recycle rule (`POST /v1/posts/{id}/recycle`), whatever its status; null: none.',
    }),
    targets: Type.Array(Target),
  },
  { $id: 'Post', title: 'Post', examples: [POST_EXAMPLE] },
);

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('TargetError', TargetError, TARGET_ERROR_EXAMPLE);
named('TargetAttempt', Attempt);
named('Part', TargetPart);
named('Target', Target, TARGET_EXAMPLE);
