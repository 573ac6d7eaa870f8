// Instagram API with Instagram Login (platforms.md §3 "Auth"): the authorize window (www.instagram.com
// /oauth/authorize, here a consent page or, with `sandbox_username`, at once), the code exchange at
// api.instagram.com/oauth/access_token (single-use codes, 1-hour short-lived token), the long-lived exchange
// (graph.instagram.com/access_token, grant_type=ig_exchange_token, 60 days) and the refresh
// (graph.instagram.com/refresh_access_token, grant_type=ig_refresh_token, for a long-lived token at least 24 h old
// and not expired). All hosts are served under the simulator's one base.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { numericId, type SimulatorKit } from '../framework/simulator.ts';
import type { TokenClaims } from '../framework/tokens.ts';
import { consentPage } from '../meta/consent.ts';
import { applyGraphFault, graphError, graphParams, requireGraphToken } from '../meta/graph.ts';
import type { IgState, IgUser } from './state.ts';

export const IG_SCOPES = ['instagram_business_basic', 'instagram_business_content_publish', 'instagram_business_manage_comments', 'instagram_business_manage_insights'];
const CODE_TTL = 3600; // "Authorization Codes are valid for 1 hour and can only be used once"
const SHORT_TTL = 3600;
const LONG_TTL = 60 * 86_400;
const MIN_REFRESH_AGE = 86_400;
export const IG_TOKEN = 'ig_token';

/** api.instagram.com answers OAuth failures in its own older shape. */
function oauthError(reply: FastifyReply, message: string, status = 400): FastifyReply {
  return reply.code(status).send({ error_type: 'OAuthException', code: status, error_message: message });
}

export function igUserFor(state: IgState, username: string): IgUser {
  const id = numericId(`instagram:${username.toLowerCase()}`);
  let user = state.users.get(id);
  if (!user) {
    user = { id, appScopedId: numericId(`instagram-app-scoped:${username.toLowerCase()}`), username: username.toLowerCase(), name: username.replace(/[._]/g, ' ') };
    state.users.set(id, user);
  }
  return user;
}

export function registerIgAuth(app: FastifyInstance, kit: SimulatorKit, state: IgState): void {
  app.get('/oauth/authorize', async (request, reply) => {
    const q = request.query as Record<string, string>;
    for (const name of ['client_id', 'redirect_uri', 'response_type', 'scope'] as const) {
      if (!q[name]) return oauthError(reply, `Invalid request: missing ${name}.`);
    }
    if (q.response_type !== 'code') return oauthError(reply, 'Invalid response_type: only code is supported.');
    let redirect: URL;
    try {
      redirect = new URL(q.redirect_uri!);
    } catch {
      return oauthError(reply, 'Invalid redirect_uri.');
    }
    const scopes = q.scope!.split(/[,\s]+/).filter(Boolean);
    if (!scopes.includes('instagram_business_basic')) return oauthError(reply, 'Invalid scope: instagram_business_basic is required.');
    const unknown = scopes.filter((s) => !IG_SCOPES.includes(s) && s !== 'instagram_business_manage_messages');
    if (unknown.length > 0) return oauthError(reply, `Invalid scope: ${unknown.join(', ')}.`);
    if (q.decision === 'deny') {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_reason', 'user_denied');
      redirect.searchParams.set('error_description', 'The user denied your request.');
      if (q.state) redirect.searchParams.set('state', q.state);
      return reply.code(302).header('location', redirect.toString()).send();
    }
    if (!q.sandbox_username) {
      return reply.type('text/html; charset=utf-8').send(consentPage({ platform: 'Instagram', appId: q.client_id!, scopes, query: q }));
    }
    if (!/^[A-Za-z0-9._]{1,30}$/.test(q.sandbox_username)) return oauthError(reply, 'sandbox_username must be a valid Instagram username.');
    const user = igUserFor(state, q.sandbox_username);
    const code = kit.tokens.sign({ sub: user.id, typ: 'ig_code', username: user.username, cid: q.client_id, redirect: q.redirect_uri, scope: scopes.join(','), ttlSeconds: CODE_TTL });
    redirect.searchParams.set('code', code);
    if (q.state) redirect.searchParams.set('state', q.state);
    // Instagram appends `#_` to the redirect; it is not part of the code.
    return reply.code(302).header('location', `${redirect.toString()}#_`).send();
  });

  app.post('/oauth/access_token', async (request, reply) => {
    const { params } = graphParams(request);
    const fault = kit.faults.take('token');
    if (fault?.fault === 'expired_token') return oauthError(reply, 'This authorization code has expired.');
    if (fault) return oauthError(reply, 'An unknown error has occurred.', 500);
    for (const name of ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code'] as const) {
      if (!params[name]) return oauthError(reply, `Missing required field ${name}.`);
    }
    if (params.grant_type !== 'authorization_code') return oauthError(reply, 'Invalid grant_type: only authorization_code is supported.');
    const known = state.clientSecrets.get(params.client_id!);
    if (known !== undefined && known !== params.client_secret) return oauthError(reply, 'Invalid client_secret.');
    const check = kit.tokens.verify(params.code!.replace(/#_$/, ''), 'ig_code');
    if (!check.ok) return oauthError(reply, check.reason === 'expired' ? 'This authorization code has expired.' : 'Invalid authorization code');
    if (state.spentCodes.has(check.claims.jti)) return oauthError(reply, 'This authorization code has been used.');
    if (check.claims.cid !== params.client_id) return oauthError(reply, 'Invalid platform app');
    if (check.claims.redirect !== params.redirect_uri) return oauthError(reply, 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request');
    state.spentCodes.add(check.claims.jti);
    state.clientSecrets.set(params.client_id!, params.client_secret!);
    const user = igUserFor(state, String(check.claims.username));
    const token = kit.tokens.sign({ sub: user.id, typ: IG_TOKEN, username: user.username, cid: params.client_id, scope: check.claims.scope, ll: false, ttlSeconds: SHORT_TTL });
    return { data: [{ access_token: token, user_id: user.id, permissions: String(check.claims.scope) }] };
  });

  const longLived = (claims: TokenClaims) => kit.tokens.sign({ sub: claims.sub, typ: IG_TOKEN, username: claims.username, cid: claims.cid, scope: claims.scope, ll: true, ttlSeconds: LONG_TTL });

  app.get('/access_token', async (request, reply) => {
    const { params } = graphParams(request);
    const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, { businessId: 'app', type: 'instagram' });
    if (applied === 'sent') return reply;
    if (params.grant_type !== 'ig_exchange_token') return graphError(reply, 400, { message: 'Unsupported grant_type: use ig_exchange_token.', code: 100 });
    if (!params.client_secret) return graphError(reply, 400, { message: 'Missing client_secret parameter.', code: 100 });
    const claims = requireGraphToken(kit, request, reply, params, IG_TOKEN);
    if (!claims) return reply;
    if (claims.ll) return graphError(reply, 400, { message: 'The access token is already long-lived.', code: 100 });
    const known = state.clientSecrets.get(String(claims.cid));
    if (known !== undefined && known !== params.client_secret) return graphError(reply, 400, { message: 'Error validating client secret.', code: 1 });
    return { access_token: longLived(claims), token_type: 'bearer', expires_in: LONG_TTL };
  });

  app.get('/refresh_access_token', async (request, reply) => {
    const { params } = graphParams(request);
    const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, { businessId: 'app', type: 'instagram' });
    if (applied === 'sent') return reply;
    if (params.grant_type !== 'ig_refresh_token') return graphError(reply, 400, { message: 'Unsupported grant_type: use ig_refresh_token.', code: 100 });
    const claims = requireGraphToken(kit, request, reply, params, IG_TOKEN);
    if (!claims) return reply;
    if (!claims.ll) return graphError(reply, 400, { message: 'Only long-lived access tokens can be refreshed.', code: 100 });
    // ⚠ unverified: the code Instagram uses for a token refreshed before it is 24 hours old.
    if (kit.now() / 1000 - claims.iat < MIN_REFRESH_AGE) return graphError(reply, 400, { message: 'The access token must be at least 24 hours old to be refreshed.', code: 100 });
    return { access_token: longLived(claims), token_type: 'bearer', expires_in: LONG_TTL };
  });
}

/** The account behind a Graph call's token, or undefined after answering 190. */
export function igAuthenticate(kit: SimulatorKit, state: IgState, request: FastifyRequest, reply: FastifyReply, params: Record<string, string>): IgUser | undefined {
  const claims = requireGraphToken(kit, request, reply, params, IG_TOKEN);
  return claims ? igUserFor(state, String(claims.username)) : undefined;
}

/** Whether the token grants a scope (publishing needs instagram_business_content_publish). */
export function igScopes(kit: SimulatorKit, token: string | undefined): string[] {
  if (!token) return [];
  const check = kit.tokens.verify(token, IG_TOKEN);
  return check.ok ? String(check.claims.scope).split(',') : [];
}
