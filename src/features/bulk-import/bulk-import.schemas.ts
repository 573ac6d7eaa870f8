// TypeBox schemas of the bulk import API (docs/queues.md "Bulk import"): the request, a dry run's table, and the
// import resource with its progress and row results.
import { Type, type Static } from 'typebox';
import { IdempotencyKeyField } from '../../app/idempotency-field.ts';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { DRY_RUN_EXAMPLE, IMPORT_EXAMPLE, REQUEST_EXAMPLE } from './bulk-import.examples.ts';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export const ROW_STATUSES = ['ok', 'error'] as const;

export const BulkImportBody = Type.Object(
  {
    media_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'A CSV file uploaded through `POST /v1/media/upload-url` with `content_type: text/csv` (UTF-8, the first line names the columns; docs/queues.md "Bulk import"). Not together with `rows`.',
      }),
    ),
    rows: Type.Optional(
      Type.Array(
        Type.Unsafe<Record<string, unknown>>({
          type: 'object',
          description:
            'One post, with the fields of `POST /v1/posts` (`content`, `platforms` or `connection_ids`, `schedule_at` and `timezone`, `media_ids`, `platform_options`, `brand_id`, `metadata`) plus `media_urls` (fetched as media by URL) and `queue` (`next` or `last`) with `queue_id`. Each row is checked on its own: a bad row is reported, never a 400 for the request.',
        }),
        { description: 'The posts as JSON, in order. Not together with `media_id`.' },
      ),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        description: 'Check every row against every platform rule and answer the table at once; nothing is created.',
      }),
    ),
    idempotency_key: IdempotencyKeyField,
  },
  { additionalProperties: false, examples: [REQUEST_EXAMPLE] },
);
export type BulkImportBody = Static<typeof BulkImportBody>;

export const ImportIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The import id (`imp_…`).',
    examples: ['imp_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

const RowErrorSchema = Type.Object({
  code: Type.String({
    description:
      'What is wrong: a posts rule (`text_too_long`, `schedule_in_past`, …) or an import rule (`unknown_column`, `platform_unknown`, `schedule_invalid`, `value_invalid`, `field_required`, `connection_unknown`, `url_address_blocked`, …).',
  }),
  message: Type.String(),
  field: Type.Union([Type.String(), Type.Null()], {
    description: 'The column (CSV: `x.reply_settings`) or field (JSON: `platform_options.x.reply_settings`) at fault.',
  }),
  platform: Type.Union([StringEnum(PLATFORM_NAMES), Type.Null()]),
});

const DryRunRowSchema = Type.Object({
  row: Type.Integer({ minimum: 1, description: 'The row number: 1 is the first row after the header line.' }),
  status: StringEnum(ROW_STATUSES),
  errors: Type.Array(RowErrorSchema),
  preview: Type.Optional(
    Type.Object(
      {
        schedule_at: Type.Union([Type.String(), Type.Null()]),
        platforms: Type.Array(Type.Object({ platform: StringEnum(PLATFORM_NAMES), text: Type.String() }), {
          description: "Per platform, the first part's text exactly as it would be published.",
        }),
      },
      { description: 'What the row would publish, when it got as far as the platform rules.' },
    ),
  ),
});

export const BulkImportDryRun = named(
  'PostImportDryRun',
  Type.Object({
    object: Type.Literal('post_import_dry_run'),
    total: Type.Integer(),
    valid: Type.Integer(),
    invalid: Type.Integer(),
    rows: Type.Array(DryRunRowSchema),
  }),
  DRY_RUN_EXAMPLE,
);

export const PostImport = named(
  'PostImport',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('post_import'),
    status: StringEnum(IMPORT_STATUSES, {
      description:
        '`queued`, `running` (rows are being created), `completed` (every row has its result), `failed` (see `error`).',
    }),
    source: Type.Object({
      type: StringEnum(['csv', 'rows'] as const),
      media_id: Type.Union([Type.String(), Type.Null()]),
    }),
    total: Type.Integer({ description: 'Rows in the import.' }),
    done: Type.Integer({ description: 'Rows with a result so far.' }),
    created: Type.Integer({ description: 'Rows that became a post.' }),
    failed: Type.Integer({ description: 'Rows refused (see their `errors`).' }),
    rows: Type.Array(
      Type.Object({
        row: Type.Integer({ minimum: 1 }),
        status: StringEnum(ROW_STATUSES),
        post_id: Type.Union([Type.String(), Type.Null()]),
        errors: Type.Array(RowErrorSchema),
      }),
      { description: 'The result of each row done so far, in order.' },
    ),
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
    approval_batch_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'The approval batch that the posts the approval policy held joined, for `POST /v1/approvals/batches/{id}/actions` (null: none held).',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: NullableTimestamp,
  }),
  IMPORT_EXAMPLE,
);

/** What `POST /posts/bulk` answers with 200: a dry run's table, or the import already made from that file. */
export const PostImportAnswer = named(
  'PostImportAnswer',
  Type.Union([BulkImportDryRun, PostImport], {
    description: 'A dry run answers `post_import_dry_run`; a second import of the same CSV answers its `post_import`.',
  }),
  DRY_RUN_EXAMPLE,
);

named('BulkImportRequest', BulkImportBody);
