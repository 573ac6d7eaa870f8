// GET/POST /login and POST /logout: server-rendered sign-in with a session cookie. Every form post carries a
// CSRF token; sign-in is rate-limited per client IP, and repeated failures make that address wait (per email
// and overall), never the account.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Pool } from '../../db/pool.ts';
import { acceptCookies, acceptForms, formField } from '../../http/forms.ts';
import { sendPage } from '../../http/html.ts';
import type { RawQuerystring } from '../../http/type-provider.ts';
import type { RateLimiter } from '../../app/rate-limit.ts';
import type { SecretKeyring } from '../../lib/crypto.ts';
import { AppError } from '../../app/errors.ts';
import { messagePage, signedInPage, signInForm } from './users.pages.ts';
import { endSession, signIn, startSession } from './users.service.ts';
import {
  checkLoginCsrf,
  checkSessionCsrf,
  clearSessionCookie,
  currentUser,
  fromOwnOrigin,
  loginCsrfToken,
  safeReturnPath,
  sessionCsrfToken,
  setSessionCookie,
  type WebSessionDeps,
} from './web-session.ts';

export interface LoginRoutesDeps {
  pool: Pool;
  keyring: SecretKeyring;
  config: Config;
  rateLimiter: RateLimiter;
}

/** Sign-in attempts per client IP per minute (the growing waits after failures are separate). */
const LOGIN_BUDGET = { name: 'login', limit: 20, windowMs: 60_000 };

/**
 * `return_to` as a Location header can carry it. A header holds only ASCII, and Node refuses the rest (a 500 that
 * also lost the session cookie of a correct password): what lies outside printable ASCII is percent-encoded as
 * UTF-8, which names the same path; what is already percent-encoded stays as it is.
 */
function returnPath(value: string | undefined): string | undefined {
  const path = safeReturnPath(value);
  if (path === undefined || !path.isWellFormed()) return undefined;
  return path.replace(/[^\x21-\x7e]+/gu, (run) => encodeURIComponent(run));
}

function purposeOf(returnTo: string | undefined): string | undefined {
  return returnTo?.startsWith('/oauth/authorize')
    ? 'An application asks to connect to your Herald account. Sign in to review what it may do.'
    : undefined;
}

/** Errors on these pages are pages too: never JSON, never a stack trace. */
export function renderPageError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status =
    error instanceof AppError
      ? error.status
      : typeof (error as { statusCode?: number }).statusCode === 'number' &&
          (error as { statusCode: number }).statusCode < 500
        ? (error as { statusCode: number }).statusCode
        : 500;
  if (status >= 500) request.log.error({ err: error }, 'page failed');
  if (error instanceof AppError && error.headers) reply.headers(error.headers);
  const message =
    status >= 500
      ? `Something went wrong on our side. Quote ${request.id} if you report it.`
      : error instanceof AppError
        ? error.message
        : 'The request could not be understood.';
  return sendPage(
    reply,
    status,
    'Error',
    messagePage(status >= 500 ? 'Something went wrong' : 'This did not work', message),
  );
}

export async function registerLoginRoutes(app: FastifyInstance, deps: LoginRoutesDeps): Promise<void> {
  await app.register(async (pages) => {
    await acceptForms(pages);
    await acceptCookies(pages);
    pages.setErrorHandler((error, request, reply) => renderPageError(error, request, reply));
    const web: WebSessionDeps = { db: deps.pool, keyring: deps.keyring, config: deps.config };
    const hide = { schema: { hide: true } };

    pages.get<{ Querystring: RawQuerystring }>('/login', hide, async (request, reply) => {
      // Sent twice, return_to is ambiguous: ignored, like a repeated form field.
      const { return_to: given } = request.query;
      const returnTo = returnPath(typeof given === 'string' ? given : undefined);
      const user = await currentUser(web, request);
      if (user && returnTo) return reply.redirect(returnTo, 303);
      if (user)
        return sendPage(
          reply,
          200,
          'Signed in',
          signedInPage({ email: user.email, csrf: sessionCsrfToken(web, user) }),
        );
      return sendPage(
        reply,
        200,
        'Sign in',
        signInForm({ csrf: loginCsrfToken(web, request, reply), returnTo, purpose: purposeOf(returnTo) }),
      );
    });

    pages.post('/login', hide, async (request, reply) => {
      const body = request.body;
      const returnTo = returnPath(formField(body, 'return_to'));
      const email = (formField(body, 'email') ?? '').trim().slice(0, 320);
      const password = formField(body, 'password') ?? '';
      const again = (status: number, error: string) =>
        sendPage(
          reply,
          status,
          'Sign in',
          signInForm({
            csrf: loginCsrfToken(web, request, reply),
            returnTo,
            email,
            error,
            purpose: purposeOf(returnTo),
          }),
        );
      if (!fromOwnOrigin(web, request) || !checkLoginCsrf(web, request, formField(body, 'csrf'))) {
        return again(403, 'This form expired or your browser blocked its cookie. Please try again.');
      }
      const decision = await deps.rateLimiter.take(`ip:${request.ip}`, LOGIN_BUDGET);
      if (!decision.allowed) {
        reply.header('retry-after', String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))));
        return again(429, 'Too many sign-in attempts from your network. Wait a minute and try again.');
      }
      if (email === '' || password === '') return again(400, 'Enter your email and your password.');
      const result = await signIn(deps.pool, email, password.slice(0, 4096), request.ip);
      if (!result.ok && result.reason === 'throttled') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        return again(
          429,
          `Too many failed sign-ins from your network. Try again in ${result.retryAfterSeconds} seconds.`,
        );
      }
      if (!result.ok) return again(401, 'That email and password do not match an account.');
      setSessionCookie(web, reply, await startSession(deps.pool, result.userId, deps.config.sessionTtlHours));
      return reply.redirect(returnTo ?? '/login', 303);
    });

    pages.post('/logout', hide, async (request, reply) => {
      const user = await currentUser(web, request);
      if (user) {
        if (!fromOwnOrigin(web, request) || !checkSessionCsrf(web, user, formField(request.body, 'csrf'))) {
          return sendPage(
            reply,
            403,
            'Error',
            messagePage('This did not work', 'This form expired. Reload the page and try again.'),
          );
        }
        await endSession(deps.pool, user.token);
      }
      clearSessionCookie(web, reply);
      return reply.redirect('/login', 303);
    });
  });
}
