// Threads sign-in (docs/platforms/threads.md "Auth"): the authorize page (threads.net/oauth/authorize, here a consent
// page or, with `sandbox_username`, at once), the code exchange at graph.threads.net/oauth/access_token (single-use
// codes, 1-hour short-lived token ⚠), the long-lived exchange (/access_token, grant_type=th_exchange_token,
// 60 days ⚠) and the refresh (/refresh_access_token, grant_type=th_refresh_token, for a long-lived token at least
// 24 h old and unexpired ⚠). Errors in the Graph envelope, as graph.threads.net answers them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { numericId, type SimulatorKit } from '../framework/simulator.ts';
import { applyGraphFault, graphError, requireGraphToken } from '../meta/graph.ts';
import { registerMetaOAuth } from '../meta/oauth.ts';
import type { ThUser } from './state.ts';

export const TH_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  'threads_read_replies',
  'threads_manage_insights',
  'threads_delete',
  'threads_keyword_search',
  'threads_manage_mentions',
  'threads_location_tagging',
];
const CODE_TTL = 600; // ⚠ unverified: Meta's codes live about 10 minutes
const SHORT_TTL = 3600;
const LONG_TTL = 60 * 86_400;
const MIN_REFRESH_AGE = 86_400;
export const TH_TOKEN = 'th_token';

/** The account of a username: the same username always makes the same account, so none needs keeping. */
export function thUserFor(username: string): ThUser {
  return {
    id: numericId(`threads:${username.toLowerCase()}`),
    username: username.toLowerCase(),
    name: username.replace(/[._]/g, ' '),
  };
}

export function registerThreadsAuth(app: FastifyInstance, kit: SimulatorKit): void {
  const required = (name: string) => `The parameter ${name} is required.`;
  registerMetaOAuth(app, kit, {
    platform: 'Threads',
    usageType: 'threads',
    scopes: TH_SCOPES,
    requiredScope: 'threads_basic',
    codeType: 'th_code',
    tokenType: TH_TOKEN,
    codeTtl: CODE_TTL,
    shortTtl: SHORT_TTL,
    longTtl: LONG_TTL,
    minRefreshAge: MIN_REFRESH_AGE,
    exchangeGrant: 'th_exchange_token',
    refreshGrant: 'th_refresh_token',
    userFor: thUserFor,
    oauthError: (reply, error) =>
      graphError(reply, 400, { message: error.message, code: error.code ?? 100, subcode: error.subcode }),
    codeFault: (_kit, request, reply) =>
      applyGraphFault(kit, kit.faults.take('token'), request, reply, { businessId: 'app', type: 'threads' }),
    codeResponse: (token, userId) => ({ access_token: token, user_id: userId }),
    messages: {
      authorizeMissing: required,
      responseType: 'response_type must be code.',
      denyDescription: 'Permissions error',
      codeMissing: required,
      grantType: 'Unsupported grant_type.',
      clientSecret: { message: 'Error validating client secret.', code: 1 },
      // ⚠ unverified: Threads' subcodes for an expired (36007) and a used (36009) code are Facebook Login's.
      codeExpired: { message: 'This authorization code has expired.', code: 100, subcode: 36007 },
      codeInvalid: { message: 'Invalid verification code format.', code: 100 },
      codeUsed: { message: 'This authorization code has been used.', code: 100, subcode: 36009 },
      codeApp: 'Invalid platform app.',
      exchangeMissingSecret: required('client_secret'),
    },
  });
}

export function thAuthenticate(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  params: Record<string, string>,
): { user: ThUser; scopes: string[] } | undefined {
  const claims = requireGraphToken(kit, request, reply, params, TH_TOKEN);
  return claims ? { user: thUserFor(String(claims.username)), scopes: String(claims.scope).split(',') } : undefined;
}
