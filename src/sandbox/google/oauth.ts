// Google's OAuth 2.0 as the simulators play it for YouTube and Business Profile (docs/platforms/youtube.md "Auth",
// docs/platforms/googlebusiness.md "Auth"): the consent page at /o/oauth2/v2/auth (approve and deny, or at once as
// `sandbox_username`), PKCE S256 when a challenge was sent, the code exchange and refresh at /token (a refresh token
// only for `access_type=offline`; a refresh answers a new access token and no new refresh token: Google's do not
// rotate), revocation at /revoke, and Google's OAuth error body `{ error, error_description }`. Spent codes and
// revoked tokens are in the store, so a restart or another API node honours them.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { consentStep, type AuthorizeQuery } from '../framework/consent.ts';
import type { SimulatorKit } from '../framework/simulator.ts';

const CODE_TTL = 600;

export function googleOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

export interface GoogleOAuthSimulation {
  kit: Pick<SimulatorKit, 'mayNameAccount' | 'tokens' | 'store' | 'faults' | 'now'>;
  /** The consent page's title. */
  product: string;
  /** The prefix of the token types: `<prefix>_code`, `<prefix>_access`, `<prefix>_refresh`. */
  prefix: string;
  /** Store kinds of spent codes and revoked tokens. */
  kinds: { spentCode: string; revoked: string };
  accessTtl: number;
  refreshTtl: number;
  /** Google requires the client secret at the token endpoint for a web-server client. */
  requireSecret: boolean;
  /** The approved sign-in's subject (the channel or the business account), kept for what shows it without a token. */
  signIn(username: string): Promise<{ sub: string }>;
}

export function registerGoogleOAuth(app: FastifyInstance, sim: GoogleOAuthSimulation): void {
  // GET shows the consent page (or approves at once for `sandbox_username`); the page posts back here.
  const authorizeRoute = (request: FastifyRequest<{ Querystring: AuthorizeQuery }>, reply: FastifyReply) =>
    authorize(sim, request, reply);
  app.get<{ Querystring: AuthorizeQuery }>('/o/oauth2/v2/auth', authorizeRoute);
  app.post<{ Querystring: AuthorizeQuery }>('/o/oauth2/v2/auth', authorizeRoute);
  app.post('/token', (request, reply) => token(sim, request, reply));
  app.post<{ Querystring: { token?: string } }>('/revoke', (request, reply) => revoke(sim, request, reply));
}

async function authorize(
  sim: GoogleOAuthSimulation,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  // Google answers a malformed request with its own error page (400); the simulator with the OAuth error as JSON.
  const refuse = (status: number, error: string, message: string) => googleOAuthError(reply, status, error, message);
  const step = await consentStep(sim.kit, request, reply, sim.product, refuse);
  if (!step) return reply;
  const { q, redirect, username } = step;
  if (q.code_challenge && q.code_challenge_method !== 'S256')
    return refuse(400, 'invalid_request', 'code_challenge_method must be S256.');
  const { sub } = await sim.signIn(username);
  const code = sim.kit.tokens.sign({
    sub,
    typ: `${sim.prefix}_code`,
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
async function token(sim: GoogleOAuthSimulation, request: FastifyRequest, reply: FastifyReply) {
  const { kit, prefix } = sim;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token')
    return googleOAuthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
  if (fault) return googleOAuthError(reply, 503, 'temporarily_unavailable', 'The service is unavailable.');
  if (!fields.client_id || (sim.requireSecret && !fields.client_secret))
    return googleOAuthError(reply, 401, 'invalid_client', 'The OAuth client was not found.');
  const access = (claims: Record<string, string>) => ({
    access_token: kit.tokens.sign({ ...claims, typ: `${prefix}_access`, ttlSeconds: sim.accessTtl }),
    expires_in: sim.accessTtl,
    token_type: 'Bearer',
    scope: claims.scope,
  });
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), `${prefix}_code`);
    if (!check.ok) return googleOAuthError(reply, 400, 'invalid_grant', 'Malformed auth code.');
    const c = check.claims;
    if (c.cid !== fields.client_id) return googleOAuthError(reply, 401, 'unauthorized_client', 'Unauthorized');
    if (c.redirect !== fields.redirect_uri) return googleOAuthError(reply, 400, 'redirect_uri_mismatch', 'Bad Request');
    const verifier = String(fields.code_verifier ?? '');
    if (c.challenge && createHash('sha256').update(verifier).digest('base64url') !== c.challenge)
      return googleOAuthError(reply, 400, 'invalid_grant', 'Invalid code verifier.');
    // Spent with `insert`: of two exchanges of one code (two API nodes), one gets the tokens.
    if (!(await kit.store.insert(sim.kinds.spentCode, c.jti, { at: kit.now() })))
      return googleOAuthError(reply, 400, 'invalid_grant', 'Bad Request');
    const claims = { sub: c.sub, username: String(c.username), scope: String(c.scope), cid: String(c.cid) };
    return {
      ...access(claims),
      // Only an offline authorization gets a refresh token (Google's web-server flow guide).
      ...(c.offline === true && {
        refresh_token: kit.tokens.sign({ ...claims, typ: `${prefix}_refresh`, ttlSeconds: sim.refreshTtl }),
      }),
    };
  }
  if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), `${prefix}_refresh`);
    if (!check.ok || (await kit.store.get(sim.kinds.revoked, check.claims.jti)))
      return googleOAuthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
    const c = check.claims;
    if (c.cid !== fields.client_id) return googleOAuthError(reply, 401, 'unauthorized_client', 'Unauthorized');
    // No refresh_token in the answer: the one the client holds stays valid.
    return access({ sub: c.sub, username: String(c.username), scope: String(c.scope), cid: String(c.cid) });
  }
  return googleOAuthError(reply, 400, 'unsupported_grant_type', 'Invalid grant_type.');
}

/** Revokes an access or refresh token (form field or query `token`); revoking a refresh token ends the grant. */
async function revoke(
  sim: GoogleOAuthSimulation,
  request: FastifyRequest<{ Querystring: { token?: string } }>,
  reply: FastifyReply,
) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const value = String(fields.token ?? request.query.token ?? '');
  let found = false;
  for (const typ of [`${sim.prefix}_access`, `${sim.prefix}_refresh`]) {
    const check = sim.kit.tokens.verify(value, typ);
    if (check.ok) {
      found = true;
      await sim.kit.store.put(sim.kinds.revoked, check.claims.jti, { at: sim.kit.now() });
    }
  }
  if (!found) return googleOAuthError(reply, 400, 'invalid_token', 'Token expired or revoked');
  return {};
}
