// Routes of the keys API (scope `keys:manage`, never part of `all`) and the scope catalogue the key form reads
// (GET /v1/scopes, public like GET /v1/platforms): schema, access and one service call each.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Pool, Queryable } from '../../db/pool.ts';
import type { RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { AppError } from '../../app/errors.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Authenticator } from './authenticator.ts';
import { apiKeyJson, createOwnKey, getOwnKey, listOwnKeys, revokeOwnKey, type KeyCaller } from './keys.manage.ts';
import { ApiKey, ApiKeyWithSecret, CreateKeyBody, KeyIdParams, ListKeysQuery, ScopeList } from './keys.schemas.ts';
import { ALL_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from './scopes.ts';

const read: RouteAccess = { scopes: ['keys:manage'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['keys:manage'], workspace: true, mutates: true };
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});

function caller(request: FastifyRequest, db: Queryable): KeyCaller {
  const { principal, workspaceId } = request.ctx;
  if (!principal || !workspaceId) throw new AppError('PUBLIC_API_INTERNAL_ERROR', 'Request context missing.');
  return { db, principal, workspaceId };
}

/** Every scope with its sentence and area, in the catalogue's order (which groups them by area). */
export function scopeCatalogue() {
  return {
    items: SCOPES.map((name) => ({
      object: 'scope' as const,
      name,
      area: name.split(':')[0]!,
      description: SCOPE_DESCRIPTIONS[name],
      in_all: ALL_SCOPES.includes(name),
    })),
  };
}

export function registerKeysRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; authenticator: Authenticator; clock: Clock },
): void {
  const app = typed(fastify);
  const tags = ['Keys'];

  app.get(
    '/scopes',
    {
      config: { access: { scopes: 'public', workspace: false, mutates: false } },
      schema: {
        operationId: 'listScopes',
        tags,
        summary: 'List every scope, with what it allows',
        description:
          'No key needed. `in_all: false` marks the scopes over keys and members, which `--scopes all` never grants.',
        security: [],
        response: { 200: Envelope(ScopeList) },
      },
    },
    async () => scopeCatalogue(),
  );

  app.get(
    '/keys',
    {
      config: { access: read },
      schema: {
        operationId: 'listKeys',
        tags,
        summary: 'List your API keys that reach this workspace',
        description:
          'Your own live keys (made by you, by the CLI for you, or issued to an assistant through OAuth, shown with its name). The secret is never shown again.',
        querystring: ListKeysQuery,
        response: { 200: Envelope(ListOf(ApiKey)) },
      },
    },
    async (request) => listOwnKeys(caller(request, deps.pool), request.query),
  );

  app.post(
    '/keys',
    {
      config: { access: write },
      schema: {
        operationId: 'createKey',
        tags,
        summary: 'Create an API key',
        description:
          "The answer holds the key in `secret`, shown only here. The key never holds more than you: a scope you lack or your role forbids, a workspace or brand you cannot reach → 403; an expiry after your own key's → 422.",
        body: CreateKeyBody,
        response: { 201: Envelope(ApiKeyWithSecret, 'The key, with its secret (shown once).') },
      },
    },
    mutation(
      deps,
      async (request, tx) => {
        const made = await createOwnKey(caller(request, tx), request.body, deps.clock.now());
        return { status: 201, data: { ...apiKeyJson({ ...made.row, client_name: null }), secret: made.key } };
      },
      { secret: true },
    ),
  );

  app.get(
    '/keys/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getKey',
        tags,
        summary: 'Get one of your API keys',
        params: KeyIdParams,
        response: { 200: Envelope(ApiKey) },
      },
    },
    async (request) => apiKeyJson(await getOwnKey(caller(request, deps.pool), request.params.id)),
  );

  app.delete(
    '/keys/:id',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'revokeKey',
        tags,
        summary: 'Revoke one of your API keys, at once',
        description:
          'The key is refused from the next request on, by every process. Revoking the key of an OAuth grant ends the grant too.',
        params: KeyIdParams,
        body: NoBody,
        response: { 200: Envelope(ApiKey) },
      },
      // The revocation has committed when the answer is sent: this process forgets the key before the client can
      // try it again (the others on the NOTIFY).
      onSend: async (request, _reply, payload) => {
        deps.authenticator.evict((request.params as { id: string }).id);
        return payload;
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: apiKeyJson(await revokeOwnKey(caller(request, tx), request.params.id)),
    })),
  );
}
