// The template of the simulator's sign-in routes, src/sandbox/<p>/auth.ts: OAuth with the consent page, the token
// exchange, revocation, the current user and the bearer check, its state in the sandbox store. Tokens: __p__, __P__,
// __PU__, __D__.

export const SIM_AUTH = `// __D__'s sign-in as the simulator plays it: OAuth 2.0 authorization code (a consent page with approve and deny,
// or at once as \`sandbox_username\`), PKCE S256 when a challenge was sent, access tokens with a refresh token,
// revocation; the current user; and the bearer check every other route runs. Spent codes and revoked tokens are
// in the store, so a restart or another API node honours them.
// FILL IN: __D__'s real OAuth (paths, parameters, token lifetimes, whether refresh tokens rotate, error bodies).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { deniedRedirect, sendConsentPage } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import { KIND, type __P__Account, type __P__Context } from './state.ts';

const ACCESS_TTL = 3600; // FILL IN: __D__'s access-token lifetime
const REFRESH_TTL = 60 * 24 * 3600; // FILL IN: __D__'s refresh-token lifetime
const CODE_TTL = 600;

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

/** The account a username signs in as: it follows from the name, so a token's claims rebuild it without a read. */
export function accountFor(username: string): __P__Account {
  return { id: numericId(\`__p__:\${username.toLowerCase()}\`), username, name: username };
}

/** The account behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: __P__Context,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<__P__Account | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', '__p___access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, 'The access token is invalid or expired.');
    return undefined;
  }
  return accountFor(String(check.claims.username));
}

type AuthorizeQuery = Record<string, string | undefined>;

export function register__P__Auth(app: FastifyInstance, ctx: __P__Context): void {
  // GET shows the consent page (or approves at once for \`sandbox_username\`); the page posts back here.
  app.get<{ Querystring: AuthorizeQuery }>('/oauth/authorize', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/oauth/authorize', (request, reply) => authorize(ctx, request, reply));
  app.post('/oauth/token', (request, reply) => token(ctx, request, reply));
  app.post('/oauth/revoke', (request) => revoke(ctx, request));
  app.get('/v1/me', (request, reply) => me(ctx, request, reply));
}

async function authorize(
  ctx: __P__Context,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  const posted = request.method === 'POST' ? parseBody(request.headers['content-type'], request.body).fields : {};
  const q: AuthorizeQuery = {
    ...request.query,
    ...(Object.fromEntries(Object.entries(posted).filter(([, v]) => typeof v === 'string')) as Record<string, string>),
  };
  for (const name of ['client_id', 'redirect_uri'] as const)
    if (!q[name]) return oauthError(reply, 400, 'invalid_request', \`Missing \${name}.\`);
  if (q.response_type !== 'code') return oauthError(reply, 400, 'unsupported_response_type', 'response_type must be code.');
  let redirect: URL;
  try {
    redirect = new URL(q.redirect_uri!);
  } catch {
    return oauthError(reply, 400, 'invalid_request', 'redirect_uri is not a URL.');
  }
  if (request.method === 'GET' && !q.sandbox_username)
    return sendConsentPage(reply, {
      platform: '__D__',
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
  const account = accountFor(username);
  // Kept for what shows the account without a token (the post page); a later sign-in refreshes it.
  await ctx.kit.store.put(KIND.account, account.id, account);
  const code = ctx.kit.tokens.sign({
    sub: account.id,
    typ: '__p___code',
    username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope: q.scope ?? '',
    challenge: q.code_challenge ?? null,
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('code', code);
  if (q.state) redirect.searchParams.set('state', q.state);
  return reply.code(302).header('location', redirect.toString()).send();
}

/** The code exchange (PKCE checked when the authorization sent a challenge) and the refresh grant. */
async function token(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token') return oauthError(reply, 400, 'invalid_grant', 'The token is expired.');
  if (fault) return ctx.errorReply(reply, 503, 'Service Unavailable');
  let claims: { sub: string; username?: unknown; scope?: unknown };
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), '__p___code');
    if (!check.ok) return oauthError(reply, 400, 'invalid_grant', 'The authorization code is invalid, expired or used.');
    const c = check.claims;
    if (c.cid !== fields.client_id || c.redirect !== fields.redirect_uri)
      return oauthError(reply, 400, 'invalid_grant', 'client_id or redirect_uri does not match the authorization.');
    if (c.challenge && createHash('sha256').update(String(fields.code_verifier ?? '')).digest('base64url') !== c.challenge)
      return oauthError(reply, 400, 'invalid_grant', 'code_verifier does not match the code_challenge.');
    // Spent with \`insert\`: of two exchanges of one code (two API nodes), one gets the tokens.
    if (!(await kit.store.insert(KIND.spentCode, c.jti, { at: kit.now() })))
      return oauthError(reply, 400, 'invalid_grant', 'The authorization code is invalid, expired or used.');
    claims = c;
  } else if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), '__p___refresh');
    if (!check.ok || (await kit.store.get(KIND.revoked, check.claims.jti)))
      return oauthError(reply, 400, 'invalid_grant', 'The refresh token is invalid or expired.');
    claims = check.claims;
  } else {
    return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }
  const base = { sub: claims.sub, username: String(claims.username), scope: String(claims.scope) };
  return {
    token_type: 'bearer',
    access_token: kit.tokens.sign({ ...base, typ: '__p___access', ttlSeconds: ACCESS_TTL }),
    expires_in: ACCESS_TTL,
    refresh_token: kit.tokens.sign({ ...base, typ: '__p___refresh', ttlSeconds: REFRESH_TTL }),
    scope: base.scope,
  };
}

async function revoke(ctx: __P__Context, request: FastifyRequest) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  for (const typ of ['__p___access', '__p___refresh']) {
    const check = ctx.kit.tokens.verify(String(fields.token ?? ''), typ);
    if (check.ok) await ctx.kit.store.put(KIND.revoked, check.claims.jti, { at: ctx.kit.now() });
  }
  return {};
}

async function me(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const account = await authenticate(ctx, request, reply);
  if (!account) return reply;
  return { id: account.id, username: account.username, name: account.name, avatar_url: null };
}
`;
