// LinkedIn's 3-legged OAuth (docs/platforms/linkedin.md "Auth") at its real paths: the consent page
// (/oauth/v2/authorization: the simulators' shared page; `sandbox_username` approves at once, as on X), the token
// endpoint (/oauth/v2/accessToken: 30-minute single-use codes, client secret in the form, 60-day access tokens,
// refresh tokens that keep their first expiry and are not rotated), revocation, OpenID userinfo, and the two
// gates of every /rest call: the LinkedIn-Version / X-Restli-Protocol-Version headers and the bearer token. A member
// and their company page follow from the username in the token alone; the page is written to the store at each token
// grant so that anyone can look it up by id. Spent codes and revoked tokens are store documents.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { sendConsentPage } from '../framework/consent.ts';
import type { SimulatorKit } from '../framework/simulator.ts';
import { KIND, liError, type LiMember, type LiOrganization } from './state.ts';

const ACCESS_TTL = 60 * 24 * 3600; // 60 days
const REFRESH_TTL = 365 * 24 * 3600; // 365 days from the first grant; refreshing does not extend it
const CODE_TTL = 30 * 60; // ⚠ unverified: LinkedIn's docs say the code lives 30 minutes
const KNOWN_SCOPES = new Set([
  'openid',
  'profile',
  'email',
  'w_member_social',
  'r_member_social',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
  'r_member_postAnalytics',
  'r_basicprofile',
]);
const USERNAME = /^[a-z0-9][a-z0-9_-]{0,99}$/i;
const BAD_CODE =
  'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists';

const hash = (text: string) => createHash('sha256').update(text).digest();

/** A member's stable id (LinkedIn's are short opaque strings like `yrZCpj2Z12`). */
function memberId(username: string): string {
  return hash(`linkedin:member:${username.toLowerCase()}`).toString('base64url').replace(/[-_]/g, 'x').slice(0, 10);
}

export function memberFor(username: string): LiMember {
  return { id: memberId(username), username, name: username.replace(/[_-]+/g, ' ') };
}

/** Every sandbox member administers one company page of their own (organization authors, ACL look-ups). */
export function organizationOf(member: LiMember): LiOrganization {
  const id = String((hash(`linkedin:org:${member.username.toLowerCase()}`).readUInt32BE(0) % 90_000_000) + 10_000_000);
  return {
    id,
    name: `${member.name} Company`,
    vanityName: `${member.username.toLowerCase()}-company`,
    admins: [member.id],
  };
}

export function organizationsOf(member: LiMember): LiOrganization[] {
  return [organizationOf(member)];
}

/** Keeps the member's page, so that anyone can look it up by id (`GET /rest/organizations/:id`). */
async function rememberOrganization(kit: SimulatorKit, member: LiMember): Promise<void> {
  const org = organizationOf(member);
  await kit.store.put(KIND.organization, org.id, org);
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

function stringFields(fields: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

/** The authorization request's parameters: the query, and on the consent page's POST its form fields too. */
type AuthorizeQuery = Record<string, string | undefined>;

export function registerLiAuth(app: FastifyInstance, kit: SimulatorKit): void {
  // GET shows the consent page (the shared sandbox one), or approves at once for `sandbox_username`; the page
  // posts back here with `decision`.
  app.get<{ Querystring: AuthorizeQuery }>('/oauth/v2/authorization', (request, reply) =>
    authorize(kit, request, reply),
  );
  app.post<{ Querystring: AuthorizeQuery }>('/oauth/v2/authorization', (request, reply) =>
    authorize(kit, request, reply),
  );
  app.post('/oauth/v2/accessToken', (request, reply) => accessToken(kit, request, reply));
  app.post('/oauth/v2/revoke', (request, reply) => revoke(kit, request, reply));
  app.get('/v2/userinfo', (request, reply) => userinfo(kit, request, reply));
}

async function authorize(
  kit: SimulatorKit,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  const q = {
    ...request.query,
    ...(request.method === 'POST' ? stringFields(parseBody(request.headers['content-type'], request.body).fields) : {}),
  };
  for (const name of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state'] as const) {
    if (!q[name]) return oauthError(reply, 400, 'invalid_request', `A required parameter "${name}" is missing`);
  }
  if (q.response_type !== 'code')
    return oauthError(reply, 400, 'unsupported_response_type', 'response_type must be code');
  let target: URL;
  try {
    target = new URL(q.redirect_uri!);
  } catch {
    return oauthError(reply, 400, 'invalid_request', 'The redirect_uri is not a valid URL');
  }
  if (target.hash) return oauthError(reply, 400, 'invalid_request', 'The redirect_uri may not contain a fragment (#)');
  const unknown = q.scope!.split(/[ ,]+/).filter((s) => s && !KNOWN_SCOPES.has(s));
  if (unknown.length > 0)
    return oauthError(reply, 400, 'invalid_scope', `Scope "${unknown[0]}" is not authorized for your application`);
  if (request.method === 'GET' && !q.sandbox_username)
    return sendConsentPage(reply, {
      platform: 'LinkedIn',
      action: request.url.split('?')[0]!,
      params: q,
      scopes: q.scope!,
      defaultUsername: 'sandbox_member',
    });
  target.searchParams.set('state', q.state!);
  if (q.decision === 'deny') {
    // LinkedIn's own error value when the member refuses (not RFC 6749's access_denied).
    target.searchParams.set('error', 'user_cancelled_authorize');
    target.searchParams.set('error_description', 'The user cancelled the authorization');
    return reply.code(302).header('location', target.toString()).send();
  }
  const username = q.sandbox_username ?? 'sandbox_member';
  if (!USERNAME.test(username))
    return oauthError(reply, 400, 'invalid_request', 'sandbox_username must be letters, digits, - or _ (at most 100).');
  if (!(await kit.mayNameAccount(request, q, username)))
    return oauthError(reply, 403, 'access_denied', 'This sign-in was not started by Herald (no valid sandbox_sig).');
  const member = memberFor(username);
  const scope = q.scope!.split(/[ ,]+/).filter(Boolean).join(' ');
  const code = kit.tokens.sign({
    sub: member.id,
    typ: 'li_code',
    username: member.username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope,
    ttlSeconds: CODE_TTL,
  });
  target.searchParams.set('code', code);
  return reply.code(302).header('location', target.toString()).send();
}

/** The code exchange and the refresh grant; the client secret comes in the form. */
async function accessToken(kit: SimulatorKit, request: FastifyRequest, reply: FastifyReply) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const f = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : '');
  for (const name of ['grant_type', 'client_id', 'client_secret']) {
    if (!f(name)) return oauthError(reply, 400, 'invalid_request', `A required parameter "${name}" is missing`);
  }
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token')
    return oauthError(
      reply,
      400,
      'invalid_request',
      'The provided authorization grant or refresh token is invalid, expired or revoked',
    );
  if (fault) return reply.code(503).send(liError(503, `Injected ${fault.fault}`));
  const secret = hash(f('client_secret')).toString('base64url').slice(0, 16);
  let sub: string;
  let username: string;
  let scope: string;
  let refreshExp: number;
  let refreshToken: string;
  if (f('grant_type') === 'authorization_code') {
    for (const name of ['code', 'redirect_uri'])
      if (!f(name)) return oauthError(reply, 400, 'invalid_request', `A required parameter "${name}" is missing`);
    const check = kit.tokens.verify(f('code'), 'li_code');
    if (!check.ok) return oauthError(reply, 400, 'invalid_request', BAD_CODE);
    const c = check.claims;
    if (c.cid !== f('client_id') || c.redirect !== f('redirect_uri'))
      return oauthError(reply, 400, 'invalid_request', BAD_CODE);
    // Spending the code is an insert: of two exchanges (on two API nodes, too), one wins.
    if (!(await kit.store.insert(KIND.spentCode, c.jti, { at: kit.now() })))
      return oauthError(reply, 400, 'invalid_request', BAD_CODE);
    ({ sub, username, scope } = { sub: c.sub, username: String(c.username), scope: String(c.scope) });
    refreshToken = kit.tokens.sign({
      sub,
      typ: 'li_refresh',
      username,
      scope,
      cid: f('client_id'),
      sec: secret,
      ttlSeconds: REFRESH_TTL,
    });
    refreshExp = Math.floor(kit.now() / 1000) + REFRESH_TTL;
  } else if (f('grant_type') === 'refresh_token') {
    const check = kit.tokens.verify(f('refresh_token'), 'li_refresh');
    if (!check.ok || (await kit.store.get(KIND.revoked, check.claims.jti)))
      return oauthError(
        reply,
        400,
        'invalid_request',
        'The provided authorization grant or refresh token is invalid, expired or revoked',
      );
    const c = check.claims;
    if (c.cid !== f('client_id'))
      return oauthError(reply, 400, 'invalid_request', 'The refresh token was issued to another client');
    if (c.sec !== secret) return oauthError(reply, 401, 'invalid_client', 'Client authentication failed');
    ({ sub, username, scope } = { sub: c.sub, username: String(c.username), scope: String(c.scope) });
    // Not rotated: the same refresh token comes back, with what is left of its first year.
    refreshToken = f('refresh_token');
    refreshExp = c.exp;
  } else {
    return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }
  await rememberOrganization(kit, memberFor(username));
  const access = kit.tokens.sign({
    sub,
    typ: 'li_access',
    username,
    scope,
    cid: f('client_id'),
    ttlSeconds: ACCESS_TTL,
  });
  const nowSec = Math.floor(kit.now() / 1000);
  return {
    access_token: access,
    expires_in: ACCESS_TTL - 1,
    refresh_token: refreshToken,
    refresh_token_expires_in: Math.max(0, refreshExp - nowSec),
    scope: scope.split(' ').join(','),
    token_type: 'Bearer',
    ...(scope.split(' ').includes('openid')
      ? { id_token: kit.tokens.sign({ sub, typ: 'li_id_token', name: username, ttlSeconds: 3600 }) }
      : {}),
  };
}

async function revoke(kit: SimulatorKit, request: FastifyRequest, reply: FastifyReply) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  if (
    typeof fields.client_id !== 'string' ||
    typeof fields.client_secret !== 'string' ||
    typeof fields.token !== 'string'
  ) {
    return oauthError(reply, 400, 'invalid_request', 'client_id, client_secret and token are required');
  }
  for (const typ of ['li_access', 'li_refresh']) {
    const check = kit.tokens.verify(fields.token, typ);
    if (check.ok && check.claims.cid === fields.client_id)
      await kit.store.put(KIND.revoked, check.claims.jti, { at: kit.now() });
  }
  return reply.code(200).send();
}

/** OpenID userinfo: the member behind an `openid` token. */
async function userinfo(kit: SimulatorKit, request: FastifyRequest, reply: FastifyReply) {
  const member = await authenticate(kit, request, reply, ['openid']);
  if (!member) return reply;
  const [given, ...rest] = member.name.split(' ');
  return {
    sub: member.id,
    name: member.name,
    given_name: given,
    family_name: rest.join(' ') || given,
    picture: null,
    locale: { country: 'US', language: 'en' },
    email_verified: false,
  };
}

/** LinkedIn retires a version about a year after its release; a version from the future does not exist yet. */
export function versionProblem(
  kit: SimulatorKit,
  header: string | string[] | undefined,
): { status: number; body: Record<string, unknown> } | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (!raw)
    return {
      status: 400,
      body: liError(400, 'A version must be present. Please specify a version by adding the LinkedIn-Version header.', {
        code: 'VERSION_MISSING',
      }),
    };
  const m = /^(\d{4})(\d{2})(\d{2})?(?:\.\d+)?$/.exec(raw.trim());
  // ⚠ unverified: the answer to a malformed version; a well-formed inactive one is the 426 below (seen in the wild).
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12)
    return { status: 400, body: liError(400, `Invalid version ${raw}: use YYYYMM.`, { code: 'INVALID_VERSION' }) };
  const now = new Date(kit.now());
  const months = now.getUTCFullYear() * 12 + now.getUTCMonth() - (Number(m[1]) * 12 + Number(m[2]) - 1);
  const oldest = typeof kit.settings.linkedinVersionMonths === 'number' ? kit.settings.linkedinVersionMonths : 12;
  if (months < 0 || months >= oldest)
    return {
      status: 426,
      body: liError(426, `Requested version ${raw} is not active`, { code: 'NONEXISTENT_VERSION' }),
    };
  return undefined;
}

/** The member behind the bearer token, or undefined after LinkedIn's 401/403. One store read: the revocation. */
export async function authenticate(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: string[],
  anyOf = false,
): Promise<LiMember | undefined> {
  const header = request.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  if (!token) {
    reply.code(401).send(liError(401, 'Empty oauth2_access_token', { serviceErrorCode: 401 }));
    return undefined;
  }
  const check = kit.tokens.verify(token, 'li_access');
  if (!check.ok) {
    reply.code(401).send(
      check.reason === 'expired'
        ? liError(401, 'The token used in the request has expired', {
            serviceErrorCode: 65601,
            code: 'EXPIRED_ACCESS_TOKEN',
          })
        : liError(401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' }),
    );
    return undefined;
  }
  if (await kit.store.get(KIND.revoked, check.claims.jti)) {
    reply.code(401).send(
      liError(401, 'The token used in the request has been revoked by the user', {
        serviceErrorCode: 65602,
        code: 'REVOKED_ACCESS_TOKEN',
      }),
    );
    return undefined;
  }
  if (!hasScopes(String(check.claims.scope).split(' '), request, reply, scopes, anyOf)) return undefined;
  return memberFor(String(check.claims.username));
}

/** Whether `granted` covers `scopes` (all of them, or one with `anyOf`); false once LinkedIn's 403 is sent. */
export function hasScopes(
  granted: string[],
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: string[],
  anyOf = false,
): boolean {
  const ok = anyOf ? scopes.some((s) => granted.includes(s)) : scopes.every((s) => granted.includes(s));
  if (!ok)
    reply.code(403).send(
      liError(403, `Not enough permissions to access: ${request.method} ${request.routeOptions.url ?? request.url}`, {
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
      }),
    );
  return ok;
}

/** The scopes of the bearer token (already authenticated). */
export function grantedScopes(kit: SimulatorKit, request: FastifyRequest): string[] {
  const header = request.headers.authorization ?? '';
  const check = kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'li_access');
  return check.ok ? String(check.claims.scope).split(' ') : [];
}
