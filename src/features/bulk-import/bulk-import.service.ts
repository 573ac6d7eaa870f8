// Bulk imports (docs/queues.md "Bulk import"): `POST /v1/posts/bulk` reads the rows (a CSV media or a JSON list),
// then either checks every row now (`dry_run`, nothing written) or records the import and queues its
// `import_posts` job in the caller's transaction; `GET /v1/posts/bulk/{id}` shows its progress and row results.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../../app/context.ts';
import { AppError, isAppError, notFound, validationFailed } from '../../app/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { findMedia } from '../media/media.repo.ts';
import { parseCsv } from './bulk-import.csv.ts';
import { prepareRow, rowErrorOf, validateRow, type PrepareDeps } from './bulk-import.prepare.ts';
import * as repo from './bulk-import.repo.ts';
import type { RowError } from './bulk-import.rows.ts';
import type { BulkImportBody } from './bulk-import.schemas.ts';
import { renderImport } from './bulk-import.view.ts';

/** The most rows one import takes (docs/queues.md "Bulk import"); more is a 422 before anything is read further. */
export const MAX_IMPORT_ROWS = 5000;
/** Attempts of the job: a run killed midway is retried, and skips the rows already recorded. */
export const IMPORT_ATTEMPTS = 5;

export interface BulkImportDeps extends PrepareDeps {
  media: { openMediaStream(storageKey: string): Promise<Readable> };
}

export interface DryRunRow {
  row: number;
  status: 'ok' | 'error';
  errors: RowError[];
  preview?: { schedule_at: string | null; platforms: { platform: string; text: string }[] };
}

export async function queueImport(db: Queryable, workspaceId: string, importId: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job('import_posts', json_build_object('workspace_id', $1::text, 'import_id', $2::text),
              job_key => 'import_posts:' || $2, max_attempts => $3)`,
    [workspaceId, importId, IMPORT_ATTEMPTS],
  );
}

const refuse = (path: string, rule: string, message: string) =>
  validationFailed([{ platform: null, rule, message, path }], message);

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      stream.destroy();
      throw refuse('/media_id', 'csv_too_large', `The CSV file is larger than ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function createBulkImportService(deps: BulkImportDeps) {
  /** The rows of the request, as received: CSV records (header → cell) or JSON objects. */
  async function rowsOf(
    ctx: ServiceContext,
    body: BulkImportBody,
  ): Promise<{ rows: Record<string, unknown>[]; csv: boolean }> {
    if ((body.media_id === undefined) === (body.rows === undefined))
      throw new AppError('PUBLIC_API_BODY_INVALID', 'Send either media_id (a CSV file) or rows, not both.', {
        details: [
          {
            path: body.media_id === undefined ? '/rows' : '/media_id',
            message: 'send exactly one of media_id and rows',
          },
        ],
      });
    if (body.rows !== undefined) {
      if (body.rows.length > MAX_IMPORT_ROWS)
        throw refuse(
          '/rows',
          'import_too_many_rows',
          `An import takes at most ${MAX_IMPORT_ROWS} rows; this one has ${body.rows.length}.`,
        );
      return { rows: body.rows, csv: false };
    }
    const media = await findMedia(ctx.db, ctx.workspaceId, body.media_id!);
    if (!media) throw notFound('media');
    if (media.content_type !== 'text/csv')
      throw refuse(
        '/media_id',
        'media_not_csv',
        `Media ${media.id} is ${media.content_type ?? 'not fetched yet'}, not text/csv.`,
      );
    if (media.status !== 'ready' || !media.storage_key)
      throw refuse(
        '/media_id',
        'media_not_ready',
        `Media ${media.id} is ${media.status}: finish its upload first (with S3 storage, POST /v1/media/{id}/complete).`,
      );
    const bytes = await readAll(await deps.media.openMediaStream(media.storage_key), media.size_bytes ?? 0);
    const rows = parseCsv(bytes, MAX_IMPORT_ROWS + 1);
    if (rows.length > MAX_IMPORT_ROWS)
      throw refuse(
        '/media_id',
        'import_too_many_rows',
        `An import takes at most ${MAX_IMPORT_ROWS} rows; this file has more.`,
      );
    return { rows, csv: true };
  }

  async function dryRun(ctx: ServiceContext, rows: Record<string, unknown>[], csv: boolean) {
    const urls = new Map<string, RowError | null>();
    const results: DryRunRow[] = [];
    for (const [i, input] of rows.entries()) {
      const row = i + 1;
      try {
        const prepared = await prepareRow(deps, ctx, input, csv, urls);
        if ('errors' in prepared) {
          results.push({ row, status: 'error', errors: prepared.errors });
          continue;
        }
        const { errors, preview } = await validateRow(deps, ctx, prepared, csv);
        results.push({
          row,
          status: errors.length > 0 ? 'error' : 'ok',
          errors,
          preview: { schedule_at: prepared.body.schedule_at ?? null, platforms: preview },
        });
      } catch (error) {
        if (!isAppError(error)) throw error;
        const details = error.details?.length ? error.details : [{ message: error.message, path: '' }];
        results.push({ row, status: 'error', errors: details.map((d) => rowErrorOf(d, csv, error.code)) });
      }
    }
    const valid = results.filter((r) => r.status === 'ok').length;
    return {
      object: 'post_import_dry_run' as const,
      total: rows.length,
      valid,
      invalid: rows.length - valid,
      rows: results,
    };
  }

  async function findVisible(ctx: ServiceContext, id: string) {
    const record = await repo.findImport(ctx.db, ctx.workspaceId, id);
    const hidden = ctx.allowedBrandIds && !(record?.brand_id && ctx.allowedBrandIds.includes(record.brand_id));
    if (!record || hidden) throw notFound('post import');
    return record;
  }

  return {
    /** A dry run's table (`status` 200), or the import just queued (202) or already made from that file (200). */
    async start(ctx: ServiceContext, body: BulkImportBody) {
      const { rows, csv } = await rowsOf(ctx, body);
      if (rows.length === 0) throw refuse(csv ? '/media_id' : '/rows', 'import_empty', 'The import has no rows.');
      if (body.dry_run === true) return { status: 200 as const, data: await dryRun(ctx, rows, csv) };
      const record = await repo.insertImport(ctx.db, {
        id: newId('imp'),
        workspace_id: ctx.workspaceId,
        brand_id: ctx.brandId,
        media_id: csv ? body.media_id! : null,
        rows_sha256: createHash('sha256').update(JSON.stringify(rows)).digest('hex'),
        rows,
        context: {
          brand_id: ctx.brandId,
          brand_from_header: ctx.brandFromHeader,
          allowed_brand_ids: ctx.allowedBrandIds ? [...ctx.allowedBrandIds] : null,
          user_id: ctx.userId,
        },
        total: rows.length,
        created_by: ctx.userId,
      });
      if (!record) {
        // This file was imported already: its import answers, and nothing is created again.
        const existing = await repo.findImportOfMedia(ctx.db, ctx.workspaceId, body.media_id!);
        return { status: 200 as const, data: await renderImport(ctx.db, await findVisible(ctx, existing!.id)) };
      }
      await queueImport(ctx.db, ctx.workspaceId, record.id);
      return { status: 202 as const, data: await renderImport(ctx.db, record) };
    },

    async get(ctx: ServiceContext, id: string) {
      return renderImport(ctx.db, await findVisible(ctx, id));
    },
  };
}

export type BulkImportService = ReturnType<typeof createBulkImportService>;
