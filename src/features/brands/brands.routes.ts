// Routes of the brands API: schema, access and one service call each. Reading takes `brand:read`; creating,
// changing and deleting take `brand:write` (admins and owners: src/features/workspaces/roles.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import { type IdempotencyDeps } from '../../app/idempotency.ts';
import { BrandIdParams, CreateBrandBody, ListBrandsQuery, UpdateBrandBody } from './brands.schemas.ts';
import { DeletedBrand } from './brands.view.schemas.ts';
import {
  brandContext,
  brandContextJson,
  createBrand,
  deleteBrand,
  getBrand,
  listBrands,
  updateBrand,
} from './brands.service.ts';
import { BRAND_CONTEXT_MAX_CHARS } from './context.ts';

const read: RouteAccess = { scopes: ['brand:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['brand:write'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };
const BrandRef = Type.Ref('Brand');
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});

export function registerBrandsRoutes(fastify: FastifyInstance, deps: IdempotencyDeps & { pool: Pool }): void {
  const app = typed(fastify);
  const tags = ['Brands'];

  app.get(
    '/brands',
    {
      config: { access: read },
      schema: {
        operationId: 'listBrands',
        tags,
        summary: 'List brands',
        description:
          'Brands of the workspace, oldest first, paginated by an opaque cursor. A key limited to some brands lists only those; with `x-herald-brand-id`, only that brand.',
        querystring: ListBrandsQuery,
        response: { 200: Envelope(ListOf(BrandRef)) },
      },
    },
    async (request) => listBrands(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/brands/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getBrand',
        tags,
        summary: 'Get a brand',
        description: 'Every setting of the brand, with defaults filled in, and its `version`.',
        params: BrandIdParams,
        response: { 200: Envelope(BrandRef) },
      },
    },
    async (request) => getBrand(serviceContext(request, deps.pool), request.params.id),
  );

  app.get(
    '/brands/:id/context',
    {
      config: { access: read },
      schema: {
        operationId: 'getBrandContext',
        tags,
        summary: 'Get the compiled brand context',
        description: `The brand compiled for a prompt: \`text\` (at most ${BRAND_CONTEXT_MAX_CHARS.toLocaleString('en')} characters; what is cut first to fit is in docs/api.md "Brand context" and listed in \`truncated\`) and the structured \`fields\` it was made from.`,
        params: BrandIdParams,
        response: { 200: Envelope(Type.Ref('BrandContext')) },
      },
    },
    async (request) => brandContextJson(await brandContext(serviceContext(request, deps.pool), request.params.id)),
  );

  app.post(
    '/brands',
    {
      config: { access: write },
      schema: {
        operationId: 'createBrand',
        tags,
        summary: 'Create a brand',
        description:
          'A new brand of the workspace (never the default one). `slug` is made from `name` when absent. Media it names (logo, documents) must be ready and in this workspace. A key limited to some brands cannot create one (403 `PUBLIC_API_BRAND_FORBIDDEN`). Emits `brand.created`.',
        body: CreateBrandBody,
        response: { 201: Envelope(BrandRef, 'The brand was created.') },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await createBrand(serviceContext(request, tx), request.body),
    })),
  );

  app.patch(
    '/brands/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateBrand',
        tags,
        summary: 'Edit a brand',
        description:
          'A JSON Merge Patch (RFC 7396) with the `version` you read: 409 `PUBLIC_API_VERSION_CONFLICT` when the brand changed since. Emits `brand.updated` with the fields changed; a patch that changes nothing answers the brand as it is.',
        params: BrandIdParams,
        body: UpdateBrandBody,
        response: { 200: Envelope(BrandRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await updateBrand(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/brands/:id',
    {
      config: { access: action },
      schema: {
        operationId: 'deleteBrand',
        tags,
        summary: 'Delete a brand',
        description:
          "Hides the brand: its posts stay readable. Refused with 409 `PUBLIC_API_STATE_CONFLICT` for the workspace's default brand, while the brand has posts still to be published (scheduled, awaiting approval, publishing), and while it has connected accounts. Emits `brand.deleted`.",
        params: BrandIdParams,
        body: NoBody,
        response: { 200: Envelope(DeletedBrand) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await deleteBrand(serviceContext(request, tx), request.params.id),
    })),
  );
}
