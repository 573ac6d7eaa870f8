// Threads sign-in (platforms.md §5 "Auth"): the authorize page (threads.net/oauth/authorize, here a consent page
// or, with `sandbox_username`, at once), the code exchange at graph.threads.net/oauth/access_token (single-use
// codes, 1-hour short-lived token ⚠), the long-lived exchange (/access_token, grant_type=th_exchange_token,
// 60 days ⚠) and the refresh (/refresh_access_token, grant_type=th_refresh_token, for a long-lived token at least
// 24 h old and unexpired ⚠). Errors in the Graph envelope, as graph.threads.net answers them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { numericId, type SimulatorKit } from '../framework/simulator.ts';
import type { TokenClaims } from '../framework/tokens.ts';
import { consentPage } from '../meta/consent.ts';
import { applyGraphFault, graphError, graphParams, requireGraphToken } from '../meta/graph.ts';
import type { ThState, ThUser } from './state.ts';

export const TH_SCOPES = ['threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies', 'threads_manage_insights', 'threads_delete', 'threads_keyword_search', 'threads_manage_mentions', 'threads_location_tagging'];
const CODE_TTL = 600; // ⚠ unverified: Meta's codes live about 10 minutes
const SHORT_TTL = 3600;
const LONG_TTL = 60 * 86_400;
const MIN_REFRESH_AGE = 86_400;
export const TH_TOKEN = 'th_token';

function redirectError(reply: FastifyReply, message: string): FastifyReply {
  return graphError(reply, 400, { message, code: 100 });
}

export function thUserFor(state: ThState, username: string): ThUser {
  const id = numericId(`threads:${username.toLowerCase()}`);
  let user = state.users.get(id);
  if (!user) {
    user = { id, username: username.toLowerCase(), name: username.replace(/[._]/g, ' ') };
    state.users.set(id, user);
  }
  return user;
}

export function registerThreadsAuth(app: FastifyInstance, kit: SimulatorKit, state: ThState): void {
  app.get('/oauth/authorize', async (request, reply) => {
    const q = request.query as Record<string, string>;
    for (const name of ['client_id', 'redirect_uri', 'response_type', 'scope'] as const) {
      if (!q[name]) return redirectError(reply, `The parameter ${name} is required.`);
    }
    if (q.response_type !== 'code') return redirectError(reply, 'response_type must be code.');
    let redirect: URL;
    try {
      redirect = new URL(q.redirect_uri!);
    } catch {
      return redirectError(reply, 'Invalid redirect_uri.');
    }
    const scopes = q.scope!.split(/[,\s]+/).filter(Boolean);
    if (!scopes.includes('threads_basic')) return redirectError(reply, 'Invalid scope: threads_basic is required.');
    const unknown = scopes.filter((s) => !TH_SCOPES.includes(s));
    if (unknown.length > 0) return redirectError(reply, `Invalid scope: ${unknown.join(', ')}.`);
    if (q.decision === 'deny') {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_reason', 'user_denied');
      redirect.searchParams.set('error_description', 'Permissions error');
      if (q.state) redirect.searchParams.set('state', q.state);
      return reply.code(302).header('location', redirect.toString()).send();
    }
    if (!q.sandbox_username) return reply.type('text/html; charset=utf-8').send(consentPage({ platform: 'Threads', appId: q.client_id!, scopes, query: q }));
    if (!/^[A-Za-z0-9._]{1,30}$/.test(q.sandbox_username)) return redirectError(reply, 'sandbox_username must be a valid Threads username.');
    const user = thUserFor(state, q.sandbox_username);
    const code = kit.tokens.sign({ sub: user.id, typ: 'th_code', username: user.username, cid: q.client_id, redirect: q.redirect_uri, scope: scopes.join(','), ttlSeconds: CODE_TTL });
    redirect.searchParams.set('code', code);
    if (q.state) redirect.searchParams.set('state', q.state);
    return reply.code(302).header('location', `${redirect.toString()}#_`).send();
  });

  app.post('/oauth/access_token', async (request, reply) => {
    const { params } = graphParams(request);
    const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, { businessId: 'app', type: 'threads' });
    if (applied === 'sent') return reply;
    for (const name of ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code'] as const) {
      if (!params[name]) return graphError(reply, 400, { message: `The parameter ${name} is required.`, code: 100 });
    }
    if (params.grant_type !== 'authorization_code') return graphError(reply, 400, { message: 'Unsupported grant_type.', code: 100 });
    const known = state.clientSecrets.get(params.client_id!);
    if (known !== undefined && known !== params.client_secret) return graphError(reply, 400, { message: 'Error validating client secret.', code: 1 });
    // ⚠ unverified: Threads' subcodes for an expired (36007) and a used (36009) code are Facebook Login's.
    const check = kit.tokens.verify(params.code!.replace(/#_$/, ''), 'th_code');
    if (!check.ok && check.reason === 'expired') return graphError(reply, 400, { message: 'This authorization code has expired.', code: 100, subcode: 36007 });
    if (!check.ok) return graphError(reply, 400, { message: 'Invalid verification code format.', code: 100 });
    if (state.spentCodes.has(check.claims.jti)) return graphError(reply, 400, { message: 'This authorization code has been used.', code: 100, subcode: 36009 });
    if (check.claims.cid !== params.client_id) return graphError(reply, 400, { message: 'Invalid platform app.', code: 100 });
    if (check.claims.redirect !== params.redirect_uri) return graphError(reply, 400, { message: 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request', code: 100 });
    state.spentCodes.add(check.claims.jti);
    state.clientSecrets.set(params.client_id!, params.client_secret!);
    const user = thUserFor(state, String(check.claims.username));
    const token = kit.tokens.sign({ sub: user.id, typ: TH_TOKEN, username: user.username, cid: params.client_id, scope: check.claims.scope, ll: false, ttlSeconds: SHORT_TTL });
    return { access_token: token, user_id: user.id };
  });

  const longLived = (claims: TokenClaims) => kit.tokens.sign({ sub: claims.sub, typ: TH_TOKEN, username: claims.username, cid: claims.cid, scope: claims.scope, ll: true, ttlSeconds: LONG_TTL });

  app.get('/access_token', async (request, reply) => {
    const { params } = graphParams(request);
    const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, { businessId: 'app', type: 'threads' });
    if (applied === 'sent') return reply;
    if (params.grant_type !== 'th_exchange_token') return graphError(reply, 400, { message: 'Unsupported grant_type: use th_exchange_token.', code: 100 });
    if (!params.client_secret) return graphError(reply, 400, { message: 'The parameter client_secret is required.', code: 100 });
    const claims = requireGraphToken(kit, request, reply, params, TH_TOKEN);
    if (!claims) return reply;
    if (claims.ll) return graphError(reply, 400, { message: 'The access token is already long-lived.', code: 100 });
    const known = state.clientSecrets.get(String(claims.cid));
    if (known !== undefined && known !== params.client_secret) return graphError(reply, 400, { message: 'Error validating client secret.', code: 1 });
    return { access_token: longLived(claims), token_type: 'bearer', expires_in: LONG_TTL };
  });

  app.get('/refresh_access_token', async (request, reply) => {
    const { params } = graphParams(request);
    const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, { businessId: 'app', type: 'threads' });
    if (applied === 'sent') return reply;
    if (params.grant_type !== 'th_refresh_token') return graphError(reply, 400, { message: 'Unsupported grant_type: use th_refresh_token.', code: 100 });
    const claims = requireGraphToken(kit, request, reply, params, TH_TOKEN);
    if (!claims) return reply;
    if (!claims.ll) return graphError(reply, 400, { message: 'Only long-lived access tokens can be refreshed.', code: 100 });
    if (kit.now() / 1000 - claims.iat < MIN_REFRESH_AGE) return graphError(reply, 400, { message: 'The access token must be at least 24 hours old to be refreshed.', code: 100 });
    return { access_token: longLived(claims), token_type: 'bearer', expires_in: LONG_TTL };
  });
}

export function thAuthenticate(kit: SimulatorKit, state: ThState, request: FastifyRequest, reply: FastifyReply, params: Record<string, string>): { user: ThUser; scopes: string[] } | undefined {
  const claims = requireGraphToken(kit, request, reply, params, TH_TOKEN);
  return claims ? { user: thUserFor(state, String(claims.username)), scopes: String(claims.scope).split(',') } : undefined;
}
