// The connections API: GET /v1/connections and /v1/connections/{id} (connections:read); connect links, refresh
// and disconnect (connections:write, Herald's addition to the seed's scopes). No token ever appears in an
// answer: the representation is built field by field from safe columns.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import type { SecretKeyring } from '../../lib/crypto.ts';
import { createConnectLink } from './connect.service.ts';
import { disconnect, refreshNow, type ConnectionActionDeps } from './connections.actions.ts';
import { Envelope, ListOf, named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { connectionJson, getConnection, listConnectionsFor } from './connections.service.ts';
import { ConnectionOptions } from './connection-options.ts';
import { sourcesOf } from '../inbox/ingest.repo.ts';
import { InboxStreamHealth, renderHealth } from '../inbox/ingest.view.ts';

export const CONNECTION_STATUSES = ['active', 'expired', 'disconnected'] as const;

export const Connection = Type.Object(
  {
    id: Type.String({ examples: ['conn_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('connection'),
    workspace_id: Type.String({ format: 'uuid' }),
    brand_id: Type.String(),
    platform: StringEnum(PLATFORM_NAMES),
    account_id: Type.String({
      description: "The platform's id of the account (X user id, Bluesky DID, Mastodon account id).",
    }),
    handle: Type.String(),
    display_name: Type.Union([Type.String(), Type.Null()]),
    avatar_url: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "The account's picture, where the platform gives one." }),
    ),
    server_url: Type.Union([Type.String(), Type.Null()], {
      description: 'The Mastodon instance or Bluesky PDS; null for sandbox connections and single-host platforms.',
    }),
    is_default: Type.Boolean({
      description: 'Used for this platform when a post names no connection (one default per brand × platform).',
    }),
    status: StringEnum(CONNECTION_STATUSES, {
      description: '`expired`: the platform stopped accepting the token; reconnect the account.',
    }),
    sandbox: Type.Boolean({ description: 'True for a simulated account (test workspaces only).' }),
    token_expires_at: NullableTimestamp,
    options: Type.Optional(ConnectionOptions),
    inbox: Type.Optional(
      Type.Array(InboxStreamHealth, {
        description:
          'GET /v1/connections/{id} only: the health of the inbox ingestion, per stream the platform gives (docs/inbox.md "Ingestion"). Empty until the first poll.',
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Connection', title: 'Connection' },
);

export const ListQuery = Type.Object(
  {
    platform: Type.Optional(StringEnum(PLATFORM_NAMES)),
    brand_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(StringEnum(CONNECTION_STATUSES)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type ListConnectionsQuery = Static<typeof ListQuery>;

const read: RouteAccess = { scopes: ['connections:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['connections:write'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };
const IdParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});

const CreateLinkBody = Type.Object(
  {
    platform: StringEnum(PLATFORM_NAMES, {
      description:
        'The platform to connect. `GET /v1/platforms` says which can be connected in live and test workspaces.',
    }),
    brand_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          "The brand the account will belong to; default: the header's brand, else the workspace's default brand.",
      }),
    ),
    redirect_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          'Where the end user lands at the end, with `connection_id` (or `error` and `error_description`) and `connect_link_id` added to the query. Absolute http(s) URL. Without it, Herald shows a page saying the outcome.',
      }),
    ),
    server_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Live workspaces: the Mastodon instance or Bluesky PDS of the account, if the client knows it (otherwise the hosted page asks). Checked by the SSRF guard.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ConnectLink = Type.Object(
  {
    id: Type.String({ examples: ['clink_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('connect_link'),
    url: Type.String({
      description:
        'The hosted page to send the end user to. Works once, until `expires_at`. It is a capability: do not log it.',
    }),
    platform: StringEnum(PLATFORM_NAMES),
    brand_id: Type.String(),
    sandbox: Type.Boolean({
      description: "True in a test workspace: the consent runs against the platform's simulator.",
    }),
    redirect_url: Type.Union([Type.String(), Type.Null()]),
    server_url: Type.Union([Type.String(), Type.Null()]),
    expires_at: Timestamp,
    created_at: Timestamp,
  },
  { title: 'ConnectLink' },
);

const CONNECTION_EXAMPLE = {
  id: 'conn_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'connection',
  workspace_id: '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83',
  brand_id: 'brand_default',
  platform: 'bluesky',
  account_id: 'did:plc:z72i7hdynmk6r22z27h6tvur',
  handle: 'herald.bsky.social',
  display_name: 'Herald',
  avatar_url: null,
  server_url: 'https://bsky.social',
  is_default: true,
  status: 'active',
  sandbox: false,
  token_expires_at: '2026-12-01T11:00:00Z',
  created_at: '2026-11-20T10:02:11Z',
  updated_at: '2026-11-26T08:00:00Z',
};

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('Connection', Connection, CONNECTION_EXAMPLE);
named('CreateConnectLinkRequest', CreateLinkBody, {
  platform: 'bluesky',
  redirect_url: 'https://app.example.com/settings/accounts',
});
named('ConnectLink', ConnectLink, {
  id: 'clink_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'connect_link',
  url: 'https://herald.example.com/connect/cl_4Qm9…',
  platform: 'bluesky',
  brand_id: 'brand_default',
  sandbox: false,
  redirect_url: 'https://app.example.com/settings/accounts',
  server_url: null,
  expires_at: '2026-11-26T15:12:09Z',
  created_at: '2026-11-26T14:12:09Z',
});
const Disconnected = named(
  'DisconnectedConnection',
  Type.Object({
    connection: Type.Ref('Connection'),
    revoked: Type.Boolean(),
    failed_targets: Type.Integer({ description: 'Scheduled targets failed by `force=true`.' }),
  }),
  {
    connection: { ...CONNECTION_EXAMPLE, status: 'disconnected', is_default: false, token_expires_at: null },
    revoked: true,
    failed_targets: 0,
  },
);

export interface ConnectionRoutesDeps extends ConnectionActionDeps {
  keyring: SecretKeyring;
  connectLinkTtlSeconds: number;
}

export function registerConnectionsRoutes(fastify: FastifyInstance, deps: ConnectionRoutesDeps): void {
  const app = typed(fastify);
  const tags = ['Connections'];

  app.post(
    '/connections/connect-links',
    {
      config: { access: write },
      schema: {
        operationId: 'createConnectLink',
        tags,
        summary: 'Create a connect link',
        description:
          "A short-lived, single-use hosted URL (`/connect/…`) that walks the end user through the platform's own consent (OAuth with state and PKCE; an instance form for Mastodon; handle and app password for Bluesky; a choice of Page or business account where the consent covers several) and lands them on `redirect_url` with the new `connection_id`, or with `error`: `access_denied`, `invalid_state`, `link_expired`, `link_used`, `exchange_failed`, `no_accounts`, `platform_unavailable`, `platform_error`. In a test workspace the flow runs against the simulator. A platform whose app credentials are not configured cannot be connected in live workspaces (422, rule `platform_unavailable`). Emits `connection.connected` when done.",
        body: CreateLinkBody,
        response: { 201: Envelope(ConnectLink, 'The link (its URL is shown only here).') },
      },
    },
    mutation(
      deps,
      async (request, tx) => ({
        status: 201,
        data: await createConnectLink(
          serviceContext(request, tx),
          { pool: deps.pool, access: deps.access, ttlSeconds: deps.connectLinkTtlSeconds },
          request.body,
        ),
      }),
      { secret: true },
    ),
  );

  app.post(
    '/connections/:id/refresh',
    {
      config: { access: action },
      schema: {
        operationId: 'refreshConnection',
        tags,
        summary: 'Refresh a connection now',
        description:
          'Renews the authorisation at once: tokens that expire are refreshed (rotating refresh tokens kept atomically), tokens that do not (Mastodon) are checked with the platform. Herald also does this by itself ahead of expiry. If the platform refuses, the connection becomes `expired` (`connection.expired` is emitted) and the answer is 409 with rule `PLATFORM_RECONNECT_REQUIRED`; if the platform cannot be reached, 503 and nothing changes.',
        params: IdParams,
        body: NoBody,
        response: { 200: Envelope(Type.Ref('Connection')) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await refreshNow(serviceContext(request, tx), deps, request.params.id),
    })),
  );

  app.delete(
    '/connections/:id',
    {
      config: { access: action },
      schema: {
        operationId: 'deleteConnection',
        tags,
        summary: 'Disconnect a connection',
        description:
          'Revokes the token at the platform where it supports revocation (`revoked` says whether it did), forgets it, and marks the connection `disconnected` (`connection.disconnected` is emitted); another account of the brand becomes the default. Refused with 409 `PUBLIC_API_STATE_CONFLICT` while scheduled posts will publish through it, unless `force=true`, which fails those targets with `PLATFORM_CONNECTION_UNAVAILABLE`.',
        params: IdParams,
        querystring: Type.Object(
          {
            force: Type.Optional(
              Type.Boolean({
                default: false,
                description: 'Fail the scheduled targets that depend on the connection instead of refusing.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Disconnected),
        },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await disconnect(serviceContext(request, tx), deps, request.params.id, request.query.force === true),
    })),
  );
  app.get(
    '/connections',
    {
      config: { access: read },
      schema: {
        operationId: 'listConnections',
        tags,
        summary: 'List connections',
        description:
          'The platform accounts of the workspace (of the brand in `x-herald-brand-id`, if sent), newest first.',
        querystring: ListQuery,
        response: { 200: Envelope(ListOf(Type.Ref('Connection'))) },
      },
    },
    async (request) => listConnectionsFor(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/connections/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getConnection',
        tags,
        summary: 'Get a connection',
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: { 200: Envelope(Type.Ref('Connection')) },
      },
    },
    async (request) => {
      const ctx = serviceContext(request, deps.pool);
      const row = await getConnection(deps.pool, ctx.workspaceId, request.params.id, ctx.allowedBrandIds);
      return { ...connectionJson(row), inbox: renderHealth(await sourcesOf(deps.pool, ctx.workspaceId, row.id)) };
    },
  );
}
