// Routes of the members API (scope `members:manage`, never part of `all`): members of the workspace and their
// roles, and invites. Schema, access and one service call each.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Pool, Queryable } from '../../db/pool.ts';
import type { RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { AppError } from '../../app/errors.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../lib/mailer.ts';
import * as members from './members.service.ts';
import {
  CreateInviteBody,
  DeletedInvite,
  IdParams,
  Invite,
  InviteWithUrl,
  Member,
  PageQuery,
  UpdateMemberBody,
} from './members.schemas.ts';

const read: RouteAccess = { scopes: ['members:manage'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['members:manage'], workspace: true, mutates: true };
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});

export function registerMembersRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; clock: Clock; publicUrl: string; mailer: Mailer | undefined },
): void {
  const app = typed(fastify);
  const tags = ['Members'];

  function context(request: FastifyRequest, db: Queryable): members.MembersContext {
    const { principal, workspaceId } = request.ctx;
    const role = principal?.reachable.find((w) => w.id === workspaceId)?.role;
    if (!principal || !workspaceId || !role)
      throw new AppError('PUBLIC_API_INTERNAL_ERROR', 'Request context missing.');
    return { db, workspaceId, callerId: principal.userId, callerRole: role, now: deps.clock.now() };
  }

  app.get(
    '/members',
    {
      config: { access: read },
      schema: {
        operationId: 'listMembers',
        tags,
        summary: 'List the members of the workspace',
        querystring: PageQuery,
        response: { 200: Envelope(ListOf(Member)) },
      },
    },
    async (request) => members.listMembers(context(request, deps.pool), request.query),
  );

  app.get(
    '/members/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getMember',
        tags,
        summary: 'Get one member',
        params: IdParams,
        response: { 200: Envelope(Member) },
      },
    },
    async (request) => members.memberJson(await members.getMember(context(request, deps.pool), request.params.id)),
  );

  app.patch(
    '/members/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateMember',
        tags,
        summary: "Change a member's role",
        description:
          'Only an owner makes, unmakes or removes an owner; the last owner stays one (409 `PUBLIC_API_STATE_CONFLICT`). The change applies to their keys and sessions within a second.',
        params: IdParams,
        body: UpdateMemberBody,
        response: { 200: Envelope(Member) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: members.memberJson(await members.changeRole(context(request, tx), request.params.id, request.body.role)),
    })),
  );

  app.delete(
    '/members/:id',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'removeMember',
        tags,
        summary: 'Remove a member from the workspace',
        description: 'Their keys and sessions stop reaching the workspace at once. The last owner cannot be removed.',
        params: IdParams,
        body: NoBody,
        response: { 200: Envelope(Member) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: members.memberJson(await members.removeMember(context(request, tx), request.params.id)),
    })),
  );

  app.get(
    '/invites',
    {
      config: { access: read },
      schema: {
        operationId: 'listInvites',
        tags,
        summary: 'List the invites of the workspace',
        querystring: PageQuery,
        response: { 200: Envelope(ListOf(Invite)) },
      },
    },
    async (request) => members.listInvites(context(request, deps.pool), request.query),
  );

  app.get(
    '/invites/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getInvite',
        tags,
        summary: 'Get one invite',
        params: IdParams,
        response: { 200: Envelope(Invite) },
      },
    },
    async (request) => {
      const ctx = context(request, deps.pool);
      return members.inviteJson(await members.getInvite(ctx, request.params.id), ctx.now);
    },
  );

  app.post(
    '/invites',
    {
      config: { access: write },
      schema: {
        operationId: 'createInvite',
        tags,
        summary: 'Invite someone to the workspace',
        description: `Answers a single-use link (\`url\`, shown only here) that works for ${members.INVITE_TTL_DAYS} days: whoever opens it signs up with that email (or signs in, if it has an account) and becomes a member with \`role\`. When the server has SMTP configured, the link is also emailed to the invitee; \`email_delivery\` says whether it was sent, and an email that could not be sent does not fail the invite (pass the link on yourself).`,
        body: CreateInviteBody,
        response: { 201: Envelope(InviteWithUrl, 'The invite, with its link (shown once).') },
      },
    },
    mutation(
      deps,
      async (request, tx) => ({
        status: 201,
        data: await members.createInvite(context(request, tx), request.body, {
          publicUrl: deps.publicUrl,
          mailer: deps.mailer,
          warn: (fields, message) => request.log.warn(fields, message),
        }),
      }),
      { secret: true },
    ),
  );

  app.delete(
    '/invites/:id',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'deleteInvite',
        tags,
        summary: 'Cancel an invite',
        description: 'Its link stops working at once.',
        params: IdParams,
        body: NoBody,
        response: { 200: Envelope(DeletedInvite) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await members.cancelInvite(context(request, tx), request.params.id),
    })),
  );
}
