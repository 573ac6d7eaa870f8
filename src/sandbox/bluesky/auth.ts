// Accounts and sessions of the Bluesky simulator (docs/platforms/bluesky.md "Auth"): createAccount, app passwords,
// createSession (identifier + password or app password), refreshSession (bearer refresh token, no body,
// single use), getSession, resolveHandle; access tokens last 2 hours, refresh tokens 90 days. Invalid tokens
// are 400 InvalidToken and expired ones 400 ExpiredToken — not 401, as on a real PDS. Accounts and spent refresh
// tokens are store documents; a request proves who it is by its token alone, so most routes read no account.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { windowHeaders, type SimulatorKit } from '../framework/simulator.ts';
import { didFor, KIND, xrpcError, type BskyAccount, type BskyContext } from './state.ts';

const ACCESS_TTL = 2 * 3600;
const REFRESH_TTL = 90 * 24 * 3600;
export const HANDLE_DOMAIN = '.test'; // a dev PDS's available user domain

/** Who a verified token speaks for (its claims): enough for every repo write, with no store read. */
export interface BskyCaller {
  did: string;
  handle: string;
}

function issue(kit: SimulatorKit, account: BskyCaller & { email: string }): Record<string, unknown> {
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

/**
 * The account behind a verified token. After a reset the token still verifies (it is signed, not stored), so the
 * account is rebuilt from its claims, with no password and no app passwords: its tokens keep working.
 */
export async function accountFor(kit: SimulatorKit, caller: BskyCaller): Promise<BskyAccount> {
  const stored = await kit.store.get<BskyAccount>(KIND.account, caller.did);
  if (stored) return stored;
  const account: BskyAccount = {
    did: caller.did,
    handle: caller.handle,
    email: `${caller.handle}@sandbox.invalid`,
    password: null,
    appPasswords: {},
  };
  if (await kit.store.insert(KIND.account, account.did, account)) return account;
  // Another node rebuilt it first.
  return (await kit.store.get<BskyAccount>(KIND.account, caller.did)) ?? account;
}

export async function bearer(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  typ = 'bsky_access',
): Promise<BskyCaller | undefined> {
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
  // ⚠ unverified: a real PDS lets a refresh token be reused within a grace period; here it works once. Spending it
  // is an insert, so two API nodes cannot both accept one.
  if (typ === 'bsky_refresh' && !(await kit.store.insert(KIND.spentRefresh, check.claims.jti, { at: kit.now() }))) {
    reply.code(400).send(xrpcError('ExpiredToken', 'Token has been revoked'));
    return undefined;
  }
  return { did: check.claims.sub, handle: String(check.claims.handle) };
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
  const { kit } = ctx;
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
  const account: BskyAccount = {
    did: didFor(handle),
    handle,
    email: String(fields.email ?? `${handle}@sandbox.invalid`),
    password: fields.password,
    appPasswords: {},
  };
  if (!(await kit.store.insert(KIND.account, account.did, account)))
    return reply.code(400).send(xrpcError('HandleNotAvailable', 'Handle already taken'));
  const { did, accessJwt, refreshJwt } = issue(kit, account);
  return { handle, did, accessJwt, refreshJwt };
}

async function createAppPassword(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const name = String(fields.name ?? '');
  const password = [0, 1, 2, 3].map(() => randomBytes(3).toString('hex').slice(0, 4)).join('-');
  let added = false;
  if (name) {
    await accountFor(kit, caller);
    await kit.store.update<BskyAccount>(KIND.account, caller.did, (account) => {
      if (Object.hasOwn(account.appPasswords, name)) return undefined;
      added = true;
      return { ...account, appPasswords: { ...account.appPasswords, [name]: password } };
    });
  }
  if (!added) return reply.code(400).send(xrpcError('InvalidRequest', 'An app password needs a new, non-empty name.'));
  return { name, password, createdAt: new Date(kit.now()).toISOString(), privileged: false };
}

/** Signs in with the account's password or one of its app passwords. */
async function createSession(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const identifier = String(fields.identifier ?? '').toLowerCase();
  const window = kit.windows.hit(`session:${identifier}`, kit.limit(30), 5 * 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  const did = identifier.startsWith('did:') ? identifier : didFor(identifier);
  const account = identifier ? await kit.store.get<BskyAccount>(KIND.account, did) : undefined;
  const password = String(fields.password ?? '');
  if (!account || !(account.password === password || Object.values(account.appPasswords).includes(password)))
    return reply.code(401).send(xrpcError('AuthenticationRequired', 'Invalid identifier or password'));
  return issue(kit, account);
}

/** The refresh token comes as the bearer, with no body; each one works once. */
async function refreshSession(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (body.length > 0)
    return reply.code(400).send(xrpcError('InvalidRequest', 'A request body was provided when none was expected'));
  const caller = await bearer(kit, request, reply, 'bsky_refresh');
  if (!caller) return reply;
  // The answer carries no email, so the account itself need not be read.
  const { did, handle, accessJwt, refreshJwt } = issue(kit, { ...caller, email: '' });
  return { did, handle, accessJwt, refreshJwt, active: true };
}

async function getSession(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  const account = await accountFor(kit, caller);
  return { did: account.did, handle: account.handle, email: account.email, active: true };
}

async function resolveHandle(
  ctx: BskyContext,
  request: FastifyRequest<{ Querystring: { handle?: string } }>,
  reply: FastifyReply,
) {
  const handle = String(request.query.handle ?? '').toLowerCase();
  const account = handle ? await ctx.kit.store.get<BskyAccount>(KIND.account, didFor(handle)) : undefined;
  if (!account) return reply.code(400).send(xrpcError('InvalidRequest', 'Unable to resolve handle'));
  return { did: account.did };
}
