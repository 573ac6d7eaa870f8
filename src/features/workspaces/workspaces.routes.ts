// GET /v1/workspaces: the workspaces a key reaches (any key, no workspace header needed).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { Envelope, ListOf, named, StringEnum, Timestamp } from '../../app/envelope.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { typed } from '../../http/type-provider.ts';
import { listWorkspacesByIds } from './workspaces.repo.ts';
import { workspaceJson } from './workspaces.service.ts';

export const WORKSPACE_MODES = ['live', 'test'] as const;

const Workspace = named(
  'Workspace',
  Type.Object({
    id: Type.String({ format: 'uuid' }),
    object: Type.Literal('workspace'),
    name: Type.String(),
    mode: StringEnum(WORKSPACE_MODES, {
      description: '`test` workspaces hold only sandbox connections: nothing leaves the machine.',
    }),
    default_brand_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
  }),
  {
    id: '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83',
    object: 'workspace',
    name: 'Acme',
    mode: 'live',
    default_brand_id: 'brand_default',
    created_at: '2026-11-20T10:00:00Z',
  },
);

const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export function registerWorkspacesRoutes(fastify: FastifyInstance, deps: { pool: Pool }): void {
  typed(fastify).get(
    '/workspaces',
    {
      config: { access: { scopes: [], workspace: false, mutates: false } },
      schema: {
        operationId: 'listWorkspaces',
        tags: ['Workspaces'],
        summary: 'List the workspaces this key reaches',
        description: 'Any valid key may call this. Use an `id` as the `x-herald-workspace-id` header of other calls.',
        querystring: Query,
        response: { 200: Envelope(ListOf(Workspace)) },
      },
    },
    async (request) => {
      const { limit = 20, cursor } = request.query;
      const ids = request.ctx.principal!.reachable.map((w) => w.id);
      const after = cursor ? decodeCursor(cursor, 'workspaces') : undefined;
      const rows = await listWorkspacesByIds(
        deps.pool,
        ids,
        after && after.value ? { createdAt: new Date(after.value), id: after.id } : undefined,
        limit + 1,
      );
      const { page, ...more } = keysetPage(rows, limit, 'workspaces', (row) => row.created_at);
      return { items: page.map(workspaceJson), ...more };
    },
  );
}
