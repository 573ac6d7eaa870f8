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
  CONTENT_DEDUP_TTL_SECONDS,
  contentClaimKey,
  contentClaimPrefix,
  IDEMPOTENCY_TTL_SECONDS,
  runIdempotent,
  type IdempotencyDeps,
  type MutationOptions,
  type MutationResult,
} from '../app/idempotency.ts';

/**
 * File references (`openaiFileIdRefs`, media.file-refs.ts) count by their file, not by their `download_link`: the
 * action platform signs a new link for each call, so an assistant's retry would otherwise never be a repeat.
 */
function withoutFileLinks(body: unknown): unknown {
  const refs = (body as { openaiFileIdRefs?: unknown }).openaiFileIdRefs;
  if (!Array.isArray(refs)) return body;
  return {
    ...(body as object),
    openaiFileIdRefs: refs.map((ref: unknown) => {
      if (ref === null || typeof ref !== 'object') return ref;
      const { download_link: _link, ...file } = ref as Record<string, unknown>;
      return file;
    }),
  };
}

/** The item a write acts on: its path up to the route's last parameter (`/v1/posts/<id>`); null for a create. */
function itemOf(request: FastifyRequest): string | null {
  const segments = (request.routeOptions.url ?? '').split('/');
  const last = segments.findLastIndex((segment) => segment.startsWith(':'));
  if (last < 0) return null;
  const params = (request.params ?? {}) as Record<string, unknown>;
  return segments
    .slice(0, last + 1)
    .map((segment) => (segment.startsWith(':') ? String(params[segment.slice(1)] ?? '') : segment))
    .join('/');
}

/** What makes two requests "the same request" for an idempotency key. */
export function fingerprint(request: FastifyRequest): Buffer {
  const [path, query = ''] = request.url.split('?', 2) as [string, string?];
  const sortedQuery = [...new URLSearchParams(query).entries()]
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const body =
    request.body === undefined || request.body === null ? '{}' : canonicalJson(withoutFileLinks(request.body));
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
    // No key of the caller's own: only an `actions` key gets here (access.ts), and its write is recognised by its
    // content for 10 minutes (docs/api.md "Writes without an Idempotency-Key").
    const byContent = !key && principal?.profile === 'actions';
    if ((!key && !byContent) || !principal)
      throw new AppError('PUBLIC_API_IDEMPOTENCY_REQUIRED', 'Send an Idempotency-Key header.');
    const print = fingerprint(request);
    // A write to an existing item (`/posts/:id`, `/posts/:id/publish`) is a repeat only of the previous write to that
    // item: after PATCH A then PATCH B, a new PATCH A must run, not replay the first answer over the current state.
    const item = byContent ? itemOf(request) : null;
    const prefix = contentClaimPrefix('rest', principal.keyId, item ?? 'create');
    const claim = {
      workspaceId: request.ctx.workspaceId,
      userId: principal.userId,
      key: key ?? contentClaimKey(prefix, print.toString('hex')),
      fingerprint: print,
      ttlSeconds: key ? IDEMPOTENCY_TTL_SECONDS : CONTENT_DEDUP_TTL_SECONDS,
      brandIds: principal.brandIds,
      ...(item ? { supersedes: prefix } : {}),
    };
    const answer = await runIdempotent(deps, claim, request.id, (tx) => handler(request, tx), options);
    let text = answer.text;
    if (answer.replayed) {
      reply.header('idempotent-replayed', 'true');
      // An actions key's caller sees no headers: its replay says so in the body too (`replayed: true`). Other
      // replays stay byte for byte the first answer (docs/api.md "Idempotency").
      if (principal.profile === 'actions')
        text = JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), replayed: true });
    }
    return reply.code(answer.status).type('application/json; charset=utf-8').send(text);
  };
}
