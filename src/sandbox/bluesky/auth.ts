// Accounts and sessions of the Bluesky simulator (docs/platforms/bluesky.md "Auth"): createAccount, app passwords,
// createSession (identifier + password or app password), refreshSession (bearer refresh token, no body,
// single use), getSession, resolveHandle; access tokens last 2 hours, refresh tokens 90 days. Invalid tokens
// are 400 InvalidToken and expired ones 400 ExpiredToken — not 401, as on a real PDS.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { windowHeaders, type SimulatorKit } from '../framework/simulator.ts';
import { didFor, xrpcError, type BskyAccount, type BskyContext, type BskyState } from './state.ts';

const ACCESS_TTL = 2 * 3600;
const REFRESH_TTL = 90 * 24 * 3600;
export const HANDLE_DOMAIN = '.test'; // a dev PDS's available user domain

function issue(kit: SimulatorKit, account: BskyAccount): Record<string, unknown> {
  return {
    did: account.did,
    handle: account.handle,
    email: account.email,
    accessJwt: kit.tokens.sign({
      sub: account.did,
      typ: 'bsky_access',
      handle: account.handle,
      scope: 'com.atproto.appPass',
      ttlSeconds: ACCESS_TTL,
    }),
    refreshJwt: kit.tokens.sign({
      sub: account.did,
      typ: 'bsky_refresh',
      handle: account.handle,
      scope: 'com.atproto.refresh',
      ttlSeconds: REFRESH_TTL,
    }),
    active: true,
  };
}

/** The account of a verified token; rebuilt from the token's claims after a restart. */
export function accountFor(state: BskyState, did: string, handle: string): BskyAccount {
  let account = state.accounts.get(did);
  if (!account) {
    account = { did, handle, email: `${handle}@sandbox.invalid`, password: null, appPasswords: new Map() };
    state.accounts.set(did, account);
    state.handles.set(handle, did);
  }
  return account;
}

export function bearer(
  kit: SimulatorKit,
  state: BskyState,
  request: FastifyRequest,
  reply: FastifyReply,
  typ = 'bsky_access',
): BskyAccount | undefined {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) {
    reply.code(401).send(xrpcError('AuthMissing', 'Authentication Required'));
    return undefined;
  }
  const check = kit.tokens.verify(header.slice(7), typ);
  if (!check.ok) {
    reply
      .code(400)
      .send(
        check.reason === 'expired'
          ? xrpcError('ExpiredToken', 'Token has expired')
          : xrpcError('InvalidToken', 'Token could not be verified'),
      );
    return undefined;
  }
  // ⚠ unverified: a real PDS lets a refresh token be reused within a grace period; here it works once.
  if (typ === 'bsky_refresh' && state.spentRefresh.has(check.claims.jti)) {
    reply.code(400).send(xrpcError('ExpiredToken', 'Token has been revoked'));
    return undefined;
  }
  if (typ === 'bsky_refresh') state.spentRefresh.add(check.claims.jti);
  return accountFor(state, check.claims.sub, String(check.claims.handle));
}

export function registerBskyAuth(app: FastifyInstance, ctx: BskyContext): void {
  app.get('/xrpc/com.atproto.server.describeServer', async () => describeServer());
  app.post('/xrpc/com.atproto.server.createAccount', (request, reply) => createAccount(ctx, request, reply));
  app.post('/xrpc/com.atproto.server.createAppPassword', (request, reply) => createAppPassword(ctx, request, reply));
  app.post('/xrpc/com.atproto.server.createSession', (request, reply) => createSession(ctx, request, reply));
  app.post('/xrpc/com.atproto.server.refreshSession', (request, reply) => refreshSession(ctx, request, reply));
  app.get('/xrpc/com.atproto.server.getSession', (request, reply) => getSession(ctx, request, reply));
  app.get<{ Querystring: { handle?: string } }>('/xrpc/com.atproto.identity.resolveHandle', (request, reply) =>
    resolveHandle(ctx, request, reply),
  );
}

function describeServer(): Record<string, unknown> {
  return {
    did: 'did:web:sandbox.herald',
    availableUserDomains: [HANDLE_DOMAIN],
    inviteCodeRequired: false,
  };
}

async function createAccount(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const handle = String(fields.handle ?? '').toLowerCase();
  if (
    !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/.test(handle) ||
    !handle.endsWith(HANDLE_DOMAIN)
  ) {
    return reply.code(400).send(xrpcError('InvalidHandle', `Handle must be a domain name ending in ${HANDLE_DOMAIN}.`));
  }
  if (typeof fields.password !== 'string' || fields.password.length < 8)
    return reply.code(400).send(xrpcError('InvalidRequest', 'Password must be at least 8 characters.'));
  if (state.handles.has(handle)) return reply.code(400).send(xrpcError('HandleNotAvailable', 'Handle already taken'));
  const account: BskyAccount = {
    did: didFor(handle),
    handle,
    email: String(fields.email ?? `${handle}@sandbox.invalid`),
    password: fields.password,
    appPasswords: new Map(),
  };
  state.accounts.set(account.did, account);
  state.handles.set(handle, account.did);
  const { did, accessJwt, refreshJwt } = issue(kit, account);
  return { handle, did, accessJwt, refreshJwt };
}

async function createAppPassword(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const account = bearer(kit, state, request, reply);
  if (!account) return reply;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const name = String(fields.name ?? '');
  if (!name || account.appPasswords.has(name))
    return reply.code(400).send(xrpcError('InvalidRequest', 'An app password needs a new, non-empty name.'));
  const password = [0, 1, 2, 3].map(() => randomBytes(3).toString('hex').slice(0, 4)).join('-');
  account.appPasswords.set(name, password);
  return { name, password, createdAt: new Date(kit.now()).toISOString(), privileged: false };
}

/** Signs in with the account's password or one of its app passwords. */
async function createSession(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const identifier = String(fields.identifier ?? '').toLowerCase();
  const window = kit.windows.hit(`session:${identifier}`, kit.limit(30), 5 * 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  const did = identifier.startsWith('did:') ? identifier : state.handles.get(identifier);
  const account = did ? state.accounts.get(did) : undefined;
  const password = String(fields.password ?? '');
  const ok = account && (account.password === password || [...account.appPasswords.values()].includes(password));
  if (!ok) return reply.code(401).send(xrpcError('AuthenticationRequired', 'Invalid identifier or password'));
  return issue(kit, account!);
}

/** The refresh token comes as the bearer, with no body; each one works once. */
async function refreshSession(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (body.length > 0)
    return reply.code(400).send(xrpcError('InvalidRequest', 'A request body was provided when none was expected'));
  const account = bearer(kit, state, request, reply, 'bsky_refresh');
  if (!account) return reply;
  const { did, handle, accessJwt, refreshJwt } = issue(kit, account);
  return { did, handle, accessJwt, refreshJwt, active: true };
}

async function getSession(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const account = bearer(kit, state, request, reply);
  if (!account) return reply;
  return { did: account.did, handle: account.handle, email: account.email, active: true };
}

async function resolveHandle(
  ctx: BskyContext,
  request: FastifyRequest<{ Querystring: { handle?: string } }>,
  reply: FastifyReply,
) {
  const handle = String(request.query.handle ?? '').toLowerCase();
  const did = ctx.state.handles.get(handle);
  if (!did) return reply.code(400).send(xrpcError('InvalidRequest', 'Unable to resolve handle'));
  return { did };
}
