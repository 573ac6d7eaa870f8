// The Meta-style OAuth simulator that Instagram (API with Instagram Login) and Threads share: the authorize page
// (a consent page or, with `sandbox_username`, a redirect with a single-use code at once), the code exchange at
// /oauth/access_token (short-lived token), the long-lived exchange (/access_token) and the refresh
// (/refresh_access_token, for a long-lived token at least MIN_REFRESH_AGE old and unexpired). What differs between
// the platforms (token types, grant type names, TTLs, scopes, messages, error shapes) comes in as a MetaOAuthSpec.
// What must hold across restarts and nodes is in the simulator's store: spent codes (each spent once, by an
// insert) and the secret each client id was first used with.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import type { TokenClaims } from '../framework/tokens.ts';
import { consentPage } from './consent.ts';
import { applyGraphFault, graphError, graphParams, requireGraphToken } from './graph.ts';

/** An error of the code exchange: its message with, for the Graph envelope, its code and subcode. */
export interface OAuthErrorSpec {
  message: string;
  code?: number;
  subcode?: number;
}

export interface MetaOAuthSpec {
  /** The platform's name on the consent page and in the usage headers' type (lower-cased there). */
  platform: string;
  usageType: string;
  scopes: string[];
  requiredScope: string;
  /** Scopes accepted beside `scopes` though not granted by default. */
  extraScopes?: string[];
  codeType: string;
  tokenType: string;
  codeTtl: number;
  shortTtl: number;
  longTtl: number;
  minRefreshAge: number;
  exchangeGrant: string;
  refreshGrant: string;
  userFor(username: string): { id: string; username: string };
  /** How the authorize page and the code exchange answer an error. */
  oauthError(reply: FastifyReply, error: OAuthErrorSpec): FastifyReply;
  /** The token fault at the code exchange: 'sent' when it has answered. */
  codeFault(kit: SimulatorKit, request: FastifyRequest, reply: FastifyReply): string | undefined;
  /** The code exchange's answer. */
  codeResponse(token: string, userId: string, scope: string): unknown;
  messages: {
    authorizeMissing(name: string): string;
    responseType: string;
    denyDescription: string;
    codeMissing(name: string): string;
    grantType: string;
    clientSecret: OAuthErrorSpec;
    codeExpired: OAuthErrorSpec;
    codeInvalid: OAuthErrorSpec;
    codeUsed: OAuthErrorSpec;
    codeApp: string;
    exchangeMissingSecret: string;
  };
}

const REDIRECT_MISMATCH =
  'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request';

/** What the OAuth handlers of one simulator are given. */
interface MetaOAuth {
  kit: SimulatorKit;
  spec: MetaOAuthSpec;
}

/** The store kinds: a spent code's jti, and a client id's secret (the simulator accepts any consistent pair). */
const SPENT_CODE = 'spent-code';
const CLIENT_SECRET = 'client-secret';

/** The secret a client id was first used with; undefined for a client not seen yet. */
async function knownSecret(kit: SimulatorKit, clientId: string): Promise<string | undefined> {
  return (await kit.store.get<{ secret: string }>(CLIENT_SECRET, clientId))?.secret;
}

export function registerMetaOAuth(app: FastifyInstance, kit: SimulatorKit, spec: MetaOAuthSpec): void {
  const oauth: MetaOAuth = { kit, spec };
  app.get<AuthorizeRoute>('/oauth/authorize', (request, reply) => authorize(oauth, request, reply));
  app.post('/oauth/access_token', (request, reply) => exchangeCode(oauth, request, reply));
  app.get('/access_token', (request, reply) => exchangeLongLived(oauth, request, reply));
  app.get('/refresh_access_token', (request, reply) => refreshLongLived(oauth, request, reply));
}

const fail = (spec: MetaOAuthSpec, reply: FastifyReply, message: string) => spec.oauthError(reply, { message });

interface AuthorizeRoute {
  Querystring: Record<string, string>;
}

/** The authorize page: a consent page, or with `sandbox_username` a redirect with a single-use code at once. */
async function authorize({ kit, spec }: MetaOAuth, request: FastifyRequest<AuthorizeRoute>, reply: FastifyReply) {
  const q = request.query;
  const m = spec.messages;
  for (const name of ['client_id', 'redirect_uri', 'response_type', 'scope'] as const) {
    if (!q[name]) return fail(spec, reply, m.authorizeMissing(name));
  }
  if (q.response_type !== 'code') return fail(spec, reply, m.responseType);
  let redirect: URL;
  try {
    redirect = new URL(q.redirect_uri!);
  } catch {
    return fail(spec, reply, 'Invalid redirect_uri.');
  }
  const scopes = q.scope!.split(/[,\s]+/).filter(Boolean);
  if (!scopes.includes(spec.requiredScope))
    return fail(spec, reply, `Invalid scope: ${spec.requiredScope} is required.`);
  const unknown = scopes.filter((s) => !spec.scopes.includes(s) && !(spec.extraScopes ?? []).includes(s));
  if (unknown.length > 0) return fail(spec, reply, `Invalid scope: ${unknown.join(', ')}.`);
  if (q.decision === 'deny') {
    redirect.searchParams.set('error', 'access_denied');
    redirect.searchParams.set('error_reason', 'user_denied');
    redirect.searchParams.set('error_description', m.denyDescription);
    if (q.state) redirect.searchParams.set('state', q.state);
    return reply.code(302).header('location', redirect.toString()).send();
  }
  if (!q.sandbox_username)
    return reply
      .type('text/html; charset=utf-8')
      .send(consentPage({ platform: spec.platform, appId: q.client_id!, scopes, query: q }));
  if (!/^[A-Za-z0-9._]{1,30}$/.test(q.sandbox_username))
    return fail(spec, reply, `sandbox_username must be a valid ${spec.platform} username.`);
  const user = spec.userFor(q.sandbox_username);
  if (!(await kit.mayNameAccount(request, q, user.username)))
    return fail(spec, reply, 'This sign-in was not started by Herald (no valid sandbox_sig).');
  const code = kit.tokens.sign({
    sub: user.id,
    typ: spec.codeType,
    username: user.username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope: scopes.join(','),
    ttlSeconds: spec.codeTtl,
  });
  redirect.searchParams.set('code', code);
  if (q.state) redirect.searchParams.set('state', q.state);
  // Meta appends `#_` to the redirect; it is not part of the code.
  return reply.code(302).header('location', `${redirect.toString()}#_`).send();
}

/** The code exchange (/oauth/access_token): a single-use code for a short-lived token. */
async function exchangeCode({ kit, spec }: MetaOAuth, request: FastifyRequest, reply: FastifyReply) {
  const m = spec.messages;
  const { params } = graphParams(request);
  if (spec.codeFault(kit, request, reply) === 'sent') return reply;
  for (const name of ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code'] as const) {
    if (!params[name]) return fail(spec, reply, m.codeMissing(name));
  }
  if (params.grant_type !== 'authorization_code') return fail(spec, reply, m.grantType);
  const known = await knownSecret(kit, params.client_id!);
  if (known !== undefined && known !== params.client_secret) return spec.oauthError(reply, m.clientSecret);
  const check = kit.tokens.verify(params.code!.replace(/#_$/, ''), spec.codeType);
  if (!check.ok) return spec.oauthError(reply, check.reason === 'expired' ? m.codeExpired : m.codeInvalid);
  if (check.claims.cid !== params.client_id) return fail(spec, reply, m.codeApp);
  if (check.claims.redirect !== params.redirect_uri) return fail(spec, reply, REDIRECT_MISMATCH);
  // Spent by an insert: of two exchanges of one code (two nodes), one gets the token.
  if (!(await kit.store.insert(SPENT_CODE, check.claims.jti, { at: kit.now() })))
    return spec.oauthError(reply, m.codeUsed);
  if (known === undefined) await kit.store.insert(CLIENT_SECRET, params.client_id!, { secret: params.client_secret! });
  const user = spec.userFor(String(check.claims.username));
  const token = kit.tokens.sign({
    sub: user.id,
    typ: spec.tokenType,
    username: user.username,
    cid: params.client_id,
    scope: check.claims.scope,
    ll: false,
    ttlSeconds: spec.shortTtl,
  });
  return spec.codeResponse(token, user.id, String(check.claims.scope));
}

const longLivedToken = ({ kit, spec }: MetaOAuth, claims: TokenClaims) =>
  kit.tokens.sign({
    sub: claims.sub,
    typ: spec.tokenType,
    username: claims.username,
    cid: claims.cid,
    scope: claims.scope,
    ll: true,
    ttlSeconds: spec.longTtl,
  });

const appUsage = (spec: MetaOAuthSpec) => ({ businessId: 'app', type: spec.usageType });

/** The long-lived exchange (/access_token): a short-lived token for a long-lived one. */
async function exchangeLongLived(oauth: MetaOAuth, request: FastifyRequest, reply: FastifyReply) {
  const { kit, spec } = oauth;
  const { params } = graphParams(request);
  const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, appUsage(spec));
  if (applied === 'sent') return reply;
  if (params.grant_type !== spec.exchangeGrant)
    return graphError(reply, 400, { message: `Unsupported grant_type: use ${spec.exchangeGrant}.`, code: 100 });
  if (!params.client_secret) return graphError(reply, 400, { message: spec.messages.exchangeMissingSecret, code: 100 });
  const claims = requireGraphToken(kit, request, reply, params, spec.tokenType);
  if (!claims) return reply;
  if (claims.ll) return graphError(reply, 400, { message: 'The access token is already long-lived.', code: 100 });
  const known = await knownSecret(kit, String(claims.cid));
  if (known !== undefined && known !== params.client_secret)
    return graphError(reply, 400, { message: 'Error validating client secret.', code: 1 });
  return { access_token: longLivedToken(oauth, claims), token_type: 'bearer', expires_in: spec.longTtl };
}

/** The refresh (/refresh_access_token) of a long-lived token at least `minRefreshAge` old and unexpired. */
async function refreshLongLived(oauth: MetaOAuth, request: FastifyRequest, reply: FastifyReply) {
  const { kit, spec } = oauth;
  const { params } = graphParams(request);
  const applied = applyGraphFault(kit, kit.faults.take('token'), request, reply, appUsage(spec));
  if (applied === 'sent') return reply;
  if (params.grant_type !== spec.refreshGrant)
    return graphError(reply, 400, { message: `Unsupported grant_type: use ${spec.refreshGrant}.`, code: 100 });
  const claims = requireGraphToken(kit, request, reply, params, spec.tokenType);
  if (!claims) return reply;
  if (!claims.ll)
    return graphError(reply, 400, { message: 'Only long-lived access tokens can be refreshed.', code: 100 });
  // ⚠ unverified: the code Meta uses for a token refreshed before it is 24 hours old.
  if (kit.now() / 1000 - claims.iat < spec.minRefreshAge)
    return graphError(reply, 400, {
      message: 'The access token must be at least 24 hours old to be refreshed.',
      code: 100,
    });
  return { access_token: longLivedToken(oauth, claims), token_type: 'bearer', expires_in: spec.longTtl };
}
