// GET /v1/connections and /v1/connections/{id}: the platform accounts of the workspace (connections:read).
// No token ever appears in an answer: the representation is built field by field from safe columns.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf, NullableTimestamp, StringEnum, Timestamp } from '../../http/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { connectionJson, getConnection, listConnectionsFor } from './connections.service.ts';

export const Connection = Type.Object({
  id: Type.String({ examples: ['conn_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
  object: Type.Literal('connection'),
  workspace_id: Type.String({ format: 'uuid' }),
  brand_id: Type.String(),
  platform: StringEnum(PLATFORM_NAMES),
  account_id: Type.String({ description: "The platform's id of the account (X user id, Bluesky DID, Mastodon account id)." }),
  handle: Type.String(),
  display_name: Type.Union([Type.String(), Type.Null()]),
  server_url: Type.Union([Type.String(), Type.Null()], { description: 'The Mastodon instance or Bluesky PDS; null for sandbox connections and single-host platforms.' }),
  is_default: Type.Boolean({ description: "Used for this platform when a post names no connection (one default per brand × platform)." }),
  status: StringEnum(['active', 'expired', 'disconnected'], { description: '`expired`: the platform stopped accepting the token; reconnect the account.' }),
  sandbox: Type.Boolean({ description: 'True for a simulated account (test workspaces only).' }),
  token_expires_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Connection', title: 'Connection' });

export const ListQuery = Type.Object({
  platform: Type.Optional(StringEnum(PLATFORM_NAMES)),
  brand_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(StringEnum(['active', 'expired', 'disconnected'])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 1000 })),
}, { additionalProperties: false });
export type ListConnectionsQuery = Static<typeof ListQuery>;

const read: RouteAccess = { scopes: ['connections:read'], workspace: true, mutates: false };

export function registerConnectionsRoutes(app: FastifyInstance, deps: { pool: Pool }): void {
  const tags = ['Connections'];
  app.get('/connections', {
    config: { access: read },
    schema: {
      operationId: 'listConnections', tags, summary: 'List connections',
      description: 'The platform accounts of the workspace (of the brand in `x-herald-brand-id`, if sent), newest first.',
      querystring: ListQuery, response: { 200: Envelope(ListOf(Type.Ref('Connection'))) },
    },
  }, async (request) => listConnectionsFor(serviceContext(request, deps.pool), request.query as ListConnectionsQuery));

  app.get('/connections/:id', {
    config: { access: read },
    schema: {
      operationId: 'getConnection', tags, summary: 'Get a connection',
      params: Type.Object({ id: Type.String({ maxLength: 200 }) }), response: { 200: Envelope(Type.Ref('Connection')) },
    },
  }, async (request) => {
    const ctx = serviceContext(request, deps.pool);
    return connectionJson(await getConnection(deps.pool, ctx.workspaceId, (request.params as { id: string }).id, ctx.allowedBrandIds));
  });
}
