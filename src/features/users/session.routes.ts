// The dashboard's sign-in, in JSON (docs/api.md "Sessions"): POST/GET/DELETE /app/api/session and accepting an
// invite link. The same accounts, `herald_session` cookie, sessions and sign-in throttle as the /login pages; the
// answers use the envelope. A JSON body cannot be sent cross-site without the browser asking first (a form can only
// post urlencoded, multipart or text/plain, which these routes refuse with 415), and the Origin, when the browser
// sends one, must be Herald's own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Config } from '../../config.ts';
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { RateLimiter } from '../../app/rate-limit.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { acceptCookies } from '../../http/forms.ts';
import { typed } from '../../http/type-provider.ts';
import { clientIp } from '../../http/access.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { SecretKeyring } from '../../lib/crypto.ts';
import { claimInvite, completeInvite } from '../members/members.service.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import { hashPassword, passwordProblem, PASSWORD_MAX_LENGTH } from './passwords.ts';
import * as repo from './users.repo.ts';
import { endSession, signIn, startSession } from './users.service.ts';
import type { SessionPrincipals } from './session-principal.ts';
import { clearSessionCookie, fromOwnOrigin, setSessionCookie, type WebSessionDeps } from './web-session.ts';

/** Sign-in attempts per client IP per minute, as the /login page allows (the growing waits are separate). */
const SIGN_IN_BUDGET = { name: 'login', limit: 20, windowMs: 60_000 };

const SignInBody = Type.Object(
  { email: Type.String({ maxLength: 320 }), password: Type.String({ maxLength: PASSWORD_MAX_LENGTH }) },
  { additionalProperties: false },
);
const AcceptBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);
type AcceptBody = Static<typeof AcceptBody>;
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });

export interface SessionRoutesDeps {
  pool: Pool;
  keyring: SecretKeyring;
  config: Config;
  rateLimiter: RateLimiter;
  sessions: SessionPrincipals;
  clock: Clock;
}

export async function registerSessionRoutes(fastify: FastifyInstance, deps: SessionRoutesDeps): Promise<void> {
  await fastify.register(async (scope) => {
    await acceptCookies(scope);
    const app = typed(scope);
    const web: WebSessionDeps = { db: deps.pool, keyring: deps.keyring, config: deps.config };
    const hide = true;

    function sameOrigin(request: FastifyRequest): void {
      if (!fromOwnOrigin(web, request))
        throw new AppError('PUBLIC_API_CSRF_TOKEN_INVALID', 'This request comes from another site.');
    }

    async function throttle(request: FastifyRequest): Promise<void> {
      const decision = await deps.rateLimiter.take(`ip:${clientIp(request)}`, SIGN_IN_BUDGET);
      if (!decision.allowed) {
        const wait = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
        throw new AppError('PUBLIC_API_RATE_LIMITED', 'Too many sign-in attempts from your network; wait a minute.', {
          headers: { 'retry-after': wait },
        });
      }
    }

    async function signedIn(reply: FastifyReply, userId: string) {
      const token = await startSession(deps.pool, userId, deps.config.sessionTtlHours);
      setSessionCookie(web, reply, token);
      const user = (await repo.findUserProfile(deps.pool, userId))!;
      return { object: 'session', user, csrf_token: deps.sessions.csrfToken(token) };
    }

    app.post('/app/api/session', { schema: { hide, body: SignInBody } }, async (request, reply) => {
      sameOrigin(request);
      await throttle(request);
      const result = await signIn(deps.pool, request.body.email, request.body.password, clientIp(request));
      if (!result.ok && result.reason === 'throttled')
        throw new AppError(
          'PUBLIC_API_RATE_LIMITED',
          `Too many failed sign-ins from your network; try again in ${result.retryAfterSeconds} s.`,
          { headers: { 'retry-after': String(result.retryAfterSeconds) } },
        );
      if (!result.ok)
        throw new AppError('PUBLIC_API_CREDENTIALS_INVALID', 'That email and password do not match an account.');
      return signedIn(reply, result.userId);
    });

    app.get('/app/api/session', { schema: { hide } }, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const token = deps.sessions.tokenOf(request);
      const principal = token ? await deps.sessions.authenticate(token) : undefined;
      if (!token || !principal) throw new AppError('PUBLIC_API_SESSION_INVALID', 'Not signed in.');
      const user = (await repo.findUserProfile(deps.pool, principal.userId))!;
      return { object: 'session', user, csrf_token: deps.sessions.csrfToken(token) };
    });

    app.delete('/app/api/session', { schema: { hide } }, async (request, reply) => {
      const token = deps.sessions.tokenOf(request);
      if (token) {
        if (!deps.sessions.csrfValid(token, request))
          throw new AppError('PUBLIC_API_CSRF_TOKEN_INVALID', "Signing out needs the session's `X-CSRF-Token` header.");
        await endSession(deps.pool, token);
      }
      clearSessionCookie(web, reply);
      return { object: 'session', signed_out: true };
    });

    // What an invite link is for, so the page can say it and ask for a name only when the email has no account.
    app.get('/app/api/invites/:token', { schema: { hide, params: TokenParams } }, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return withTransaction(deps.pool, async (tx) => {
        const invite = await claimInvite(tx, request.params.token, deps.clock.now());
        const account = await repo.findUserByEmail(tx, invite.email);
        const workspace = await findWorkspace(tx, invite.workspace_id);
        return {
          object: 'invite',
          email: invite.email,
          role: invite.role,
          workspace: { id: invite.workspace_id, name: workspace?.name ?? '' },
          expires_at: invite.expires_at.toISOString(),
          has_account: account !== undefined,
        };
      });
    });

    app.post(
      '/app/api/invites/:token/accept',
      { schema: { hide, params: TokenParams, body: AcceptBody } },
      async (request, reply) => {
        sameOrigin(request);
        await throttle(request);
        const body: AcceptBody = request.body;
        const userId = await withTransaction(deps.pool, async (tx) => {
          const invite = await claimInvite(tx, request.params.token, deps.clock.now());
          const existing = await repo.findUserWithPassword(tx, invite.email);
          let id: string;
          if (existing) {
            // An account already has this email: its own password proves it is theirs, checked (on the pool, so
            // a failure is remembered) with the sign-in's growing waits against guessing.
            const proof = await signIn(deps.pool, invite.email, body.password, clientIp(request));
            if (!proof.ok && proof.reason === 'throttled')
              throw new AppError(
                'PUBLIC_API_RATE_LIMITED',
                `Too many failed sign-ins for this account from your network; try again in ${proof.retryAfterSeconds} s.`,
                { headers: { 'retry-after': String(proof.retryAfterSeconds) } },
              );
            if (!proof.ok || proof.userId !== existing.id)
              throw new AppError(
                'PUBLIC_API_CREDENTIALS_INVALID',
                `${invite.email} already has an account: enter its password to join.`,
              );
            id = existing.id;
          } else {
            const problem = passwordProblem(body.password);
            if (problem) throw validationFailed([{ path: '/password', rule: 'password_weak', message: problem }]);
            id = newId('user');
            await repo.insertUser(tx, id, invite.email);
            await repo.setPasswordHash(tx, id, await hashPassword(body.password));
          }
          if (body.name) await repo.setUserName(tx, id, body.name.trim());
          await completeInvite(tx, invite, id);
          return id;
        });
        return signedIn(reply, userId);
      },
    );
  });
}
