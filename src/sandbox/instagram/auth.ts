// Instagram API with Instagram Login (docs/platforms/instagram.md "Auth"): the authorize window (www.instagram.com
// /oauth/authorize, here a consent page or, with `sandbox_username`, at once), the code exchange at
// api.instagram.com/oauth/access_token (single-use codes, 1-hour short-lived token), the long-lived exchange
// (graph.instagram.com/access_token, grant_type=ig_exchange_token, 60 days) and the refresh
// (graph.instagram.com/refresh_access_token, grant_type=ig_refresh_token, for a long-lived token at least 24 h old
// and not expired). All hosts are served under the simulator's one base.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { numericId, type SimulatorKit } from '../framework/simulator.ts';
import { requireGraphToken } from '../meta/graph.ts';
import { registerMetaOAuth } from '../meta/oauth.ts';
import type { IgUser } from './state.ts';

export const IG_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
];
const CODE_TTL = 3600; // "Authorization Codes are valid for 1 hour and can only be used once"
const SHORT_TTL = 3600;
const LONG_TTL = 60 * 86_400;
const MIN_REFRESH_AGE = 86_400;
export const IG_TOKEN = 'ig_token';

/** api.instagram.com answers OAuth failures in its own older shape. */
function oauthError(reply: FastifyReply, message: string, status = 400): FastifyReply {
  return reply.code(status).send({ error_type: 'OAuthException', code: status, error_message: message });
}

/** The account of a username: the same username always makes the same account, so none needs keeping. */
export function igUserFor(username: string): IgUser {
  return {
    id: numericId(`instagram:${username.toLowerCase()}`),
    appScopedId: numericId(`instagram-app-scoped:${username.toLowerCase()}`),
    username: username.toLowerCase(),
    name: username.replace(/[._]/g, ' '),
  };
}

export function registerIgAuth(app: FastifyInstance, kit: SimulatorKit): void {
  registerMetaOAuth(app, kit, {
    platform: 'Instagram',
    usageType: 'instagram',
    scopes: IG_SCOPES,
    requiredScope: 'instagram_business_basic',
    extraScopes: ['instagram_business_manage_messages'],
    codeType: 'ig_code',
    tokenType: IG_TOKEN,
    codeTtl: CODE_TTL,
    shortTtl: SHORT_TTL,
    longTtl: LONG_TTL,
    minRefreshAge: MIN_REFRESH_AGE,
    exchangeGrant: 'ig_exchange_token',
    refreshGrant: 'ig_refresh_token',
    userFor: igUserFor,
    oauthError: (reply, error) => oauthError(reply, error.message),
    codeFault: (_kit, _request, reply) => {
      const fault = kit.faults.take('token');
      if (!fault) return undefined;
      if (fault.fault === 'expired_token') oauthError(reply, 'This authorization code has expired.');
      else oauthError(reply, 'An unknown error has occurred.', 500);
      return 'sent';
    },
    codeResponse: (token, userId, scope) => ({ data: [{ access_token: token, user_id: userId, permissions: scope }] }),
    messages: {
      authorizeMissing: (name) => `Invalid request: missing ${name}.`,
      responseType: 'Invalid response_type: only code is supported.',
      denyDescription: 'The user denied your request.',
      codeMissing: (name) => `Missing required field ${name}.`,
      grantType: 'Invalid grant_type: only authorization_code is supported.',
      clientSecret: { message: 'Invalid client_secret.' },
      codeExpired: { message: 'This authorization code has expired.' },
      codeInvalid: { message: 'Invalid authorization code' },
      codeUsed: { message: 'This authorization code has been used.' },
      codeApp: 'Invalid platform app',
      exchangeMissingSecret: 'Missing client_secret parameter.',
    },
  });
}

/** The account behind a Graph call's token, or undefined after answering 190. */
export function igAuthenticate(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  params: Record<string, string>,
): IgUser | undefined {
  const claims = requireGraphToken(kit, request, reply, params, IG_TOKEN);
  return claims ? igUserFor(String(claims.username)) : undefined;
}

/** Whether the token grants a scope (publishing needs instagram_business_content_publish). */
export function igScopes(kit: SimulatorKit, token: string | undefined): string[] {
  if (!token) return [];
  const check = kit.tokens.verify(token, IG_TOKEN);
  return check.ok ? String(check.claims.scope).split(',') : [];
}
