// OAuth errors as RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 7009 define them: `{ error, error_description }` with
// the status each code calls for. The /oauth context's error handler turns anything else into one of these,
// never a 500 with internals and never the /v1 envelope.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../db/pool.ts';
import { AppError } from '../../app/errors.ts';

import { OAuthError, type OAuthErrorCode } from '../../features/oauth/oauth-error.ts';

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply
    .code(error.status)
    .headers({ ...error.headers, 'cache-control': 'no-store', pragma: 'no-cache' })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: error.code, error_description: error.message }));
}

/** Any failure → the OAuth error a client can act on. `fallback` is the code for malformed requests. */
export function toOAuthError(error: unknown, fallback: OAuthErrorCode = 'invalid_request'): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  if (error instanceof AppError) {
    if (error.code === 'PUBLIC_API_UNAVAILABLE')
      return new OAuthError('temporarily_unavailable', error.message, error.headers);
    if (error.code === 'PUBLIC_API_RATE_LIMITED')
      return new OAuthError('too_many_requests', error.message, error.headers);
    if (error.status < 500) return new OAuthError(fallback, error.message, error.headers);
    return undefined;
  }
  if (isDatabaseUnavailable(error))
    return new OAuthError(
      'temporarily_unavailable',
      'The database is unavailable; nothing was changed. Retry shortly.',
      { 'retry-after': '2' },
    );
  const status = (error as FastifyError | undefined)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new OAuthError(
      fallback,
      status === 413
        ? 'The request body is too large.'
        : status === 415
          ? 'Unsupported Content-Type.'
          : 'The request is malformed.',
    );
  }
  return undefined;
}

export function registerOAuthErrorHandler(app: FastifyInstance, fallback: OAuthErrorCode = 'invalid_request'): void {
  app.setErrorHandler((error, request: FastifyRequest, reply) => {
    const known = toOAuthError(error, fallback);
    if (known) return sendOAuthError(reply, known);
    request.log.error({ err: error }, 'oauth endpoint failed');
    return sendOAuthError(
      reply,
      new OAuthError('server_error', `Something went wrong on our side. Quote ${request.id} if you report it.`),
    );
  });
}
