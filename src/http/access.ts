// The request pipeline in front of every /v1 handler, in order: key or session cookie (401; with the cookie, the
// CSRF token of a write, 403), rate limit (429), scope (403), workspace and brand (400/403), the caller's role
// there (403), Idempotency-Key header (400). Calls without a valid credential spend the client IP's budget;
// routes that need none too. Nothing here writes to the database.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import type { Authenticator, Principal } from '../features/keys/authenticator.ts';
import type { SessionPrincipals } from '../features/users/session-principal.ts';
import { findBrand } from '../features/workspaces/workspaces.repo.ts';
import { assertRoleAllows } from '../features/workspaces/roles.ts';
import { AppError } from '../app/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { emptyContext, type RouteAccess } from './context.ts';
import { budgetsFor, rateLimitHeaders, type Budget, type RateLimiter } from '../app/rate-limit.ts';

const UNKNOWN_ROUTE: RouteAccess = { scopes: 'public', workspace: false, mutates: false };
const FORGOTTEN_ROUTE: RouteAccess = { scopes: [], workspace: true, mutates: false };

/** A route's URL pattern (`/v1/posts/:id`) is under /v1. */
function isV1Pattern(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/');
}

/**
 * Whether an unmatched target reads as a /v1 path once resolved and decoded (`/V1/x`, `/v1%2Fx`, `/a/../v1/x`):
 * it only decides that the 404 uses the envelope and spends the anonymous budget; it grants nothing.
 */
function looksLikeV1(url: string): boolean {
  let path = url.split(/[?#]/)[0] ?? '';
  try {
    // The URL parser resolves `.` and `..` (also `%2e%2e`); slashes are collapsed first so `//v1` stays a path.
    path = decodeURIComponent(new URL(path.replace(/\/+/g, '/'), 'http://h').pathname);
  } catch {
    // Not UTF-8 percent-encoding: judge the raw spelling.
  }
  const first = path.split('/').find((segment) => segment !== '' && segment !== '.');
  return first !== undefined && /^v1\.*$/i.test(first);
}

export interface AccessDeps {
  config: Config;
  db: Queryable;
  authenticator: Authenticator;
  /** The dashboard's session cookie as a second credential (docs/api.md "Sessions"); absent: keys only. */
  sessions?: SessionPrincipals;
  rateLimiter: RateLimiter;
  isClosing(): boolean;
  /** Paths outside /v1 whose bodies use the envelope (the local upload URL). */
  envelopePrefixes: string[];
}

/** `Idempotency-Key`: 1–255 printable ASCII, bare or as a Structured Field string (`"abc"` means `abc`). */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) {
    const inner = key.slice(1, -1);
    // RFC 8941 sf-string: printable ASCII where `"` and `\` appear only escaped.
    if (!/^(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*$/.test(inner)) return undefined;
    key = inner.replace(/\\(["\\])/g, '$1');
  }
  if (key.length < 1 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) return undefined;
  return key;
}

/** The client address every anonymous budget is keyed on (the proxy's client when `HERALD_TRUST_PROXY` names it). */
export function clientIp(request: FastifyRequest): string {
  return request.ip || request.socket.remoteAddress || 'unknown';
}

export function registerAccess(app: FastifyInstance, deps: AccessDeps): void {
  const budgets = budgetsFor(deps.config.rateLimits);
  const brandCache = new Map<string, number>();

  async function spend(request: FastifyRequest, key: string, budget: Budget): Promise<void> {
    const decision = await deps.rateLimiter.take(key, budget);
    const headers = rateLimitHeaders(decision, budget.name);
    request.ctx.rateLimitHeaders = headers;
    if (!decision.allowed) {
      throw new AppError(
        'PUBLIC_API_RATE_LIMITED',
        `Rate limit of ${budget.limit} ${budget.name} requests per minute reached; retry in ${headers['retry-after']} s.`,
        { headers },
      );
    }
  }

  async function brandInWorkspace(workspaceId: string, brandId: string): Promise<boolean> {
    const cacheKey = `${workspaceId}/${brandId}`;
    const until = brandCache.get(cacheKey);
    if (until && until > Date.now()) return true;
    if (!(await findBrand(deps.db, workspaceId, brandId))) return false;
    if (brandCache.size > 10_000) brandCache.clear();
    brandCache.set(cacheKey, Date.now() + 1000);
    return true;
  }

  async function resolveWorkspace(request: FastifyRequest, principal: Principal): Promise<void> {
    const header = request.headers['x-herald-workspace-id'];
    let workspace: Principal['reachable'][number] | undefined;
    if (header !== undefined) {
      const id = Array.isArray(header) ? undefined : header.trim().toLowerCase();
      workspace = id && isUuid(id) ? principal.reachable.find((w) => w.id === id) : undefined;
      if (!workspace) throw new AppError('PUBLIC_API_WORKSPACE_FORBIDDEN', 'This key cannot reach that workspace.');
    } else if (principal.reachable.length === 1) {
      workspace = principal.reachable[0];
    } else if (principal.reachable.length === 0) {
      throw new AppError('PUBLIC_API_WORKSPACE_FORBIDDEN', 'This key reaches no workspace.');
    } else {
      throw new AppError(
        'PUBLIC_API_WORKSPACE_REQUIRED',
        'This key reaches several workspaces: send x-herald-workspace-id (GET /v1/workspaces lists them).',
      );
    }
    const ctx = request.ctx;
    ctx.workspaceId = workspace!.id;
    ctx.workspaceMode = workspace!.mode;
    const allowed = principal.brandIds;
    const defaultBrand = workspace!.default_brand_id;
    ctx.defaultBrandId = defaultBrand && (!allowed || allowed.includes(defaultBrand)) ? defaultBrand : null;
    const brandHeader = request.headers['x-herald-brand-id'];
    if (brandHeader !== undefined) {
      const brandId = Array.isArray(brandHeader) ? '' : brandHeader.trim();
      const ok =
        brandId !== '' &&
        brandId.length <= 100 &&
        (!allowed || allowed.includes(brandId)) &&
        (await brandInWorkspace(workspace!.id, brandId));
      if (!ok)
        throw new AppError(
          'PUBLIC_API_BRAND_FORBIDDEN',
          'That brand is not in this workspace or not reachable by this key.',
        );
      ctx.brandId = brandId;
    }
  }

  app.addHook('preValidation', async (request) => {
    const access = request.routeOptions.config?.access;
    if (!request.ctx?.principal || !access || access.scopes === 'public') return;
    if (access.mutates) checkBodyIdempotencyKey(request, access);
    else if (request.method === 'GET' && request.ctx.principal.profile === 'actions') actionsPageSize(request);
  });

  app.addHook('onRequest', async (request, reply) => {
    // Which pipeline applies is decided by the route the router matched, never by the raw URL: the router reads
    // `/%761/posts` and `http://x/v1/posts` as /v1/posts, so a check on the raw spelling would let them through.
    const matched = request.is404 ? undefined : request.routeOptions;
    const declared = matched?.config?.access;
    const isV1 = matched ? declared !== undefined || isV1Pattern(matched.url ?? '') : looksLikeV1(request.url);
    request.ctx = emptyContext(isV1 || deps.envelopePrefixes.some((p) => request.url.startsWith(p)));
    reply.header('x-request-id', request.id);
    if (deps.isClosing())
      throw new AppError(
        'PUBLIC_API_UNAVAILABLE',
        'The server is shutting down; retry on another instance or shortly.',
        { headers: { 'retry-after': '2', connection: 'close' } },
      );
    // Absolute-form (`GET http://host/v1/…`) and any other target that is not a path: only proxies receive
    // those, and the router would quietly strip the origin. Refused before anything reads the request.
    if (!request.url.startsWith('/')) {
      request.ctx.envelope = true;
      throw new AppError('PUBLIC_API_QUERY_INVALID', 'The request target must be a path starting with `/`.');
    }
    // A NUL in the path or query can only be a mistake or an attack, and no database text can hold it.
    if (/%00/.test(request.url))
      throw new AppError('PUBLIC_API_QUERY_INVALID', 'The URL contains an encoded NUL character (%00).');
    if (!isV1) return;
    reply.headers(request.ctx.rateLimitHeaders); // replaced below once a budget is spent
    // A /v1 route that forgot to declare its access fails closed (any valid key), never open.
    const access = declared ?? (matched ? FORGOTTEN_ROUTE : UNKNOWN_ROUTE);
    const ip = clientIp(request);
    try {
      await authorise(request, access, ip);
    } finally {
      reply.headers(request.ctx.rateLimitHeaders);
    }
  });

  /**
   * The caller: a bearer key, or the dashboard's session cookie (never both: which one would the call be?). A
   * mutating call with the cookie carries the session's CSRF token, since a browser sends cookies by itself.
   */
  async function authenticate(
    request: FastifyRequest,
    access: RouteAccess,
    ip: string,
    bearer: string | undefined,
  ): Promise<Principal> {
    const session = deps.sessions?.tokenOf(request);
    if (session !== undefined) {
      if (request.headers.authorization !== undefined) {
        await spend(request, ip, budgets.anonymous);
        throw new AppError(
          'PUBLIC_API_CREDENTIALS_AMBIGUOUS',
          'Send either the session cookie or `Authorization: Bearer <key>`, not both.',
        );
      }
      const principal = await deps.sessions!.authenticate(session);
      if (!principal) {
        await spend(request, ip, budgets.anonymous);
        throw new AppError(
          'PUBLIC_API_SESSION_INVALID',
          'This session has ended (signed out or expired): sign in again.',
        );
      }
      if (access.mutates && !deps.sessions!.csrfValid(session, request))
        throw new AppError(
          'PUBLIC_API_CSRF_TOKEN_INVALID',
          "A change made with the session cookie needs the session's `X-CSRF-Token` header (GET /app/api/session answers it).",
        );
      return principal;
    }
    if (!bearer) {
      await spend(request, ip, budgets.anonymous);
      throw new AppError('PUBLIC_API_AUTH_REQUIRED', 'Send your API key as `Authorization: Bearer <key>`.');
    }
    const result = await deps.authenticator.authenticate(bearer);
    if (!result.ok) {
      await spend(request, ip, budgets.anonymous);
      throw new AppError(
        result.code,
        result.code === 'PUBLIC_API_KEY_EXPIRED'
          ? 'This API key has expired.'
          : 'This API key is not valid (unknown, revoked or malformed).',
      );
    }
    return result.principal;
  }

  async function authorise(request: FastifyRequest, access: RouteAccess, ip: string): Promise<void> {
    // An unknown /v1 route answers 404 whoever asks; with a valid key, the call is charged to that key's read
    // budget, not to the anonymous budget of its address (which the key's other callers may share).
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +(\S+) *$/i.exec(header) : null;
    if (access === UNKNOWN_ROUTE) {
      const result = match ? await deps.authenticator.authenticate(match[1]!) : undefined;
      return result?.ok ? spend(request, result.principal.keyId, budgets.read) : spend(request, ip, budgets.anonymous);
    }
    if (access.scopes === 'public') return spend(request, ip, budgets.anonymous);
    const principal = await authenticate(request, access, ip, match?.[1]);
    request.ctx.principal = principal;
    await spend(request, principal.keyId, access.mutates ? budgets.write : budgets.read);
    // An empty list means any valid key (GET /v1/workspaces).
    if (access.scopes.length > 0 && !access.scopes.some((s) => principal.scopes.has(s))) {
      throw new AppError(
        'PUBLIC_API_SCOPE_FORBIDDEN',
        `This endpoint needs the ${access.scopes.map((s) => `\`${s}\``).join(' or ')} scope, which this key lacks.`,
      );
    }
    if (access.workspace) {
      await resolveWorkspace(request, principal);
      // The key's scopes count only as far as its owner's current role in this workspace allows (roles.ts).
      const role = principal.reachable.find((w) => w.id === request.ctx.workspaceId)!.role;
      assertRoleAllows(role, access.scopes, principal.scopes);
    }
    if (access.mutates) {
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      // Without the header, an actions key's write is deduplicated by content, and a route that takes the key in
      // its body decides once the body is read (checkBodyIdempotencyKey below).
      const later = principal.profile === 'actions' || access.idempotencyField === true;
      if (key === undefined && !(later && request.headers['idempotency-key'] === undefined)) {
        throw new AppError(
          'PUBLIC_API_IDEMPOTENCY_REQUIRED',
          request.headers['idempotency-key'] === undefined
            ? 'Send an Idempotency-Key header (e.g. a UUID) with every POST, PATCH, PUT and DELETE.'
            : 'The Idempotency-Key header must be 1–255 printable ASCII characters.',
        );
      }
      request.ctx.idempotencyKey = key ?? null;
    }
  }
}

/** The page size of a list for an `actions` key that names none: its answers stay under the action platform's
 * payload limit (100,000 characters; docs/gpt-actions.md). An explicit `limit` is obeyed. */
export const ACTIONS_PAGE_SIZE = 5;

function actionsPageSize(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined;
  const declared = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  if (query && typeof query === 'object' && declared?.limit && query.limit === undefined)
    query.limit = ACTIONS_PAGE_SIZE;
}

/**
 * `idempotency_key` in the body (routes with `idempotencyField`) stands for the header; it is taken out of the body
 * before validation, so services never see it. Without either, only an `actions` key may write (by content).
 */
function checkBodyIdempotencyKey(request: FastifyRequest, access: RouteAccess): void {
  const ctx = request.ctx;
  const body = request.body as Record<string, unknown> | null | undefined;
  if (access.idempotencyField && body && typeof body === 'object' && 'idempotency_key' in body) {
    const raw = body.idempotency_key;
    delete body.idempotency_key;
    const key = typeof raw === 'string' ? parseIdempotencyKey(raw) : undefined;
    const fail = (message: string) =>
      new AppError('PUBLIC_API_BODY_INVALID', `The body is invalid: idempotency_key ${message}.`, {
        details: [{ path: '/idempotency_key', message }],
      });
    if (key === undefined) throw fail('must be a string of 1–255 printable ASCII characters');
    if (ctx.idempotencyKey !== null && ctx.idempotencyKey !== key)
      throw fail('differs from the Idempotency-Key header');
    ctx.idempotencyKey = key;
  }
  if (ctx.idempotencyKey === null && ctx.principal?.profile !== 'actions')
    throw new AppError(
      'PUBLIC_API_IDEMPOTENCY_REQUIRED',
      'Send an Idempotency-Key header (e.g. a UUID) with every POST, PATCH, PUT and DELETE, or `idempotency_key` in the body.',
    );
}
