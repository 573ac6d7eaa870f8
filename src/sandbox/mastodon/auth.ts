// Mastodon's per-instance OAuth (docs/platforms/mastodon.md "Auth"): register an app, authorize (a consent page with
// approve and deny, or at once as `sandbox_username`), revoke, exchange the code (PKCE S256 when a challenge was sent)
// for a token that lives until revoked; verify_credentials; the instance document with its configurable limits.
// Apps, spent codes and revoked tokens are store documents, so a restart or another API node honours them.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { arrayField, parseBody } from '../framework/body.ts';
import { deniedRedirect, sendConsentPage } from '../framework/consent.ts';
import { numericId, type SimulatorKit } from '../framework/simulator.ts';
import { KIND, type MastoAccount, type MastoApp, type MastoContext } from './state.ts';

const TOKEN_TTL = 10 * 365 * 24 * 3600; // Mastodon tokens do not expire; ten years stands for "never"

export interface InstanceConfig {
  maxCharacters: number;
  maxMediaAttachments: number;
  charactersReservedPerUrl: number;
  imageSizeLimit: number;
  videoSizeLimit: number;
}

export function instanceConfig(kit: SimulatorKit): InstanceConfig {
  const n = (key: string, fallback: number) =>
    typeof kit.settings[key] === 'number' ? (kit.settings[key] as number) : fallback;
  return {
    maxCharacters: n('maxCharacters', 500),
    maxMediaAttachments: n('maxMediaAttachments', 4),
    charactersReservedPerUrl: 23,
    imageSizeLimit: n('imageSizeLimit', 16 * 1024 * 1024),
    videoSizeLimit: n('videoSizeLimit', 99 * 1024 * 1024),
  };
}

/** The account signed in as `username`: nothing to store, the id is derived from the name (on every node alike). */
export function accountOf(username: string): MastoAccount {
  return { id: numericId(`mastodon:${username.toLowerCase()}`), username, displayName: username };
}

export function accountJson(a: MastoAccount, host: string): Record<string, unknown> {
  return {
    id: a.id,
    username: a.username,
    acct: a.username,
    display_name: a.displayName,
    locked: false,
    bot: false,
    url: `${host}/@${a.username}`,
    avatar: `${host}/avatars/original/missing.png`,
    followers_count: 0,
    following_count: 0,
    statuses_count: 0,
    note: '',
  };
}

/** The account behind the bearer token, or undefined after Mastodon's 401. One store read: the revocation. */
export async function authenticate(
  ctx: MastoContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<MastoAccount | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'masto_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti)) !== undefined) {
    reply.code(401).send({ error: 'The access token is invalid' });
    return undefined;
  }
  return accountOf(String(check.claims.username));
}

export function hostOf(request: FastifyRequest, prefix: string): string {
  return `${request.protocol}://${request.headers.host}${prefix}`;
}

/** The authorization request's parameters: the query, and on the consent page's POST its form fields too. */
type AuthorizeQuery = Record<string, string | undefined>;

export function registerMastoAuth(app: FastifyInstance, ctx: MastoContext): void {
  app.post('/api/v1/apps', (request, reply) => registerApp(ctx, request, reply));
  // GET shows the consent page (or approves at once for `sandbox_username`); the page posts back here.
  app.get<{ Querystring: AuthorizeQuery }>('/oauth/authorize', (request, reply) => authorize(ctx, request, reply));
  app.post<{ Querystring: AuthorizeQuery }>('/oauth/authorize', (request, reply) => authorize(ctx, request, reply));
  app.post('/oauth/revoke', (request, reply) => revoke(ctx, request, reply));
  app.post('/oauth/token', (request, reply) => token(ctx, request, reply));
  app.get('/api/v1/accounts/verify_credentials', (request, reply) => verifyCredentials(ctx, request, reply));
  app.get('/api/v2/instance', (request) => instance(ctx, request));
}

async function registerApp(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const redirectUris =
    arrayField(fields, 'redirect_uris')
      ?.map(String)
      .flatMap((s) => s.split(/\s+/))
      .filter(Boolean) ?? [];
  if (!fields.client_name || redirectUris.length === 0)
    return reply.code(422).send({ error: "Validation failed: Name can't be blank, Redirect URI can't be blank" });
  const app: MastoApp = {
    clientId: randomBytes(16).toString('base64url'),
    clientSecret: randomBytes(24).toString('base64url'),
    redirectUris,
    scopes: String(fields.scopes ?? 'read'),
  };
  await ctx.kit.store.put(KIND.app, app.clientId, app);
  return {
    id: numericId(app.clientId),
    name: fields.client_name,
    website: fields.website ?? null,
    redirect_uri: redirectUris.join('\n'),
    redirect_uris: redirectUris,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    scopes: app.scopes.split(' '),
  };
}

async function authorize(
  ctx: MastoContext,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
) {
  const { kit } = ctx;
  const posted = request.method === 'POST' ? parseBody(request.headers['content-type'], request.body).fields : {};
  const q = {
    ...request.query,
    ...(Object.fromEntries(Object.entries(posted).filter(([, v]) => typeof v === 'string')) as Record<string, string>),
  };
  const client = q.client_id ? await kit.store.get<MastoApp>(KIND.app, q.client_id) : undefined;
  if (!client)
    return reply
      .code(400)
      .send({ error: 'invalid_client', error_description: 'Client authentication failed due to unknown client.' });
  if (q.response_type !== 'code' || !q.redirect_uri || !client.redirectUris.includes(q.redirect_uri))
    return reply.code(400).send({
      error: 'invalid_request',
      error_description: 'response_type must be code and redirect_uri must be registered.',
    });
  if (request.method === 'GET' && !q.sandbox_username)
    return sendConsentPage(reply, {
      platform: 'Mastodon',
      action: request.url.split('?')[0]!,
      params: q,
      scopes: q.scope ?? 'read',
      defaultUsername: 'sandbox',
    });
  if (q.decision === 'deny') return deniedRedirect(reply, q.redirect_uri, q.state);
  const username = q.sandbox_username ?? 'sandbox';
  if (!/^[a-z0-9_]{1,30}$/i.test(username))
    return reply
      .code(400)
      .send({ error: 'invalid_request', error_description: 'sandbox_username is not a valid username.' });
  if (!(await kit.mayNameAccount(request, q, username)))
    return reply.code(403).send({
      error: 'access_denied',
      error_description: 'This sign-in was not started by Herald (no valid sandbox_sig).',
    });
  const code = kit.tokens.sign({
    sub: accountOf(username).id,
    typ: 'masto_code',
    username,
    cid: client.clientId,
    redirect: q.redirect_uri,
    scope: q.scope ?? 'read',
    challenge: q.code_challenge ?? null,
    ttlSeconds: 600,
  });
  const target = new URL(q.redirect_uri);
  target.searchParams.set('code', code);
  if (q.state) target.searchParams.set('state', q.state);
  return reply.code(302).header('location', target.toString()).send();
}

/** Revokes a token (RFC 7009): Mastodon answers 200 `{}` whether or not the token was valid. */
async function revoke(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const client = await appOf(ctx, fields.client_id);
  if (!client || client.clientSecret !== fields.client_secret)
    return reply
      .code(403)
      .send({ error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' });
  const check = ctx.kit.tokens.verify(String(fields.token ?? ''), 'masto_access');
  if (check.ok) await ctx.kit.store.put(KIND.revoked, check.claims.jti, { at: ctx.kit.now() });
  return {};
}

/** The registered app a request names (`client_id`), if any. */
async function appOf(ctx: MastoContext, clientId: unknown): Promise<MastoApp | undefined> {
  return typeof clientId === 'string' && clientId !== '' ? ctx.kit.store.get<MastoApp>(KIND.app, clientId) : undefined;
}

/** The code exchange (PKCE S256 when the authorization request sent a challenge). */
async function token(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const client = await appOf(ctx, fields.client_id);
  if (!client || client.clientSecret !== fields.client_secret)
    return reply.code(401).send({
      error: 'invalid_client',
      error_description:
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    });
  if (fields.grant_type !== 'authorization_code')
    return reply.code(400).send({
      error: 'unsupported_grant_type',
      error_description: 'The authorization grant type is not supported by the authorization server.',
    });
  const check = kit.tokens.verify(String(fields.code ?? ''), 'masto_code');
  const invalidGrant = () =>
    reply.code(400).send({
      error: 'invalid_grant',
      error_description:
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
    });
  if (!check.ok || check.claims.cid !== client.clientId || check.claims.redirect !== fields.redirect_uri)
    return invalidGrant();
  if (
    check.claims.challenge &&
    createHash('sha256')
      .update(String(fields.code_verifier ?? ''))
      .digest('base64url') !== check.claims.challenge
  )
    return invalidGrant();
  // Spent once every check passed; a second exchange (here or on another node) is refused.
  if (!(await kit.store.insert(KIND.spent, check.claims.jti, { at: kit.now() }))) return invalidGrant();
  const token = kit.tokens.sign({
    sub: check.claims.sub,
    typ: 'masto_access',
    username: check.claims.username,
    scope: check.claims.scope,
    ttlSeconds: TOKEN_TTL,
  });
  return {
    access_token: token,
    token_type: 'Bearer',
    scope: check.claims.scope,
    created_at: Math.floor(kit.now() / 1000),
  };
}

async function verifyCredentials(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const account = await authenticate(ctx, request, reply);
  if (!account) return reply;
  return accountJson(account, hostOf(request, ctx.prefix));
}

/** The instance document, with the limits this simulator was configured with. */
async function instance(ctx: MastoContext, request: FastifyRequest) {
  const c = instanceConfig(ctx.kit);
  return {
    domain: String(request.headers.host ?? 'sandbox.invalid'),
    title: 'Herald sandbox Mastodon',
    version: '4.3.0',
    configuration: {
      statuses: {
        max_characters: c.maxCharacters,
        max_media_attachments: c.maxMediaAttachments,
        characters_reserved_per_url: c.charactersReservedPerUrl,
      },
      media_attachments: {
        supported_mime_types: [
          'image/jpeg',
          'image/png',
          'image/gif',
          'image/webp',
          'video/mp4',
          'video/quicktime',
          'video/webm',
        ],
        image_size_limit: c.imageSizeLimit,
        image_matrix_limit: 33_177_600,
        video_size_limit: c.videoSizeLimit,
        video_frame_rate_limit: 120,
        video_matrix_limit: 8_294_400,
      },
      polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 },
    },
  };
}
