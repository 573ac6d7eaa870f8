// Google's OAuth 2.0 as the simulator plays it for YouTube (docs/platforms/youtube.md "Auth"): the consent page at
// /o/oauth2/v2/auth (approve and deny, or at once as `sandbox_username`), PKCE S256 when a challenge was sent, a
// refresh token only for `access_type=offline`, access tokens of one hour, refresh grants that answer a new access
// token and no new refresh token (Google's do not rotate), revocation at /revoke; and the bearer check every data
// call runs. Spent codes and revoked tokens are in the store, so a restart or another API node honours them.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { deniedRedirect, sendConsentPage } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import { KIND, type YoutubeChannel, type YoutubeContext } from './state.ts';

/** Google's access tokens live one hour (`expires_in` 3599). */
const ACCESS_TTL = 3599;
/**
 * Google's refresh tokens have no fixed lifetime (they end when revoked, unused for six months, or after 7 days for
 * an app in "Testing"); the simulator gives them a year. ⚠ unverified: the lifetimes are Google's OAuth policy pages.
 */
const REFRESH_TTL = 365 * 24 * 3600;
const CODE_TTL = 600;

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

/** 22 URL-safe characters from a name: the tail of a channel id (`UC…`) and of its uploads playlist (`UU…`). */
function channelTail(username: string): string {
  return createHash('sha256')
    .update(`youtube:${numericId(username.toLowerCase())}`)
    .digest('base64url')
    .slice(0, 22);
}

/** The channel a username signs in as: it follows from the name, so a token's claims rebuild it without a read. */
export function channelFor(username: string): YoutubeChannel {
  const tail = channelTail(username);
  return { id: `UC${tail}`, username, title: username, uploads: `UU${tail}` };
}

/** Who a data call is from: the channel and the OAuth client (the Cloud project its quota is charged to). */
export interface Caller {
  channel: YoutubeChannel;
  project: string;
}

/** The caller behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: YoutubeContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Caller | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'youtube_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, 'authError: Request had invalid authentication credentials.');
    return undefined;
  }
  return { channel: channelFor(String(check.claims.username)), project: String(check.claims.cid ?? '') };
}

type AuthorizeQuery = Record<string, string | undefined>;

export function registerYoutubeAuth(app: FastifyInstance, ctx: YoutubeContext): void {
  // GET shows the consent page (or approves at once for `sandbox_username`); the page posts back here.
  app.get<{ Querystring: AuthorizeQuery }>('/o/oauth2/v2/auth', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/o/oauth2/v2/auth', (request, reply) => authorize(ctx, request, reply));
  app.post('/token', (request, reply) => token(ctx, request, reply));
  app.post<{ Querystring: { token?: string } }>('/revoke', (request, reply) => revoke(ctx, request, reply));
}

async function authorize(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  const posted = request.method === 'POST' ? parseBody(request.headers['content-type'], request.body).fields : {};
  const q: AuthorizeQuery = {
    ...request.query,
    ...(Object.fromEntries(Object.entries(posted).filter(([, v]) => typeof v === 'string')) as Record<string, string>),
  };
  // Google answers a malformed request with its own error page (400); the simulator with the OAuth error as JSON.
  for (const name of ['client_id', 'redirect_uri', 'scope'] as const)
    if (!q[name]) return oauthError(reply, 400, 'invalid_request', `Missing required parameter: ${name}`);
  if (q.response_type !== 'code')
    return oauthError(reply, 400, 'unsupported_response_type', 'response_type must be code.');
  if (q.code_challenge && q.code_challenge_method !== 'S256')
    return oauthError(reply, 400, 'invalid_request', 'code_challenge_method must be S256.');
  let redirect: URL;
  try {
    redirect = new URL(q.redirect_uri!);
  } catch {
    return oauthError(reply, 400, 'invalid_request', 'redirect_uri is not a URL.');
  }
  if (request.method === 'GET' && !q.sandbox_username)
    return sendConsentPage(reply, {
      platform: 'YouTube',
      action: request.url.split('?')[0]!,
      params: q,
      scopes: q.scope ?? '',
      defaultUsername: 'sandbox_user',
    });
  if (q.decision === 'deny') return deniedRedirect(reply, redirect.toString(), q.state);
  const username = q.sandbox_username ?? 'sandbox_user';
  if (!/^[A-Za-z0-9_.]{1,64}$/.test(username))
    return oauthError(reply, 400, 'invalid_request', 'sandbox_username is not a valid username.');
  // Only a flow Herald started (or a trusted rig) may name the account, and only its own workspace's.
  if (!(await ctx.kit.mayNameAccount(request, q, username)))
    return oauthError(reply, 403, 'access_denied', 'This sign-in was not started by Herald (no valid sandbox_sig).');
  const channel = channelFor(username);
  // Kept for what shows the channel without a token (the watch page); a later sign-in refreshes it.
  await ctx.kit.store.put(KIND.channel, channel.id, channel);
  const code = ctx.kit.tokens.sign({
    sub: channel.id,
    typ: 'youtube_code',
    username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope: q.scope ?? '',
    offline: q.access_type === 'offline',
    challenge: q.code_challenge ?? null,
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('code', code);
  if (q.state) redirect.searchParams.set('state', q.state);
  return reply.code(302).header('location', redirect.toString()).send();
}

/** The code exchange (PKCE checked when the authorization sent a challenge) and the refresh grant. */
async function token(ctx: YoutubeContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token')
    return oauthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
  if (fault) return oauthError(reply, 503, 'temporarily_unavailable', 'The service is unavailable.');
  if (!fields.client_id || !fields.client_secret)
    return oauthError(reply, 401, 'invalid_client', 'The OAuth client was not found.');
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), 'youtube_code');
    if (!check.ok) return oauthError(reply, 400, 'invalid_grant', 'Malformed auth code.');
    const c = check.claims;
    if (c.cid !== fields.client_id) return oauthError(reply, 401, 'unauthorized_client', 'Unauthorized');
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
    const base = { sub: c.sub, username: String(c.username), scope: String(c.scope), cid: String(c.cid) };
    return {
      access_token: kit.tokens.sign({ ...base, typ: 'youtube_access', ttlSeconds: ACCESS_TTL }),
      expires_in: ACCESS_TTL,
      token_type: 'Bearer',
      scope: base.scope,
      // Only an offline authorization gets a refresh token (Google's web-server flow guide).
      ...(c.offline === true && {
        refresh_token: kit.tokens.sign({ ...base, typ: 'youtube_refresh', ttlSeconds: REFRESH_TTL }),
      }),
    };
  }
  if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), 'youtube_refresh');
    if (!check.ok || (await kit.store.get(KIND.revoked, check.claims.jti)))
      return oauthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
    const c = check.claims;
    if (c.cid !== fields.client_id) return oauthError(reply, 401, 'unauthorized_client', 'Unauthorized');
    const base = { sub: c.sub, username: String(c.username), scope: String(c.scope), cid: String(c.cid) };
    // No refresh_token in the answer: the one the client holds stays valid (Google's do not rotate).
    return {
      access_token: kit.tokens.sign({ ...base, typ: 'youtube_access', ttlSeconds: ACCESS_TTL }),
      expires_in: ACCESS_TTL,
      token_type: 'Bearer',
      scope: base.scope,
    };
  }
  return oauthError(reply, 400, 'unsupported_grant_type', 'Invalid grant_type.');
}

/** Revokes an access or refresh token (form field or query `token`); revoking a refresh token ends the grant. */
async function revoke(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: { token?: string } }>,
  reply: FastifyReply,
) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const value = String(fields.token ?? request.query.token ?? '');
  let found = false;
  for (const typ of ['youtube_access', 'youtube_refresh']) {
    const check = ctx.kit.tokens.verify(value, typ);
    if (check.ok) {
      found = true;
      await ctx.kit.store.put(KIND.revoked, check.claims.jti, { at: ctx.kit.now() });
    }
  }
  if (!found) return oauthError(reply, 400, 'invalid_token', 'Token expired or revoked');
  return {};
}
