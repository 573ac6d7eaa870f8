// Pinterest's sign-in as the simulator plays it (docs/platforms/pinterest.md "Auth"): the authorization code flow at
// `/oauth/` (a consent page with approve and deny, or at once as `sandbox_username`), no PKCE, the token endpoint
// `POST /v5/oauth/token` authenticated with HTTP Basic (app id and secret), continuous refresh tokens (each refresh
// answers a new refresh token of 60 days), the current user (`GET /v5/user_account`) and the bearer check every other
// route runs. Spent codes and used refresh tokens are in the store, so a restart or another API node honours them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { consentStep, type AuthorizeQuery } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import { KIND, type PinterestAccount, type PinterestBoard, type PinterestContext } from './state.ts';

/** ⚠ unverified: 30 days, as Pinterest's guides describe access tokens; the token answer's `expires_in` rules. */
const ACCESS_TTL = 30 * 24 * 3600;
/** Continuous refresh tokens: 60 days, renewed by every refresh (the OpenAPI's `/oauth/token` note). */
const REFRESH_TTL = 60 * 24 * 3600;
/** ⚠ unverified: how long an authorization code stays valid. */
const CODE_TTL = 600;
const BOARDS_CREATED = Date.parse('2026-01-01T00:00:00Z');

/** The account a username signs in as: it follows from the name, so a token's claims rebuild it without a read. */
export function accountFor(username: string): PinterestAccount {
  return { id: numericId(`pinterest:${username.toLowerCase()}`), username, name: username };
}

/**
 * The boards of a sandbox account: a public one and a secret one, with ids that follow from the account (the simulator
 * creates no boards), so they exist wherever the account's token is honoured, whichever sign-in made it.
 */
export function boardsOf(account: PinterestAccount): PinterestBoard[] {
  return [
    { id: numericId(`pinterest-board:${account.id}:1`), name: 'Herald sandbox', privacy: 'PUBLIC' as const },
    { id: numericId(`pinterest-board:${account.id}:2`), name: 'Drafts (secret)', privacy: 'SECRET' as const },
  ].map((b) => ({ ...b, accountId: account.id, createdAt: BOARDS_CREATED }));
}

/** The account behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: PinterestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PinterestAccount | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'pinterest_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, '2: Authentication failed.');
    return undefined;
  }
  return accountFor(String(check.claims.username));
}

export function registerPinterestAuth(app: FastifyInstance, ctx: PinterestContext): void {
  // GET shows the consent page (or approves at once for `sandbox_username`); the page posts back here.
  app.get<{ Querystring: AuthorizeQuery }>('/oauth/', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/oauth/', (request, reply) => authorize(ctx, request, reply));
  app.post('/v5/oauth/token', (request, reply) => token(ctx, request, reply));
  app.get('/v5/user_account', (request, reply) => userAccount(ctx, request, reply));
}

async function authorize(
  ctx: PinterestContext,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  // Pinterest's error codes: 1 for a malformed request, 29 for a refused one.
  const signIn = await consentStep(ctx.kit, request, reply, 'Pinterest', (status, _error, message) =>
    ctx.errorReply(reply, status, `${status === 403 ? 29 : 1}: ${message}`),
  );
  if (!signIn) return reply;
  const { q, redirect, username } = signIn;
  const account = accountFor(username);
  // Kept for what shows the account without a token (the Pin page); a later sign-in refreshes it.
  await ctx.kit.store.put(KIND.account, account.id, account);
  const code = ctx.kit.tokens.sign({
    sub: account.id,
    typ: 'pinterest_code',
    username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope: q.scope ?? '',
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('code', code);
  if (q.state) redirect.searchParams.set('state', q.state);
  return reply.code(302).header('location', redirect.toString()).send();
}

/** The app id of an HTTP Basic header (`app_id:app_secret`); the simulator takes any secret. */
function basicClient(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return undefined;
  const [id, secret] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
  return id && secret ? id : undefined;
}

/** The code exchange and the refresh grant; both answer a new refresh token (continuous refresh). */
async function token(ctx: PinterestContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token') return ctx.errorReply(reply, 400, '1: The refresh token is expired.');
  if (fault) return ctx.errorReply(reply, 503, 'Service Unavailable');
  const clientId = basicClient(request);
  if (!clientId) return ctx.errorReply(reply, 401, '2: Authentication failed.');
  let claims: { sub: string; username?: unknown; scope?: unknown };
  let responseType: string;
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), 'pinterest_code');
    if (!check.ok) return ctx.errorReply(reply, 400, '1: The authorization code is invalid, expired or used.');
    const c = check.claims;
    if (c.cid !== clientId || c.redirect !== fields.redirect_uri)
      return ctx.errorReply(reply, 400, '1: The app or redirect_uri does not match the authorization.');
    // Spent with `insert`: of two exchanges of one code (two API nodes), one gets the tokens.
    if (!(await kit.store.insert(KIND.spentCode, c.jti, { at: kit.now() })))
      return ctx.errorReply(reply, 400, '1: The authorization code is invalid, expired or used.');
    claims = c;
    responseType = 'authorization_code';
  } else if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), 'pinterest_refresh');
    // ⚠ unverified: that a continuous refresh token is spent by its use. The simulator spends it (`insert`), the
    // stricter reading: a client that did not keep the new one is refused, as it would be if Pinterest does.
    if (!check.ok || !(await kit.store.insert(KIND.revoked, check.claims.jti, { at: kit.now() })))
      return ctx.errorReply(reply, 400, '1: The refresh token is invalid or expired.');
    claims = check.claims;
    responseType = 'refresh_token';
  } else {
    return ctx.errorReply(reply, 400, '1: grant_type must be authorization_code or refresh_token.');
  }
  const base = { sub: claims.sub, username: String(claims.username), scope: String(claims.scope) };
  const now = Math.floor(kit.now() / 1000);
  return {
    access_token: kit.tokens.sign({ ...base, typ: 'pinterest_access', ttlSeconds: ACCESS_TTL }),
    refresh_token: kit.tokens.sign({ ...base, typ: 'pinterest_refresh', ttlSeconds: REFRESH_TTL }),
    response_type: responseType,
    token_type: 'bearer',
    expires_in: ACCESS_TTL,
    refresh_token_expires_in: REFRESH_TTL,
    refresh_token_expires_at: now + REFRESH_TTL,
    scope: base.scope,
  };
}

async function userAccount(ctx: PinterestContext, request: FastifyRequest, reply: FastifyReply) {
  const account = await authenticate(ctx, request, reply);
  if (!account) return reply;
  const fault = ctx.kit.faults.take('account', account.id);
  if (fault?.fault === 'server_error') return ctx.errorReply(reply, 503, 'Service Unavailable');
  return {
    account_type: 'BUSINESS',
    id: account.id,
    username: account.username,
    business_name: account.name,
    profile_image: null,
    website_url: null,
  };
}
