// Facebook Login as docs/platforms/facebook.md "Auth" describes it: the OAuth dialog (a consent page; with
// `sandbox_username` it approves at once as that user, the X simulator's convention), the code exchange
// (single-use codes that live 10 minutes ⚠ unverified), the long-lived exchange (`fb_exchange_token`, ≈60 days),
// `/me`, `/me/accounts` with one Page access token per Page, and removal of the app's permissions. The consent
// page is the Meta simulators' shared one (`decision=approve|deny`).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { numericId } from '../framework/simulator.ts';
import type { SandboxStore } from '../framework/store.ts';
import { consentPage } from '../meta/consent.ts';
import { queryFields } from '../meta/graph.ts';
import { checkToken, graphError } from './graph-reply.ts';
import { KIND, type FbPage, type FbSim, type FbUser } from './state.ts';

const CODE_TTL = 600; // ⚠ unverified: Meta says codes are short-lived; 10 minutes is the figure developers report
const SHORT_TTL = 2 * 3600; // "short-lived, hours"
const LONG_TTL = 5_183_944; // the expires_in Meta documents for a long-lived user token (≈60 days)
const NEVER_TTL = 10 * 365 * 24 * 3600; // Page tokens from a long-lived user token do not expire ⚠ unverified
export const GRAPH_VERSION = /^v\d{1,2}\.0$/;

/**
 * The user a username signs in as, and the two Pages every sandbox user manages (so account choice after consent
 * has something to choose from). Both follow from the username alone, so a Page token's claims rebuild its Page
 * without a read; sign-in stores them too, for reads of a Page by id.
 */
export function userFor(username: string): { user: FbUser; pages: FbPage[] } {
  const id = numericId(`facebook:user:${username.toLowerCase()}`);
  const user: FbUser = { id, username, name: username.replace(/_/g, ' ') };
  const pages = (
    [
      ['', 'Page'],
      ['_shop', 'Shop'],
    ] as const
  ).map(([suffix, label]) => ({
    id: numericId(`facebook:page:${username.toLowerCase()}${suffix}`),
    name: `${user.name} ${label}`,
    username: `${username}${suffix}`,
    ownerId: id,
  }));
  return { user, pages };
}

/** Signs `username` in: the user as first named (a later sign-in in other letter cases is the same user). */
async function signedInUser(store: SandboxStore, username: string): Promise<FbUser> {
  const { user, pages } = userFor(username);
  if (!(await store.insert(KIND.user, user.id, user))) return (await store.get<FbUser>(KIND.user, user.id)) ?? user;
  await Promise.all(pages.map((page) => store.put(KIND.page, page.id, page, user.id)));
  return user;
}

/** The Page behind a Page token, from the token's claims (no read: a Page follows from its user's name). */
export function pageOf(claims: { sub: string; username?: unknown }): FbPage | undefined {
  if (typeof claims.username !== 'string') return undefined;
  return userFor(claims.username).pages.find((page) => page.id === claims.sub);
}

const secretHash = (secret: string) => createHash('sha256').update(secret).digest('base64url').slice(0, 16);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function dialogError(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><meta charset="utf-8"><title>Error</title><h1>Sorry, something went wrong.</h1><p>${esc(message)}</p>`,
    );
}

export function registerFbAuth(app: FastifyInstance, sim: FbSim): void {
  app.get<DialogRoute>('/:version/dialog/oauth', (request, reply) => oauthDialog(sim, request, reply));
  // GET is what Meta documents; the form-encoded POST the SDKs send is accepted too.
  app.get('/:version/oauth/access_token', (request, reply) => exchangeToken(sim, request, reply));
  app.post('/:version/oauth/access_token', (request, reply) => exchangeToken(sim, request, reply));
  app.get('/:version/me/accounts', (request, reply) => listPages(sim, request, reply));
  app.delete('/:version/me/permissions', (request, reply) => removePermissions(sim, request, reply));
}

interface DialogRoute {
  Params: { version: string };
  Querystring: Record<string, string | undefined>;
}

/** The OAuth dialog: a consent page, or with `sandbox_username` a redirect with a code at once. */
async function oauthDialog({ kit }: FbSim, request: FastifyRequest<DialogRoute>, reply: FastifyReply) {
  const q = request.query;
  if (!GRAPH_VERSION.test(request.params.version)) return dialogError(reply, 'Unknown Graph API version.');
  if (!q.client_id) return dialogError(reply, 'Invalid App ID: the client_id parameter is missing.');
  let redirect: URL;
  try {
    redirect = new URL(q.redirect_uri ?? '');
  } catch {
    return dialogError(reply, 'URL blocked: the redirect_uri is missing or is not an absolute URL.');
  }
  if (q.response_type !== undefined && !['code', 'token', 'code token'].includes(q.response_type))
    return dialogError(reply, 'response_type must be code.');
  if (q.decision === 'deny') {
    for (const [k, v] of Object.entries({
      error: 'access_denied',
      error_code: '200',
      error_description: 'Permissions error',
      error_reason: 'user_denied',
    }))
      redirect.searchParams.set(k, v);
    if (q.state !== undefined) redirect.searchParams.set('state', q.state);
    return reply.code(302).header('location', `${redirect.toString()}#_=_`).send();
  }
  if (q.sandbox_username === undefined) {
    const query = Object.fromEntries(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined));
    return reply.type('text/html; charset=utf-8').send(
      consentPage({
        platform: 'Facebook',
        appId: q.client_id,
        scopes: (q.scope ?? 'public_profile').split(','),
        query,
      }),
    );
  }
  if (!/^[A-Za-z0-9._]{1,30}$/.test(q.sandbox_username))
    return dialogError(reply, 'sandbox_username must be 1–30 letters, digits, dots or underscores.');
  if (!(await kit.mayNameAccount(request, q, q.sandbox_username)))
    return dialogError(reply, 'This sign-in was not started by Herald (no valid sandbox_sig).');
  const user = await signedInUser(kit.store, q.sandbox_username);
  const code = kit.tokens.sign({
    sub: user.id,
    typ: 'fb_code',
    username: user.username,
    cid: q.client_id,
    redirect: q.redirect_uri,
    scope: q.scope ?? '',
    ttlSeconds: CODE_TTL,
  });
  redirect.searchParams.set('code', code);
  if (q.state !== undefined) redirect.searchParams.set('state', q.state);
  // Facebook appends `#_=_` to the redirect after login.
  return reply.code(302).header('location', `${redirect.toString()}#_=_`).send();
}

/** `/oauth/access_token`: a code for a short-lived user token, or (fb_exchange_token) that for a long-lived one. */
async function exchangeToken({ kit }: FbSim, request: FastifyRequest, reply: FastifyReply) {
  const fields = { ...queryFields(request), ...parseBody(request.headers['content-type'], request.body).fields };
  const str = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : undefined);
  const fault = kit.faults.take('token');
  if (fault?.fault === 'server_error')
    return graphError(reply, 503, {
      code: 2,
      message: 'An unexpected error has occurred. Please retry your request later.',
      isTransient: true,
    });
  const clientId = str('client_id');
  const secret = str('client_secret');
  if (!clientId)
    return graphError(reply, 400, { code: 101, message: 'Error validating application. Invalid application ID.' });
  if (!secret) return graphError(reply, 400, { code: 1, message: 'Missing client_secret parameter.' });
  let user: FbUser;
  let scope: string;
  let ttl: number;
  if (str('grant_type') === 'fb_exchange_token') {
    const check = kit.tokens.verify(str('fb_exchange_token') ?? '', 'fb_user');
    if (!check.ok || fault?.fault === 'expired_token')
      return graphError(reply, 400, {
        code: 190,
        subcode: check.ok ? 463 : undefined,
        message:
          check.ok || check.reason === 'expired'
            ? 'Error validating access token: Session has expired.'
            : 'Invalid OAuth access token - Cannot parse access token',
      });
    if (check.claims.cid !== clientId || check.claims.csh !== secretHash(secret))
      return graphError(reply, 400, { code: 1, message: 'Error validating client secret.' });
    user = userFor(String(check.claims.username)).user;
    scope = String(check.claims.scope);
    ttl = LONG_TTL;
  } else {
    const redirectUri = str('redirect_uri');
    if (!redirectUri) return graphError(reply, 400, { code: 191, message: 'Missing redirect_uri parameter.' });
    const check = kit.tokens.verify(str('code') ?? '', 'fb_code');
    if (!check.ok && check.reason === 'expired')
      return graphError(reply, 400, { code: 100, subcode: 36007, message: 'This authorization code has expired.' });
    if (!check.ok || fault?.fault === 'expired_token')
      return graphError(reply, 400, { code: 100, subcode: 36006, message: 'Invalid verification code format.' });
    if (check.claims.cid !== clientId)
      return graphError(reply, 400, { code: 1, message: 'Error validating client secret.' });
    if (check.claims.redirect !== redirectUri)
      return graphError(reply, 400, {
        code: 100,
        subcode: 36008,
        message:
          'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      });
    // Spent with `insert`, so two API nodes cannot both exchange one code.
    if (!(await kit.store.insert(KIND.spentCode, check.claims.jti, { at: kit.now() })))
      return graphError(reply, 400, { code: 100, subcode: 36009, message: 'This authorization code has been used.' });
    await kit.store.delete(KIND.deauthorized, check.claims.sub); // signing in again re-authorizes the app
    user = userFor(String(check.claims.username)).user;
    scope = String(check.claims.scope);
    ttl = SHORT_TTL;
  }
  const token = kit.tokens.sign({
    sub: user.id,
    uid: user.id,
    typ: 'fb_user',
    username: user.username,
    cid: clientId,
    csh: secretHash(secret),
    scope,
    long: ttl === LONG_TTL,
    ttlSeconds: ttl,
  });
  return { access_token: token, token_type: 'bearer', expires_in: ttl };
}

/** `/me/accounts`: the user's Pages, each with its own Page access token. */
async function listPages({ kit }: FbSim, request: FastifyRequest, reply: FastifyReply) {
  const claims = await checkToken(kit, request, reply, ['fb_user']);
  if (!claims) return reply;
  if (!String(claims.scope).split(',').includes('pages_show_list'))
    return graphError(reply, 400, {
      code: 200,
      message: '(#200) Requires pages_show_list permission to manage the object',
    });
  const { user, pages } = userFor(String(claims.username));
  // A Page token lasts as long as the user token it came from, or forever when that one is long-lived.
  const ttl = claims.long ? NEVER_TTL : Math.max(1, claims.exp - Math.floor(kit.now() / 1000));
  const data = pages.map((p) => ({
    id: p.id,
    name: p.name,
    username: p.username,
    category: 'Software',
    category_list: [{ id: '2211', name: 'Software' }],
    tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
    access_token: kit.tokens.sign({
      sub: p.id,
      uid: user.id,
      typ: 'fb_page',
      username: user.username,
      page: p.username,
      cid: claims.cid,
      scope: claims.scope,
      ttlSeconds: ttl,
    }),
  }));
  return {
    data,
    paging: {
      cursors: {
        before: Buffer.from(data[0]?.id ?? '').toString('base64url'),
        after: Buffer.from(data.at(-1)?.id ?? '').toString('base64url'),
      },
    },
  };
}

/** `DELETE /me/permissions`: the app's authorization is removed; the user's tokens fail from now on. */
async function removePermissions({ kit }: FbSim, request: FastifyRequest, reply: FastifyReply) {
  const claims = await checkToken(kit, request, reply, ['fb_user']);
  if (!claims) return reply;
  await kit.store.put(KIND.deauthorized, String(claims.uid), { at: kit.now() });
  return { success: true };
}
