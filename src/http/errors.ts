// One error handler for the whole server: AppErrors keep their code; Fastify's own errors (validation, body
// size, content type) are translated into the catalogue; a lost database becomes 503; anything else is a 500
// whose details go to the log only. Unknown routes get 404, known routes with another method 405 + Allow.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode } from '../app/errors.ts';
import { errorBody } from '../app/envelope.ts';
import { toAppError } from '../app/errors.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: AppError,
  docsBaseUrl: string,
): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  reply.code(error.status);
  if (request.ctx?.envelope)
    return reply
      .type('application/json; charset=utf-8')
      .send(errorBody(request.id, error.code, error.message, docsBaseUrl, error.details));
  // Outside /v1: a small JSON body, not the envelope (docs/api.md "Envelope").
  return reply.type('application/json; charset=utf-8').send({ error: error.code, message: error.message });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered (method, URL pattern): the route index, also read by tests. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

export function registerErrorHandling(app: FastifyInstance, docsBaseUrl: string): void {
  // Our own index of routes by path, to tell "no such route" (404) from "not with this method" (405).
  const index = FindMyWay();
  const table: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (!(METHODS as readonly string[]).includes(method)) continue;
      table.push({ method, url: route.url });
      try {
        index.on(method as (typeof METHODS)[number], route.url, () => {});
      } catch {
        // Already registered (e.g. the HEAD twin of a GET): nothing to add.
      }
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const known = toAppError(error);
    if (known) {
      if (known.code === 'PUBLIC_API_UNAVAILABLE') request.log.warn({ err: error }, 'database unavailable');
      return sendError(request, reply, known, docsBaseUrl);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      request,
      reply,
      new AppError(
        'PUBLIC_API_INTERNAL_ERROR',
        `Something went wrong on our side. Quote request id ${request.id} if you report it.`,
      ),
      docsBaseUrl,
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => index.find(m, path) !== null);
    if (allowed.length > 0) {
      return sendError(
        request,
        reply,
        new AppError(
          'PUBLIC_API_METHOD_NOT_ALLOWED',
          `${request.method} is not supported here; use ${allowed.join(', ')}.`,
          { headers: { allow: allowed.join(', ') } },
        ),
        docsBaseUrl,
      );
    }
    return sendError(
      request,
      reply,
      new AppError('PUBLIC_API_ROUTE_NOT_FOUND', `No route ${request.method} ${path}.`),
      docsBaseUrl,
    );
  });
}

/** The body of an answer given outside Fastify's request cycle: the envelope under /v1, the small JSON elsewhere. */
function earlyErrorBody(url: string, requestId: string, code: ErrorCode, message: string, docsBaseUrl: string): string {
  return JSON.stringify(
    url.startsWith('/v1') ? errorBody(requestId, code, message, docsBaseUrl) : { error: code, message },
  );
}

/**
 * Fastify's `frameworkErrors`: a path whose percent-encoding is not UTF-8 (`/v1/posts/%FF`) fails before any
 * hook runs. It gets the catalogue's 400 with the envelope, not Fastify's own body (or no answer at all).
 */
export function frameworkErrorHandler(docsBaseUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const message =
      error.code === 'FST_ERR_BAD_URL'
        ? 'The path is not valid: percent-encoded bytes must be UTF-8.'
        : 'The request could not be routed.';
    void reply
      .header('x-request-id', request.id)
      .code(400)
      .type('application/json; charset=utf-8')
      .send(earlyErrorBody(request.url, request.id, 'PUBLIC_API_QUERY_INVALID', message, docsBaseUrl));
  };
}

/**
 * Node's `clientError`: a request Node's HTTP parser rejects (bytes outside ASCII in the request line, a broken
 * header, headers over the size limit) never reaches Fastify. Answer 400 with the envelope and close.
 */
export function clientErrorHandler(docsBaseUrl: string, newId: () => string) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const id = newId();
    const reason =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'its headers are larger than this server accepts'
        : 'it is not valid HTTP/1.1 (for example raw bytes outside ASCII in the request line)';
    const body = earlyErrorBody(
      '/v1',
      id,
      'PUBLIC_API_BODY_INVALID',
      `The request could not be read: ${reason}.`,
      docsBaseUrl,
    );
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
