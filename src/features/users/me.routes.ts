// GET /v1/me (who is calling: a person's session or a key, and what it reaches), and the two actions of a signed-in
// session: changing the password and signing out everywhere (docs/api.md "Sessions"). Any credential reads /v1/me;
// the actions refuse a key, since a stolen key must not be able to lock its owner out.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import type { RouteAccess } from '../../http/context.ts';
import { Envelope, named, StringEnum } from '../../app/envelope.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import { clientIp } from '../../http/access.ts';
import { sha256 } from '../../lib/crypto.ts';
import { roleAllows } from '../workspaces/roles.ts';
import { SCOPES } from '../keys/scopes.ts';
import { hashPassword, passwordProblem, PASSWORD_MAX_LENGTH } from './passwords.ts';
import * as repo from './users.repo.ts';
import { signIn } from './users.service.ts';
import type { SessionPrincipals } from './session-principal.ts';

const Me = named(
  'Me',
  Type.Object({
    object: Type.Literal('me'),
    user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
    principal: StringEnum(['session', 'api_key'] as const, { description: 'How this call was authenticated.' }),
    key_id: Type.Union([Type.String(), Type.Null()], { description: 'The calling key (null for a session).' }),
    workspaces: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        name: Type.String(),
        mode: StringEnum(['live', 'test'] as const),
        role: StringEnum(['owner', 'admin', 'member'] as const),
        brands: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), is_default: Type.Boolean() })),
        scopes: Type.Array(Type.String(), {
          description: 'What this caller may do there: its scopes, as the role allows.',
        }),
      }),
    ),
    scopes: Type.Array(Type.String(), { description: "The key's scopes; for a session, those of its best role." }),
  }),
  {
    object: 'me',
    user: { id: 'user_01JD2C4Q8X5M3N7P9R1T3V5W7Y', email: 'ana@example.com', name: 'Ana' },
    principal: 'session',
    key_id: null,
    workspaces: [
      {
        id: '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83',
        name: 'Sandbox',
        mode: 'test',
        role: 'owner',
        brands: [{ id: 'brand_default', name: 'Sandbox', is_default: true }],
        scopes: ['posts:read', 'posts:write'],
      },
    ],
    scopes: ['posts:read', 'posts:write'],
  },
);

const ChangePasswordBody = named(
  'ChangePasswordBody',
  Type.Object(
    {
      current_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
      new_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
    },
    { additionalProperties: false },
  ),
  { current_password: 'correct horse battery', new_password: 'staple of a longer phrase' },
);
type ChangePasswordBody = Static<typeof ChangePasswordBody>;

const SessionsEnded = named(
  'SessionsEnded',
  Type.Object({
    object: Type.Literal('sessions_ended'),
    sessions_ended: Type.Integer({ description: 'How many sessions were ended (this one included, or not).' }),
  }),
  { object: 'sessions_ended', sessions_ended: 2 },
);

const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});
const anyCaller: RouteAccess = { scopes: [], workspace: false, mutates: false };
const sessionAction: RouteAccess = { scopes: [], workspace: false, mutates: true };

export function registerMeRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; sessions: SessionPrincipals; clearSessionCookie: string },
): void {
  const app = typed(fastify);
  const tags = ['Me'];

  /** The session of a session-only action (its cookie's value), or the 403 a key gets. */
  function sessionOf(request: FastifyRequest): { userId: string; token: string } {
    const { principal } = request.ctx;
    const token = deps.sessions.tokenOf(request);
    if (principal?.kind !== 'session' || token === undefined)
      throw new AppError('PUBLIC_API_SESSION_REQUIRED', 'Only a signed-in session can do this, not an API key.');
    return { userId: principal.userId, token };
  }

  /**
   * These routes act on no workspace, but a workspace header the caller cannot reach is still the 403 every other
   * route gives it, rather than silently ignored.
   */
  const workspaceHeader = async (request: FastifyRequest) => {
    const header = request.headers['x-herald-workspace-id'];
    if (header === undefined) return;
    const id = typeof header === 'string' ? header.trim().toLowerCase() : '';
    if (!request.ctx.principal?.reachable.some((w) => w.id === id))
      throw new AppError('PUBLIC_API_WORKSPACE_FORBIDDEN', 'This caller cannot reach that workspace.');
  };

  app.get(
    '/me',
    {
      config: { access: anyCaller },
      preValidation: workspaceHeader,
      schema: {
        operationId: 'getMe',
        tags,
        summary: 'Who is calling, and what it reaches',
        description:
          'For a session: the person, each workspace with their role, its brands and what the role allows. For a key: the same, narrowed to what the key reaches and holds.',
        response: { 200: Envelope(Me) },
      },
    },
    async (request) => {
      const principal = request.ctx.principal!;
      const user = await repo.findUserProfile(deps.pool, principal.userId);
      if (!user) throw new AppError('PUBLIC_API_SESSION_INVALID', 'This account no longer exists.');
      const reachable = new Set(principal.reachable.map((w) => w.id));
      const memberships = (await repo.listMembershipsWithBrands(deps.pool, principal.userId)).filter((m) =>
        reachable.has(m.workspace_id),
      );
      const session = principal.kind === 'session';
      const held = (role: (typeof memberships)[number]['role']) =>
        SCOPES.filter((s) => principal.scopes.has(s) && roleAllows(role, s));
      return {
        object: 'me',
        user,
        principal: session ? 'session' : 'api_key',
        key_id: session ? null : principal.keyId,
        workspaces: memberships.map((m) => ({
          id: m.workspace_id,
          name: m.workspace_name,
          mode: m.mode,
          role: m.role,
          brands: m.brands
            .filter((b) => principal.brandIds === null || principal.brandIds.includes(b.id))
            .map((b) => ({ id: b.id, name: b.name, is_default: b.is_default })),
          scopes: held(m.role),
        })),
        scopes: session
          ? SCOPES.filter((s) => memberships.some((m) => roleAllows(m.role, s)))
          : SCOPES.filter((s) => principal.scopes.has(s)),
      };
    },
  );

  app.post(
    '/me/password',
    {
      config: { access: sessionAction },
      preValidation: workspaceHeader,
      schema: {
        operationId: 'changePassword',
        tags,
        summary: 'Change your password (signed-in sessions only)',
        description:
          'Checks the current password (failures are throttled like signing in), sets the new one and ends every other session of yours; this one stays signed in. An API key gets 403 `PUBLIC_API_SESSION_REQUIRED`.',
        body: ChangePasswordBody,
        response: { 200: Envelope(SessionsEnded) },
      },
    },
    mutation(deps, async (request, tx) => {
      const session = sessionOf(request);
      const body: ChangePasswordBody = request.body;
      const problem = passwordProblem(body.new_password);
      if (problem) throw validationFailed([{ path: '/new_password', rule: 'password_weak', message: problem }]);
      const user = (await repo.findUserProfile(deps.pool, session.userId))!;
      // Checked on the pool, not in this transaction: a failure must be counted even though this call fails.
      const check = await signIn(deps.pool, user.email, body.current_password, clientIp(request));
      if (!check.ok && check.reason === 'throttled')
        throw new AppError(
          'PUBLIC_API_RATE_LIMITED',
          `Too many wrong passwords from your network; try again in ${check.retryAfterSeconds} s.`,
          { headers: { 'retry-after': String(check.retryAfterSeconds) } },
        );
      if (!check.ok)
        throw validationFailed([
          { path: '/current_password', rule: 'password_wrong', message: 'The current password is not right.' },
        ]);
      await repo.setPasswordHash(tx, session.userId, await hashPassword(body.new_password));
      const ended = await repo.deleteOtherSessions(tx, session.userId, sha256(session.token));
      return { status: 200, data: { object: 'sessions_ended', sessions_ended: ended } };
    }),
  );

  app.post(
    '/me/sign-out-everywhere',
    {
      config: { access: { ...sessionAction, actionBody: true } },
      preValidation: workspaceHeader,
      schema: {
        operationId: 'signOutEverywhere',
        tags,
        summary: 'End every session of yours, this one included (signed-in sessions only)',
        description: 'API keys are not touched (revoke them under /v1/keys). An API key gets 403.',
        body: NoBody,
        response: { 200: Envelope(SessionsEnded) },
      },
      onSend: async (request, reply, payload) => {
        if (reply.statusCode === 200) reply.header('set-cookie', deps.clearSessionCookie);
        return payload;
      },
    },
    mutation(deps, async (request, tx) => {
      const session = sessionOf(request);
      const ended = await repo.deleteUserSessions(tx, session.userId);
      return { status: 200, data: { object: 'sessions_ended', sessions_ended: ended } };
    }),
  );
}
