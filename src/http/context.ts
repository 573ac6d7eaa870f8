// What a route declares about itself (scope, workspace, whether it mutates) and what the request pipeline
// learns about a request before its handler runs (who calls, for which workspace and brand).
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../features/keys/authenticator.ts';
import type { Scope } from '../features/keys/scopes.ts';
import type { WorkspaceMode } from '../app/context.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../app/errors.ts';
import type { ServiceContext } from '../app/context.ts';

export interface RouteAccess {
  /** The scopes that grant access (any one suffices; empty: any valid key), or 'public' for routes that need no key. */
  scopes: readonly Scope[] | 'public';
  /** The route reads or writes one workspace's data: the workspace header (or a single-workspace key) applies. */
  workspace: boolean;
  /** Mutating: needs an Idempotency-Key and spends the write budget. */
  mutates: boolean;
  /** Action POST/DELETE: accepts no body, or `{}`, with or without a Content-Type. */
  actionBody?: boolean;
  /**
   * The body may carry `idempotency_key` in place of the header, for callers that cannot set headers
   * (docs/api.md "Writes without an Idempotency-Key"); access.ts takes it out before the body is validated.
   */
  idempotencyField?: boolean;
}

export interface RequestContext {
  /** True for /v1 and the local upload URL: errors and bodies use the envelope. */
  envelope: boolean;
  principal: Principal | null;
  workspaceId: string | null;
  workspaceMode: WorkspaceMode | null;
  /** The brand of the `x-herald-brand-id` header, checked; null when the header is absent. */
  brandId: string | null;
  defaultBrandId: string | null;
  idempotencyKey: string | null;
  rateLimitHeaders: Record<string, string>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

export function emptyContext(envelope: boolean): RequestContext {
  return {
    envelope,
    principal: null,
    workspaceId: null,
    workspaceMode: null,
    brandId: null,
    defaultBrandId: null,
    idempotencyKey: null,
    rateLimitHeaders: {},
  };
}

export function serviceContext(request: FastifyRequest, db: Queryable): ServiceContext {
  const { ctx } = request;
  if (!ctx.principal || !ctx.workspaceId || !ctx.workspaceMode) {
    // A route declared `workspace: true` never reaches its handler without these; this guards wiring mistakes.
    throw new AppError('PUBLIC_API_INTERNAL_ERROR', 'Request context missing.');
  }
  return {
    db,
    workspaceId: ctx.workspaceId,
    workspaceMode: ctx.workspaceMode,
    brandId: ctx.brandId ?? ctx.defaultBrandId,
    brandFromHeader: ctx.brandId !== null,
    allowedBrandIds: ctx.principal.brandIds,
    userId: ctx.principal.userId,
    // A signed-in browser is the dashboard (docs/dashboard.md); a bearer key is the API.
    via: ctx.principal.kind === 'session' ? 'dashboard' : 'api',
  };
}
