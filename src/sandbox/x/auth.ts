// X's OAuth 2.0 Authorization Code flow with PKCE (docs/platforms/x.md "Auth"): authorize (a consent page with
// approve and deny, or at once as the user named by `sandbox_username`), token exchange with a
// 30-second single-use code, 2-hour access tokens, single-use rotating refresh tokens, revoke; and the bearer
// check every other route runs. Spent codes and refresh tokens and revoked tokens are store documents by jti, so a
// restart or another API node honours them; spending one is an `insert`, so two nodes cannot both spend it.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { deniedRedirect, sendConsentPage } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import { KIND, problem, type XContext, type XUser } from './state.ts';

const ACCESS_TTL = 7200; // 2 hours
const REFRESH_TTL = 180 * 24 * 3600; // ⚠ unverified: X documents no refresh-token lifetime; 6 months here
const CODE_TTL = 30; // "must be exchanged immediately"

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

/** The client id of a token request: Basic auth (confidential client) or the `client_id` field (public client). */
function clientOf(request: FastifyRequest, fields: Record<string, unknown>): string | undefined {
  const auth = request.headers.authorization;
  if (auth?.startsWith('Basic ')) return Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0];
  return typeof fields.client_id === 'string' ? fields.client_id : undefined;
}

function stringFields(fields: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

/** The user signed in as `username`: nothing to store, the id is derived from the name (on every node alike). */
export function userOf(username: string): XUser {
  return { id: numericId(`x:${username.toLowerCase()}`), username, name: username.replace(/_/g, ' ') };
}

/** Spends a single-use token's jti: false when it was spent before (on this node or another). */
function spend(ctx: XContext, jti: string): Promise<boolean> {
  return ctx.kit.store.insert(KIND.spent, jti, { at: ctx.kit.now() });
}

async function isRevoked(ctx: XContext, jti: string): Promise<boolean> {
  return (await ctx.kit.store.get(KIND.revoked, jti)) !== undefined;
}

/** The authorization request's parameters: the query, and on the consent page's POST its form fields too. */
type AuthorizeQuery = Record<string, string | undefined>;

export function registerXAuth(app: FastifyInstance, ctx: XContext): void {
  // GET shows the consent page (or approves at once for `sandbox_username`); the page posts back here.
  app.get<{ Querystring: AuthorizeQuery }>('/i/oauth2/authorize', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/i/oauth2/authorize', (request, reply) => authorize(ctx, request, reply));
  app.post('/2/oauth2/token', (request, reply) => token(ctx, request, reply));
  app.post('/2/oauth2/revoke', (request) => revoke(ctx, request));
}

async function authorize(ctx: XContext, request: FastifyRequest<{ Querystring: AuthorizeQuery }>, reply: FastifyReply) {
  const q = {
    ...request.query,
    ...(request.method === 'POST' ? stringFields(parseBody(request.headers['content-type'], request.body).fields) : {}),
  };
  for (const name of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge'] as const) {
    if (!q[name]) return oauthError(reply, 400, 'invalid_request', `Missing ${name}.`);
  }
  if (q.response_type !== 'code')
    return oauthError(reply, 400, 'unsupported_response_type', 'response_type must be code.');
  // X documents `S256|plain`; its own client library sends `s256`, which X accepts: compare case-insensitively.
  const method =
    (q.code_challenge_method ?? 'plain').toLowerCase() === 's256' ? 'S256' : (q.code_challenge_method ?? 'plain');
  if (method !== 'S256' && method !== 'plain')
    return oauthError(reply, 400, 'invalid_request', 'code_challenge_method must be S256 or plain.');
  if (q.state!.length > 500) return oauthError(reply, 400, 'invalid_request', 'state is longer than 500 characters.');
  let redirect: URL;
  try {
    redirect = new URL(q.redirect_uri!);
  } catch {
    return oauthError(reply, 400, 'invalid_request', 'redirect_uri is not a URL.');
  }
  if (request.method === 'GET' && !q.sandbox_username)
    return sendConsentPage(reply, {
      platform: 'X',
      action: request.url.split('?')[0]!,
      params: q,
      scopes: q.scope!,
      defaultUsername: 'sandbox_user',
    });
  if (q.decision === 'deny') return deniedRedirect(reply, redirect.toString(), q.state);
  const username = q.sandbox_username ?? 'sandbox_user';
  if (!/^[A-Za-z0-9_]{1,15}$/.test(username))
    return oauthError(reply, 400, 'invalid_request', 'sandbox_username must be a valid X username.');
  if (!(await ctx.kit.mayNameAccount(request, q, username)))
    return oauthError(reply, 403, 'access_denied', 'This sign-in was not started by Herald (no valid sandbox_sig).');
  const user = userOf(username);
  const code = ctx.kit.tokens.sign({
    sub: user.id,
    typ: 'x_code',
    username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    challenge: q.code_challenge,
    method,
    scope: q.scope,
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('state', q.state!);
  redirect.searchParams.set('code', code);
  return reply.code(302).header('location', redirect.toString()).send();
}

/** The code exchange (PKCE checked) and the refresh grant. */
async function token(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const clientId = clientOf(request, fields);
  if (!clientId) return oauthError(reply, 401, 'invalid_client', 'Missing client authentication.');
  const fault = kit.faults.take('token');
  // expired_token here: the refresh token is refused, as X does once it was revoked or already used.
  if (fault?.fault === 'expired_token')
    return oauthError(reply, 400, 'invalid_request', 'Value passed for the token was invalid.');
  if (fault) return reply.code(503).send(problem(503, 'Service Unavailable', `Injected ${fault.fault}`));
  let scope: string;
  let sub: string;
  let username: string;
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), 'x_code');
    if (!check.ok)
      return oauthError(reply, 400, 'invalid_request', 'Value passed for the authorization code was invalid.');
    const c = check.claims;
    if (c.cid !== clientId || c.redirect !== fields.redirect_uri)
      return oauthError(
        reply,
        400,
        'invalid_request',
        'client_id or redirect_uri does not match the authorization request.',
      );
    const verifier = String(fields.code_verifier ?? '');
    const expected = c.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
    if (expected !== c.challenge)
      return oauthError(reply, 400, 'invalid_request', 'code_verifier does not match the code_challenge.');
    // Spent only once every check passed, as before; a second exchange (here or on another node) is refused.
    if (!(await spend(ctx, c.jti)))
      return oauthError(reply, 400, 'invalid_request', 'Value passed for the authorization code was invalid.');
    ({ scope, sub, username } = { scope: String(c.scope), sub: c.sub, username: String(c.username) });
  } else if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), 'x_refresh');
    // Refresh tokens rotate: each one works once (⚠ unverified in X's docs, observed in practice).
    if (!check.ok || (await isRevoked(ctx, check.claims.jti)))
      return oauthError(reply, 400, 'invalid_request', 'Value passed for the token was invalid.');
    if (check.claims.cid !== clientId)
      return oauthError(reply, 400, 'invalid_request', 'The refresh token was issued to another client.');
    if (!(await spend(ctx, check.claims.jti)))
      return oauthError(reply, 400, 'invalid_request', 'Value passed for the token was invalid.');
    ({ scope, sub, username } = {
      scope: String(check.claims.scope),
      sub: check.claims.sub,
      username: String(check.claims.username),
    });
  } else {
    return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }
  const access = kit.tokens.sign({ sub, typ: 'x_access', username, scope, cid: clientId, ttlSeconds: ACCESS_TTL });
  const body: Record<string, unknown> = { token_type: 'bearer', expires_in: ACCESS_TTL, access_token: access, scope };
  if (scope.split(' ').includes('offline.access'))
    body.refresh_token = kit.tokens.sign({
      sub,
      typ: 'x_refresh',
      username,
      scope,
      cid: clientId,
      ttlSeconds: REFRESH_TTL,
    });
  return body;
}

async function revoke(ctx: XContext, request: FastifyRequest) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  for (const typ of ['x_access', 'x_refresh']) {
    const check = ctx.kit.tokens.verify(String(fields.token ?? ''), typ);
    if (check.ok) await ctx.kit.store.put(KIND.revoked, check.claims.jti, { at: ctx.kit.now() });
  }
  return { revoked: true };
}

/** The user behind the bearer token, or undefined after sending X's 401/403. One store read: the revocation. */
export async function authenticate(
  ctx: XContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: string[],
): Promise<XUser | undefined> {
  const header = request.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  const check = ctx.kit.tokens.verify(token, 'x_access');
  if (!check.ok || (await isRevoked(ctx, check.claims.jti))) {
    reply.code(401).send(problem(401, 'Unauthorized', 'Unauthorized'));
    return undefined;
  }
  const granted = String(check.claims.scope).split(' ');
  const missing = scopes.filter((s) => !granted.includes(s));
  if (missing.length > 0) {
    reply
      .code(403)
      .send(
        problem(
          403,
          'Forbidden',
          `Missing scopes: ${missing.join(', ')}`,
          'https://api.x.com/2/problems/client-forbidden',
        ),
      );
    return undefined;
  }
  return userOf(String(check.claims.username));
}
