// Browser sign-in over HTTP: the session cookie, CSRF tokens for every form post, and the checks a form post
// must pass. Used by the sign-in pages and the OAuth consent screen (and, later, the dashboard); their contexts
// register @fastify/cookie (acceptCookies). The CSRF check is Herald's own, not @fastify/csrf-protection: see
// docs/decisions.md.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/pool.ts';
import { hmac, sha256, verifyHmac, type SecretKeyring } from '../../lib/crypto.ts';
import { clearCookie, cookieName, readCookie, setCookie } from '../../http/forms.ts';
import { sessionUser } from './users.service.ts';

export interface WebSessionDeps {
  db: Queryable;
  keyring: SecretKeyring;
  config: Pick<Config, 'publicUrl' | 'sessionTtlHours'>;
}

export interface SignedInUser {
  userId: string;
  email: string;
  /** The session cookie's value (CSRF tokens are bound to it). */
  token: string;
}

const secure = (deps: WebSessionDeps) => deps.config.publicUrl.startsWith('https:');
const sessionCookie = (deps: WebSessionDeps) => cookieName('herald_session', secure(deps));
const loginCookie = (deps: WebSessionDeps) => cookieName('herald_login', secure(deps));

export async function currentUser(deps: WebSessionDeps, request: FastifyRequest): Promise<SignedInUser | undefined> {
  const token = readCookie(request, sessionCookie(deps));
  const user = await sessionUser(deps.db, token);
  return user && token ? { ...user, token } : undefined;
}

export function setSessionCookie(deps: WebSessionDeps, reply: FastifyReply, token: string): void {
  setCookie(reply, sessionCookie(deps), token, {
    maxAgeSeconds: deps.config.sessionTtlHours * 3600,
    secure: secure(deps),
  });
}

export function clearSessionCookie(deps: WebSessionDeps, reply: FastifyReply): void {
  clearCookie(reply, sessionCookie(deps), secure(deps));
}

/** The CSRF token of a signed-in form: an HMAC of the session, so a page of another site cannot know it. */
export function sessionCsrfToken(deps: WebSessionDeps, user: SignedInUser): string {
  return hmac(deps.keyring, 'csrf-session', sha256(user.token).toString('hex'));
}

export function checkSessionCsrf(deps: WebSessionDeps, user: SignedInUser, given: string | undefined): boolean {
  return (
    typeof given === 'string' &&
    given.length < 200 &&
    verifyHmac(deps.keyring, 'csrf-session', sha256(user.token).toString('hex'), given)
  );
}

/**
 * The sign-in form has no session yet: its token is an HMAC of a random pre-session cookie (set when the form
 * is shown), so a forged cross-site sign-in (login CSRF) fails.
 */
export function loginCsrfToken(deps: WebSessionDeps, request: FastifyRequest, reply: FastifyReply): string {
  let value = readCookie(request, loginCookie(deps));
  if (!value || !/^[A-Za-z0-9_-]{20,64}$/.test(value)) {
    value = randomBytes(24).toString('base64url');
    setCookie(reply, loginCookie(deps), value, { maxAgeSeconds: 3600, secure: secure(deps) });
  }
  return hmac(deps.keyring, 'csrf-login', value);
}

export function checkLoginCsrf(deps: WebSessionDeps, request: FastifyRequest, given: string | undefined): boolean {
  const value = readCookie(request, loginCookie(deps));
  return (
    Boolean(value) &&
    typeof given === 'string' &&
    given.length < 200 &&
    verifyHmac(deps.keyring, 'csrf-login', value!, given)
  );
}

/**
 * A form post must come from Herald's own pages: when the browser names the origin (all current ones do on
 * POST), it must be the public URL's. Defence in depth beside the CSRF token.
 */
export function fromOwnOrigin(deps: WebSessionDeps, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === new URL(deps.config.publicUrl).origin;
}

/** A path on this server to go back to after signing in; anything else (another host, `//evil`) is dropped. */
export function safeReturnPath(value: string | undefined): string | undefined {
  if (!value || value.length > 8000 || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\'))
    return undefined;
  // No control characters (header splitting) in what becomes a Location header.
  return [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ? undefined : value;
}
