// TikTok's sign-in as the simulator plays it (Login Kit v2): `/v2/auth/authorize/` with `client_key` and a
// comma-separated `scope` (a consent page with approve and deny, or at once as `sandbox_username`), PKCE S256 when a
// challenge was sent (TikTok requires it of desktop and mobile apps only), `/v2/oauth/token/` with the client key and
// secret in the form: access tokens of 2 hours and refresh tokens of 180 days that rotate (a refresh answers a new
// refresh token and the one sent stops working), `/v2/oauth/revoke/`; `/v2/user/info/`; and the bearer check every
// other route runs. Spent codes, used refresh tokens and revoked tokens are in the store, so a restart or another API
// node honours them.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { consentStep, type AuthorizeQuery } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import { ok } from './envelope.ts';
import { KIND, type TiktokAccount, type TiktokContext } from './state.ts';

/** developers.tiktok.com oauth-user-access-token-management (updated November 2026): 2 hours and 180 days. */
export const ACCESS_TTL = 2 * 3600;
export const REFRESH_TTL = 180 * 24 * 3600;
const CODE_TTL = 600; // ⚠ unverified: TikTok does not publish the code's lifetime

/** TikTok's OAuth error body (`oauth-error-handling`). ⚠ unverified: the HTTP status of these answers. */
function oauthError(ctx: TiktokContext, reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).send({ error, error_description: description, log_id: `${ctx.kit.now()}` });
}

/** The account a username signs in as: it follows from the name, so a token's claims rebuild it without a read. */
export function accountFor(username: string): TiktokAccount {
  return { id: numericId(`tiktok:${username.toLowerCase()}`), username, name: username };
}

/** The account behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: TiktokContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ account: TiktokAccount; scopes: string[] } | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'tiktok_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, 'access_token_invalid: The access token is invalid or not found in the request.');
    return undefined;
  }
  return {
    account: accountFor(String(check.claims.username)),
    scopes: String(check.claims.scope ?? '')
      .split(',')
      .filter(Boolean),
  };
}

export function registerTiktokAuth(app: FastifyInstance, ctx: TiktokContext): void {
  // GET shows the consent page (or approves at once for `sandbox_username`); the page posts back here.
  app.get<{ Querystring: AuthorizeQuery }>('/v2/auth/authorize/', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/v2/auth/authorize/', (request, reply) => authorize(ctx, request, reply));
  app.post('/v2/oauth/token/', (request, reply) => token(ctx, request, reply));
  app.post('/v2/oauth/revoke/', (request, reply) => revoke(ctx, request, reply));
  app.get<{ Querystring: { fields?: string } }>('/v2/user/info/', (request, reply) => userInfo(ctx, request, reply));
}

async function authorize(
  ctx: TiktokContext,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  const signIn = await consentStep(
    ctx.kit,
    request,
    reply,
    'TikTok',
    (status, error, message) => oauthError(ctx, reply, status, error, message),
    'client_key',
  );
  if (!signIn) return reply;
  const { q, redirect, username } = signIn;
  const account = accountFor(username);
  // Kept for what shows the account without a token (the post page); a later sign-in refreshes it.
  await ctx.kit.store.put(KIND.account, account.id, account);
  const code = ctx.kit.tokens.sign({
    sub: account.id,
    typ: 'tiktok_code',
    username,
    cid: q.client_key,
    redirect: q.redirect_uri,
    scope: q.scope ?? '',
    challenge: q.code_challenge ?? null,
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('code', code);
  redirect.searchParams.set('scopes', q.scope ?? '');
  if (q.state) redirect.searchParams.set('state', q.state);
  return reply.code(302).header('location', redirect.toString()).send();
}

/** The code exchange (PKCE checked when the authorization sent a challenge) and the rotating refresh grant. */
async function token(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token')
    return oauthError(ctx, reply, 400, 'invalid_grant', 'The refresh token is invalid or expired.');
  if (fault) return ctx.errorReply(reply, 503, 'internal_error: Service Unavailable');
  if (!fields.client_key || !fields.client_secret)
    return oauthError(ctx, reply, 401, 'invalid_client', 'client_key and client_secret are required.');
  let claims: { sub: string; username?: unknown; scope?: unknown };
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), 'tiktok_code');
    if (!check.ok)
      return oauthError(ctx, reply, 400, 'invalid_grant', 'The authorization code is invalid, expired or used.');
    const c = check.claims;
    if (c.cid !== fields.client_key || c.redirect !== fields.redirect_uri)
      return oauthError(
        ctx,
        reply,
        400,
        'invalid_grant',
        'client_key or redirect_uri does not match the authorization.',
      );
    if (
      c.challenge &&
      createHash('sha256')
        .update(String(fields.code_verifier ?? ''))
        .digest('base64url') !== c.challenge
    )
      return oauthError(ctx, reply, 400, 'invalid_grant', 'code_verifier does not match the code_challenge.');
    // Spent with `insert`: of two exchanges of one code (two API nodes), one gets the tokens.
    if (!(await kit.store.insert(KIND.spentCode, c.jti, { at: kit.now() })))
      return oauthError(ctx, reply, 400, 'invalid_grant', 'The authorization code is invalid, expired or used.');
    claims = c;
  } else if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), 'tiktok_refresh');
    // Rotation: a refresh token works once; the answer carries its successor.
    if (!check.ok || !(await kit.store.insert(KIND.revoked, check.claims.jti, { at: kit.now(), rotated: true })))
      return oauthError(ctx, reply, 400, 'invalid_grant', 'The refresh token is invalid, expired or already used.');
    claims = check.claims;
  } else {
    return oauthError(
      ctx,
      reply,
      400,
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token.',
    );
  }
  const base = { sub: claims.sub, username: String(claims.username), scope: String(claims.scope) };
  return {
    open_id: base.sub,
    scope: base.scope,
    access_token: kit.tokens.sign({ ...base, typ: 'tiktok_access', ttlSeconds: ACCESS_TTL }),
    expires_in: ACCESS_TTL,
    refresh_token: kit.tokens.sign({ ...base, typ: 'tiktok_refresh', ttlSeconds: REFRESH_TTL }),
    refresh_expires_in: REFRESH_TTL,
    token_type: 'Bearer',
  };
}

async function revoke(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  if (!fields.client_key || !fields.client_secret)
    return oauthError(ctx, reply, 401, 'invalid_client', 'client_key and client_secret are required.');
  for (const typ of ['tiktok_access', 'tiktok_refresh']) {
    const check = ctx.kit.tokens.verify(String(fields.token ?? ''), typ);
    if (check.ok) await ctx.kit.store.put(KIND.revoked, check.claims.jti, { at: ctx.kit.now() });
  }
  return {};
}

/** `GET /v2/user/info/?fields=…`: only the fields asked for; `username` needs `user.info.profile`. */
async function userInfo(
  ctx: TiktokContext,
  request: FastifyRequest<{ Querystring: { fields?: string } }>,
  reply: FastifyReply,
) {
  const auth = await authenticate(ctx, request, reply);
  if (!auth) return reply;
  const fields = (request.query.fields ?? '').split(',').filter(Boolean);
  if (fields.length === 0) return ctx.errorReply(reply, 400, 'invalid_params: fields is required.');
  if (fields.includes('username') && !auth.scopes.includes('user.info.profile'))
    return ctx.errorReply(reply, 401, 'scope_not_authorized: The user did not authorize the scope user.info.profile.');
  const { account } = auth;
  const all: Record<string, unknown> = {
    open_id: account.id,
    union_id: `u${account.id}`,
    avatar_url: null,
    display_name: account.name,
    username: account.username,
  };
  return ok(ctx.kit, { user: Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])) });
}
