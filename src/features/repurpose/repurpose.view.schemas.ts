// TypeBox schema of what the repurpose API answers: the job, with its OpenAPI name and example. Built in
// repurpose.view.ts from the stored row.
import { Type } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import {
  JOB_STATUSES,
  OUTPUT_FORMATS,
  RepurposeOptions,
  RepurposeOutput,
  RepurposeSource,
  RepurposeTarget,
} from './repurpose.schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

export const OUTPUT_STATUSES = ['created', 'failed'] as const;

export const RepurposeOutputItem = Type.Object({
  id: Type.String(),
  platform: StringEnum(PLATFORM_NAMES),
  format: StringEnum(OUTPUT_FORMATS),
  status: StringEnum(OUTPUT_STATUSES, { description: '`created`: its post exists; `failed`: see `error`.' }),
  content: Type.String({ description: 'The whole text: the parts joined by blank lines.' }),
  parts: Type.Array(Type.String(), { description: 'One element per post of a thread; one for a post or caption.' }),
  char_count: Type.Integer({ description: 'The longest part, counted as the platform counts.' }),
  within_limit: Type.Boolean({
    description: 'Every part passes the platform’s text rules; false never becomes a post.',
  }),
  hashtags: Type.Array(Type.String()),
  post_id: Nullable(Type.String()),
  approval_item_id: Nullable(Type.String()),
  error: Nullable(
    Type.Object({
      rule: Type.String({
        description:
          'The rule the output broke: a fitting rule (`text_too_long`, `too_many_thread_parts`, `link_too_long` …) or a posts validation rule.',
      }),
      message: Type.String(),
    }),
  ),
});

const GeneratedBy = Type.Object({
  engine: Type.String({ description: '`llm`, or the deterministic technique (`extractive`).' }),
  provider: Type.String(),
  model: Nullable(Type.String()),
  fallback_reason: Type.Optional(Type.String()),
});

export const RepurposeJob = named(
  'RepurposeJob',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('repurpose_job'),
    brand_id: Type.String(),
    source: RepurposeSource,
    targets: Type.Array(RepurposeTarget),
    options: RepurposeOptions,
    output: RepurposeOutput,
    status: StringEnum(JOB_STATUSES),
    source_snapshot: Nullable(
      Type.Object({
        title: Nullable(Type.String()),
        excerpt: Type.String(),
        sha256: Type.String(),
        fetched_at: Timestamp,
      }),
    ),
    outputs: Type.Array(RepurposeOutputItem),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    generated_by: Nullable(GeneratedBy),
    approval_batch_id: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: NullableTimestamp,
  }),
  {
    id: 'rep_01jdq4x1k9m2v7c3r5t8w0yz6b',
    object: 'repurpose_job',
    brand_id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6a',
    source: { type: 'url', url: 'https://example.com/blog/launch' },
    targets: [{ platform: 'x', format: 'thread', count: 1 }],
    options: { hashtags: true },
    output: { mode: 'draft' },
    status: 'completed',
    source_snapshot: {
      title: 'We ship on Monday',
      excerpt: 'After a year of work, the new editor ships on Monday.',
      sha256: '9f2c0e4b8a7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3',
      fetched_at: '2026-11-26T10:00:01.000Z',
    },
    outputs: [
      {
        id: 'out_1',
        platform: 'x',
        format: 'thread',
        status: 'created',
        content: 'We ship on Monday 1/2\n\nAfter a year of work, the new editor ships. 2/2',
        parts: ['We ship on Monday 1/2', 'After a year of work, the new editor ships. 2/2'],
        char_count: 47,
        within_limit: true,
        hashtags: ['#editor'],
        post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6c',
        approval_item_id: null,
        error: null,
      },
    ],
    error: null,
    generated_by: { engine: 'extractive', provider: 'deterministic', model: null },
    approval_batch_id: null,
    created_at: '2026-11-26T10:00:00.000Z',
    updated_at: '2026-11-26T10:00:02.000Z',
    completed_at: '2026-11-26T10:00:02.000Z',
  },
);
