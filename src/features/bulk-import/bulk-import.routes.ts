// Routes of bulk imports (docs/queues.md "Bulk import"): schema, access and one service call each. Starting an
// import (or a dry run) takes `posts:write` and an Idempotency-Key like every post write; reading it, `posts:read`.
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import { BulkImportBody, ImportIdParams, PostImport, PostImportAnswer } from './bulk-import.schemas.ts';
import { MAX_IMPORT_ROWS, type BulkImportService } from './bulk-import.service.ts';

const read: RouteAccess = { scopes: ['posts:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['posts:write'], workspace: true, mutates: true };

export function registerBulkImportRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; bulkImport: BulkImportService },
): void {
  const app = typed(fastify);
  const tags = ['Posts'];
  const { bulkImport } = deps;

  app.post(
    '/posts/bulk',
    {
      config: { access: write },
      schema: {
        operationId: 'importPosts',
        tags,
        summary: 'Import posts in bulk',
        description: `Many posts at once, from a CSV file (\`media_id\` of an upload with \`content_type: text/csv\`) or a JSON list (\`rows\`), at most ${MAX_IMPORT_ROWS} rows. With \`dry_run: true\`, every row is checked against every platform rule and the table answers at once (200), nothing created. Otherwise the import is queued (202) and its job creates one post per valid row with \`created_via: queue_import\`; follow it with \`GET /posts/bulk/{id}\`. Rows are independent: a refused row is reported with its errors, the others are created. A second import of the same CSV media answers the first import (200) and creates nothing. Columns and fields: docs/queues.md "Bulk import".`,
        body: BulkImportBody,
        response: {
          200: Envelope(PostImportAnswer, 'The dry run’s table, or the import already made from this file.'),
          202: Envelope(PostImport, 'The import, queued.'),
        },
      },
    },
    mutation(deps, async (request, tx) => bulkImport.start(serviceContext(request, tx), request.body)),
  );

  app.get(
    '/posts/bulk/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getPostImport',
        tags,
        summary: 'Get a bulk import',
        description:
          'The import with its progress (`total`, `done`, `created`, `failed`) and the result of each row done so far: its `post_id`, or its `errors`. A key limited to some brands sees only imports made under them.',
        params: ImportIdParams,
        response: { 200: Envelope(PostImport) },
      },
    },
    async (request) => bulkImport.get(serviceContext(request, deps.pool), request.params.id),
  );
}
