// The Fastify face of idempotent writes: a route's mutating handler claims the request's Idempotency-Key and
// runs through runIdempotent (src/app/idempotency.ts), which REST and MCP share.
import type {
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  FastifyTypeProvider,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { PoolClient } from '../db/pool.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { sha256 } from '../lib/crypto.ts';
import { AppError } from '../app/errors.ts';
import {
  IDEMPOTENCY_TTL_SECONDS,
  runIdempotent,
  type IdempotencyDeps,
  type MutationOptions,
  type MutationResult,
} from '../app/idempotency.ts';

/** What makes two requests "the same request" for an idempotency key. */
export function fingerprint(request: FastifyRequest): Buffer {
  const [path, query = ''] = request.url.split('?', 2) as [string, string?];
  const sortedQuery = [...new URLSearchParams(query).entries()]
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const body = request.body === undefined || request.body === null ? '{}' : canonicalJson(request.body);
  const parts = [
    request.method,
    path,
    sortedQuery,
    String(request.headers['x-herald-workspace-id'] ?? '')
      .trim()
      .toLowerCase(),
    String(request.headers['x-herald-brand-id'] ?? '').trim(),
    body,
  ];
  return sha256(parts.join('\n'));
}

/**
 * A route's request as Fastify hands it to the handler, spelled by its parts so that `mutation` infers them from
 * the route it is passed to (schema and type provider): the wrapped handler then sees typed body, params, query.
 */
type RouteRequest<
  RouteGeneric extends RouteGenericInterface,
  SchemaCompiler extends FastifySchema,
  TypeProvider extends FastifyTypeProvider,
  ContextConfig,
> = FastifyRequest<
  RouteGeneric,
  RawServerDefault,
  RawRequestDefaultExpression,
  SchemaCompiler,
  TypeProvider,
  ContextConfig
>;

/**
 * Wraps a mutating handler: claims the idempotency key, runs `handler` in a transaction, stores and sends the
 * enveloped answer, or replays the stored answer for a retry.
 */
export function mutation<
  RouteGeneric extends RouteGenericInterface,
  SchemaCompiler extends FastifySchema,
  TypeProvider extends FastifyTypeProvider,
  ContextConfig,
>(
  deps: IdempotencyDeps,
  handler: (
    request: RouteRequest<RouteGeneric, SchemaCompiler, TypeProvider, ContextConfig>,
    tx: PoolClient,
  ) => Promise<MutationResult>,
  options: MutationOptions = {},
) {
  return async function idempotentHandler(
    request: RouteRequest<RouteGeneric, SchemaCompiler, TypeProvider, ContextConfig>,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const key = request.ctx.idempotencyKey;
    const principal = request.ctx.principal;
    if (!key || !principal) throw new AppError('PUBLIC_API_IDEMPOTENCY_REQUIRED', 'Send an Idempotency-Key header.');
    const claim = {
      workspaceId: request.ctx.workspaceId,
      userId: principal.userId,
      key,
      fingerprint: fingerprint(request),
      ttlSeconds: IDEMPOTENCY_TTL_SECONDS,
      brandIds: principal.brandIds,
    };
    const answer = await runIdempotent(deps, claim, request.id, (tx) => handler(request, tx), options);
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.text);
  };
}
