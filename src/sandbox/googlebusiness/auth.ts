// Google's OAuth 2.0 as the simulator plays it for Business Profile (docs/platforms/googlebusiness.md "Auth"): the consent
// page at `/o/oauth2/v2/auth` (approve and deny, or at once as `sandbox_username`), PKCE S256 when a challenge was
// sent, the code exchange and refresh at `/token` (a refresh token only with `access_type=offline`; refreshing
// returns a new access token and no new refresh token: Google's refresh tokens do not rotate), revocation at
// `/revoke`; Google's OAuth error body `{ error, error_description }`; and the bearer check every API route runs.
// Spent codes and revoked tokens are in the store, so a restart or another API node honours them.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { consentStep, type AuthorizeQuery } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import { KIND, type GbpContext, type GbpUser } from './state.ts';

/** Google access tokens last an hour (`expires_in: 3599` in practice). */
const ACCESS_TTL = 3599;
/** Google refresh tokens do not expire on a schedule (⚠ unverified: 7 days for apps in "Testing"); ten years here. */
const REFRESH_TTL = 10 * 365 * 24 * 3600;
const CODE_TTL = 600;
export const SCOPE = 'https://www.googleapis.com/auth/business.manage';

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

/** The user a username signs in as: one business account with two locations, all following from the name. */
export function userFor(username: string): GbpUser {
  const key = username.toLowerCase();
  return {
    username,
    account: `accounts/${numericId(`gbp-account:${key}`)}`,
    accountName: `${username} Trading`,
    locations: [
      { name: `locations/${numericId(`gbp-location:${key}:1`)}`, title: `${username} Bakery`, locality: 'Springfield' },
      { name: `locations/${numericId(`gbp-location:${key}:2`)}`, title: `${username} Café`, locality: 'Shelbyville' },
    ],
  };
}

/** The user behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: GbpContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<GbpUser | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'gbp_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    return undefined;
  }
  if (
    !String(check.claims.scope ?? '')
      .split(' ')
      .includes(SCOPE)
  ) {
    ctx.errorReply(reply, 403, 'Request had insufficient authentication scopes.');
    return undefined;
  }
  return userFor(String(check.claims.username));
}

export function registerGbpAuth(app: FastifyInstance, ctx: GbpContext): void {
  app.get<{ Querystring: AuthorizeQuery }>('/o/oauth2/v2/auth', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/o/oauth2/v2/auth', (request, reply) => authorize(ctx, request, reply));
  app.post('/token', (request, reply) => token(ctx, request, reply));
  app.post('/revoke', (request, reply) => revoke(ctx, request, reply));
}

async function authorize(
  ctx: GbpContext,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  const signIn = await consentStep(ctx.kit, request, reply, 'Google Business Profile', (status, error, message) =>
    oauthError(reply, status, error, message),
  );
  if (!signIn) return reply;
  const { q, redirect, username } = signIn;
  const user = userFor(username);
  await ctx.kit.store.put(KIND.user, username.toLowerCase(), user);
  const code = ctx.kit.tokens.sign({
    sub: user.account,
    typ: 'gbp_code',
    username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope: q.scope ?? '',
    offline: q.access_type === 'offline',
    challenge: q.code_challenge ?? null,
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('code', code);
  redirect.searchParams.set('scope', q.scope ?? '');
  if (q.state) redirect.searchParams.set('state', q.state);
  return reply.code(302).header('location', redirect.toString()).send();
}

/** The code exchange (PKCE checked when the authorization sent a challenge) and the refresh grant. */
async function token(ctx: GbpContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token')
    return oauthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
  if (fault) return oauthError(reply, 503, 'temporarily_unavailable', 'Service Unavailable');
  if (!fields.client_id) return oauthError(reply, 401, 'invalid_client', 'The OAuth client was not found.');
  const base = (c: { sub: string; username?: unknown; scope?: unknown }) => ({
    sub: c.sub,
    username: String(c.username),
    scope: String(c.scope),
  });
  const access = (claims: ReturnType<typeof base>) => ({
    access_token: kit.tokens.sign({ ...claims, typ: 'gbp_access', ttlSeconds: ACCESS_TTL }),
    expires_in: ACCESS_TTL,
    scope: claims.scope,
    token_type: 'Bearer',
  });
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), 'gbp_code');
    if (!check.ok) return oauthError(reply, 400, 'invalid_grant', 'Malformed auth code.');
    const c = check.claims;
    if (c.cid !== fields.client_id) return oauthError(reply, 401, 'invalid_client', 'Unauthorized');
    if (c.redirect !== fields.redirect_uri) return oauthError(reply, 400, 'redirect_uri_mismatch', 'Bad Request');
    if (
      c.challenge &&
      createHash('sha256')
        .update(String(fields.code_verifier ?? ''))
        .digest('base64url') !== c.challenge
    )
      return oauthError(reply, 400, 'invalid_grant', 'Invalid code verifier.');
    // Spent with `insert`: of two exchanges of one code (two API nodes), one gets the tokens.
    if (!(await kit.store.insert(KIND.spentCode, c.jti, { at: kit.now() })))
      return oauthError(reply, 400, 'invalid_grant', 'Bad Request');
    const claims = base(c);
    return {
      ...access(claims),
      // Only an offline authorization gets a refresh token.
      ...(c.offline
        ? { refresh_token: kit.tokens.sign({ ...claims, typ: 'gbp_refresh', ttlSeconds: REFRESH_TTL }) }
        : {}),
    };
  }
  if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), 'gbp_refresh');
    if (!check.ok || (await kit.store.get(KIND.revoked, check.claims.jti)))
      return oauthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
    // No new refresh token: the one the client holds stays valid.
    return access(base(check.claims));
  }
  return oauthError(reply, 400, 'unsupported_grant_type', 'Invalid grant_type.');
}

/** Revoking either token of a grant revokes it (Google revokes the whole grant; here the token named). */
async function revoke(ctx: GbpContext, request: FastifyRequest, reply: FastifyReply) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const given = String(fields.token ?? (request.query as Record<string, string>).token ?? '');
  for (const typ of ['gbp_access', 'gbp_refresh']) {
    const check = ctx.kit.tokens.verify(given, typ);
    if (check.ok) {
      await ctx.kit.store.put(KIND.revoked, check.claims.jti, { at: ctx.kit.now() });
      return {};
    }
  }
  return oauthError(reply, 400, 'invalid_token', 'Token expired or revoked');
}
