// The templates of the simulator's routes, src/sandbox/<p>/auth.ts (OAuth, the current user, the bearer check) and
// src/sandbox/<p>/posts.ts (media, posts, look-up, delete, post pages). Tokens: __p__, __P__, __PU__, __D__.

export const SIM_AUTH = `// __D__'s sign-in as the simulator plays it: OAuth 2.0 authorization code (a consent page with approve and deny,
// or at once as \`sandbox_username\`), PKCE S256 when a challenge was sent, access tokens with a refresh token,
// revocation; the current user; and the bearer check every other route runs.
// FILL IN: __D__'s real OAuth (paths, parameters, token lifetimes, whether refresh tokens rotate, error bodies).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { deniedRedirect, sendConsentPage } from '../framework/consent.ts';
import { numericId } from '../framework/simulator.ts';
import type { __P__Account, __P__Context, __P__State } from './state.ts';

const ACCESS_TTL = 3600; // FILL IN: __D__'s access-token lifetime
const REFRESH_TTL = 60 * 24 * 3600; // FILL IN: __D__'s refresh-token lifetime
const CODE_TTL = 600;

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

export function accountFor(state: __P__State, username: string): __P__Account {
  const id = numericId(\`__p__:\${username.toLowerCase()}\`);
  let account = state.accounts.get(id);
  if (!account) {
    account = { id, username, name: username };
    state.accounts.set(id, account);
  }
  return account;
}

/** The account behind the bearer token, or undefined after the 401. */
export function authenticate(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply): __P__Account | undefined {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', '__p___access');
  if (!check.ok || ctx.state.revoked.has(check.claims.jti)) {
    ctx.errorReply(reply, 401, 'The access token is invalid or expired.');
    return undefined;
  }
  return accountFor(ctx.state, String(check.claims.username));
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
  const code = ctx.kit.tokens.sign({
    sub: accountFor(ctx.state, username).id,
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
  const { kit, state } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'expired_token') return oauthError(reply, 400, 'invalid_grant', 'The token is expired.');
  if (fault) return ctx.errorReply(reply, 503, 'Service Unavailable');
  let claims: { sub: string; username?: unknown; scope?: unknown };
  if (fields.grant_type === 'authorization_code') {
    const check = kit.tokens.verify(String(fields.code ?? ''), '__p___code');
    if (!check.ok || state.spentCodes.has(check.claims.jti))
      return oauthError(reply, 400, 'invalid_grant', 'The authorization code is invalid, expired or used.');
    const c = check.claims;
    if (c.cid !== fields.client_id || c.redirect !== fields.redirect_uri)
      return oauthError(reply, 400, 'invalid_grant', 'client_id or redirect_uri does not match the authorization.');
    if (c.challenge && createHash('sha256').update(String(fields.code_verifier ?? '')).digest('base64url') !== c.challenge)
      return oauthError(reply, 400, 'invalid_grant', 'code_verifier does not match the code_challenge.');
    state.spentCodes.add(c.jti);
    claims = c;
  } else if (fields.grant_type === 'refresh_token') {
    const check = kit.tokens.verify(String(fields.refresh_token ?? ''), '__p___refresh');
    if (!check.ok || state.revoked.has(check.claims.jti))
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
    if (check.ok) ctx.state.revoked.add(check.claims.jti);
  }
  return {};
}

async function me(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const account = authenticate(ctx, request, reply);
  if (!account) return reply;
  return { id: account.id, username: account.username, name: account.name, avatar_url: null };
}
`;

export const SIM_POSTS = `// __D__ posts and media as the simulator plays them: media uploaded as bytes (images ready at once, video
// processing for a while), posts with an Idempotency-Key remembered per account, replies, the look-up by key,
// delete, and a web page per post (sandbox URLs point there). Every route takes the shared faults.
// FILL IN: __D__'s real calls (paths, bodies, answers), its validation (what it rejects), its media protocol,
// its rate limits and their headers; mark what the notes do not confirm with "⚠ unverified".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measure, MAX_LENGTH } from '../../platforms/__p__/limits.ts';
import { parseBody } from '../framework/body.ts';
import type { FaultRule } from '../framework/faults.ts';
import { applyFault, snowflake, windowHeaders } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { authenticate } from './auth.ts';
import type { __P__Account, __P__Context, __P__Media, __P__Post } from './state.ts';

const VIDEO_PROCESSING_MS = 1000;

const hostOf = (ctx: __P__Context, request: FastifyRequest) =>
  \`\${request.protocol}://\${request.headers.host}\${ctx.prefix}\`;

function postJson(ctx: __P__Context, p: __P__Post, request: FastifyRequest) {
  return {
    id: p.id,
    url: \`\${hostOf(ctx, request)}/p/\${p.id}\`,
    text: p.text,
    reply_to: p.replyTo,
    media_ids: p.mediaIds,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

function mediaJson(ctx: __P__Context, m: __P__Media) {
  const status = ctx.kit.now() < m.readyAt ? 'processing' : m.failed ? 'failed' : 'ready';
  return { id: m.id, status, ...(status === 'failed' && { error: 'The file could not be processed.' }) };
}

/**
 * Every authenticated call: the token, the rate window (FILL IN: __D__'s limits), and the operation's faults. The
 * fault comes back when it is the route's own business (media faults) or when the work must be done before the
 * connection is dropped (\`drop\`).
 */
function gate(
  ctx: __P__Context,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
): { account: __P__Account; drop: boolean; fault: FaultRule | undefined } | undefined {
  const { kit, errorReply } = ctx;
  const account = authenticate(ctx, request, reply);
  if (!account) return undefined;
  const window = kit.windows.hit(\`all:\${account.id}\`, kit.limit(300), 15 * 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) {
    errorReply(reply, 429, 'Too many requests.');
    return undefined;
  }
  const fault = kit.faults.take(operation, account.id);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  return applied === 'sent' ? undefined : { account, drop: applied === 'drop', fault };
}

interface IdParams {
  id: string;
}

export function register__P__Posts(app: FastifyInstance, ctx: __P__Context): void {
  app.post('/v1/media', (request, reply) => uploadMedia(ctx, request, reply));
  app.get<{ Params: IdParams }>('/v1/media/:id', (request, reply) => readMedia(ctx, request, reply));
  app.post('/v1/posts', (request, reply) => createPost(ctx, request, reply));
  app.get<{ Querystring: { idempotency_key?: string } }>('/v1/posts', (request, reply) => lookup(ctx, request, reply));
  app.delete<{ Params: IdParams }>('/v1/posts/:id', (request, reply) => deletePost(ctx, request, reply));
  app.get<{ Params: IdParams }>('/p/:id', (request, reply) => postPage(ctx, request, reply));
}

async function uploadMedia(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state, errorReply } = ctx;
  const g = gate(ctx, request, reply, 'upload_media');
  if (!g) return reply;
  const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const type = sniff(data);
  if (!type || !/^(image\\/(jpeg|png)|video\\/mp4)$/.test(type))
    return errorReply(reply, 400, 'media_type_unsupported: the file is not a JPEG, PNG or MP4.');
  const m: __P__Media = {
    id: snowflake(kit.now()),
    accountId: g.account.id,
    contentType: type,
    size: data.length,
    readyAt:
      kit.now() +
      (type.startsWith('video/') ? VIDEO_PROCESSING_MS : 0) +
      (g.fault?.fault === 'slow_media' ? (g.fault.delayMs ?? 3000) : 0),
    failed: g.fault?.fault === 'media_failed',
  };
  state.media.set(m.id, m);
  return reply.code(201).send(mediaJson(ctx, m));
}

async function readMedia(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = gate(ctx, request, reply, 'media_status');
  if (!g) return reply;
  const m = ctx.state.media.get(request.params.id);
  if (!m || m.accountId !== g.account.id) return ctx.errorReply(reply, 404, 'No such media.');
  return mediaJson(ctx, m);
}

async function createPost(ctx: __P__Context, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state, errorReply } = ctx;
  const g = gate(ctx, request, reply, 'create_post');
  if (!g) return reply;
  const key = request.headers['idempotency-key'];
  const remembered = typeof key === 'string' ? state.idempotency.get(\`\${g.account.id}:\${key}\`) : undefined;
  if (remembered) return postJson(ctx, state.posts.get(remembered)!, request);
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json') return errorReply(reply, 400, 'The body must be JSON.');
  const f = body.fields;
  const text = typeof f.text === 'string' ? f.text : '';
  const media = Array.isArray(f.media) ? (f.media as Array<{ id?: unknown }>) : [];
  if (text.trim() === '' && media.length === 0) return errorReply(reply, 400, 'A post needs text or media.');
  if (measure(text) > MAX_LENGTH)
    return errorReply(reply, 400, \`The text is longer than \${MAX_LENGTH} characters.\`);
  const items = media.map((item) => state.media.get(String(item.id)));
  if (items.some((m) => !m || m.accountId !== g.account.id))
    return errorReply(reply, 400, 'media_not_found: a media id is unknown.');
  if (items.some((m) => m!.readyAt > kit.now() || m!.failed))
    return errorReply(reply, 400, 'media_not_ready: a media item has not finished processing.');
  const replyTo = typeof f.reply_to === 'string' ? f.reply_to : null;
  if (replyTo !== null && (!state.posts.get(replyTo) || state.posts.get(replyTo)!.deleted))
    return errorReply(reply, 404, 'The post replied to does not exist.');
  const post: __P__Post = {
    id: snowflake(kit.now()),
    accountId: g.account.id,
    text,
    replyTo,
    mediaIds: items.map((m) => m!.id),
    createdAt: kit.now(),
    deleted: false,
  };
  state.posts.set(post.id, post);
  if (typeof key === 'string') state.idempotency.set(\`\${g.account.id}:\${key}\`, post.id);
  if (g.drop) return kit.dropConnection(request, reply);
  return reply.code(201).send(postJson(ctx, post, request));
}

async function lookup(
  ctx: __P__Context,
  request: FastifyRequest<{ Querystring: { idempotency_key?: string } }>,
  reply: FastifyReply,
) {
  const g = gate(ctx, request, reply, 'lookup');
  if (!g) return reply;
  const id = ctx.state.idempotency.get(\`\${g.account.id}:\${request.query.idempotency_key ?? ''}\`);
  const post = id ? ctx.state.posts.get(id) : undefined;
  return { data: post && !post.deleted ? [postJson(ctx, post, request)] : [] };
}

async function deletePost(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = gate(ctx, request, reply, 'delete');
  if (!g) return reply;
  const post = ctx.state.posts.get(request.params.id);
  if (!post || post.deleted || post.accountId !== g.account.id) return ctx.errorReply(reply, 404, 'No such post.');
  post.deleted = true;
  return reply.code(204).send();
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Sandbox URLs of posts point here. */
async function postPage(ctx: __P__Context, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const post = ctx.state.posts.get(request.params.id);
  if (!post || post.deleted)
    return reply.code(404).type('text/plain').send('This post does not exist in the sandbox (deleted, or the sandbox restarted).');
  return reply
    .type('text/html; charset=utf-8')
    .send(\`<!doctype html><meta charset="utf-8"><title>Sandbox __D__ post</title><p>\${esc(post.text)}</p>\`);
}
`;
