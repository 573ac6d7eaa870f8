// The local driver's own URLs, outside /v1: `PUT /uploads/{workspace}/{media}` (the signed upload) and
// `GET|HEAD /files/{workspace}/{media}` (the signed download). The upload is streamed: this plugin replaces the
// JSON body parser with one that hands the raw request stream to the handler, so a body of gigabytes never sits
// in memory; the size cap is enforced per URL (max_bytes) while streaming. Errors use the envelope.
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import type { RawQuerystring } from '../../http/type-provider.ts';
import type { MediaService } from './media.service.ts';
import { inlineDisposition } from './content-disposition.ts';
import { FILES_PATH, UPLOAD_PATH } from './storage/local.ts';

const UPLOAD_IDLE_TIMEOUT_MS = 120_000;

/** Paths whose errors and bodies use the API envelope (docs/api.md "Envelope"). */
export const TRANSFER_ENVELOPE_PREFIXES = [`${UPLOAD_PATH}/`, `${FILES_PATH}/`];

// These routes have no schemas (hidden; the service checks the signed query), so their request types say what the
// router and the parsers hand over.
interface SignedRoute {
  Params: { workspaceId: string; mediaId: string };
  Querystring: RawQuerystring;
}

interface UploadRoute extends SignedRoute {
  /** The request stream, from the catch-all parser below; undefined when the request has no body at all. */
  Body: Readable | undefined;
}

export async function registerLocalTransferRoutes(app: FastifyInstance, deps: { media: MediaService }): Promise<void> {
  const { media } = deps;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Any Content-Type: the body stays an unread stream (Fastify enforces no body limit on such a parser;
    // the service does, against the URL's own max_bytes). A missing or wrong type is the service's 415.
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    scope.put<UploadRoute>(`${UPLOAD_PATH}/:workspaceId/:mediaId`, { schema: { hide: true } }, async (request) => {
      const { workspaceId, mediaId } = request.params;
      // No overall request timeout (a 4 GiB upload may take an hour), but a client that stops sending is cut off.
      request.raw.setTimeout(UPLOAD_IDLE_TIMEOUT_MS, () => request.raw.destroy());
      return media.acceptLocalUpload({
        workspaceId,
        mediaId,
        expires: request.query.expires,
        signature: request.query.signature,
        contentType: request.headers['content-type'],
        contentLength: request.headers['content-length'],
        body: request.body ?? request.raw,
      });
    });

    // HEAD declared here, not derived from GET: Fastify's derived HEAD would read the whole file and discard it.
    scope.route<SignedRoute>({
      method: ['GET', 'HEAD'],
      url: `${FILES_PATH}/:workspaceId/:mediaId`,
      schema: { hide: true },
      handler: async (request, reply) => {
        const { workspaceId, mediaId } = request.params;
        const file = await media.openLocalFile({
          workspaceId,
          mediaId,
          expires: request.query.expires,
          signature: request.query.signature,
          variant: request.query.variant,
          range: request.headers.range,
        });
        reply
          .code(file.status)
          .header('content-type', file.media.content_type)
          .header('content-disposition', inlineDisposition(file.media.filename))
          .header('accept-ranges', 'bytes')
          .header('etag', `"${file.media.sha256}"`)
          .header('cache-control', 'private, max-age=60')
          .header('x-content-type-options', 'nosniff');
        if (file.range) {
          reply
            .header('content-range', `bytes ${file.range.start}-${file.range.end}/${file.size}`)
            .header('content-length', String(file.range.end - file.range.start + 1));
        } else {
          reply.header('content-length', String(file.size));
        }
        return request.method === 'HEAD' ? reply.send() : reply.send(await file.open());
      },
    });
  });
}
