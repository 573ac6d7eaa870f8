// LinkedIn organizations (docs/platforms/linkedin.md "Calls"): the ACL finder (`q=roleAssignee`) listing the company
// pages a member administers, and an organization's name. Every sandbox member administers one page of their own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { organizationOf, organizationsOf } from './auth.ts';
import type { LiContext } from './gate.ts';
import { KIND, liError, type LiOrganization } from './state.ts';

const READ_SCOPES = ['rw_organization_admin', 'r_organization_social', 'w_organization_social'];

interface AclQuery {
  q?: string;
  role?: string;
  state?: string;
}

export function registerLiOrganizations(app: FastifyInstance, ctx: LiContext): void {
  app.get<{ Querystring: AclQuery }>('/rest/organizationAcls', (request, reply) =>
    organizationAcls(ctx, request, reply),
  );
  app.get<{ Params: { id: string } }>('/rest/organizations/:id', (request, reply) => organization(ctx, request, reply));
}

/** Organizations the member holds a role on (`q=roleAssignee`). */
async function organizationAcls(
  ctx: LiContext,
  request: FastifyRequest<{ Querystring: AclQuery }>,
  reply: FastifyReply,
) {
  const g = await ctx.gate(request, reply, READ_SCOPES, true);
  if (!g) return reply;
  const q = request.query;
  if (q.q !== 'roleAssignee')
    return reply.code(400).send(liError(400, 'Unsupported finder: use q=roleAssignee', { code: 'ILLEGAL_ARGUMENT' }));
  const orgs =
    (q.role && q.role !== 'ADMINISTRATOR') || (q.state && q.state !== 'APPROVED') ? [] : organizationsOf(g.member);
  return {
    paging: { start: 0, count: orgs.length, links: [], total: orgs.length },
    elements: orgs.map((o) => ({
      roleAssignee: `urn:li:person:${g.member.id}`,
      role: 'ADMINISTRATOR',
      organization: `urn:li:organization:${o.id}`,
      state: 'APPROVED',
    })),
  };
}

async function organization(ctx: LiContext, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const g = await ctx.gate(request, reply, READ_SCOPES, true);
  if (!g) return reply;
  // The member's own page follows from their token (it is there even if their grant was made on another store).
  const own = organizationOf(g.member);
  const org =
    own.id === request.params.id ? own : await ctx.kit.store.get<LiOrganization>(KIND.organization, request.params.id);
  if (!org) return reply.code(404).send(liError(404, 'Not Found'));
  return {
    id: Number(org.id),
    localizedName: org.name,
    vanityName: org.vanityName,
    name: { localized: { en_US: org.name }, preferredLocale: { country: 'US', language: 'en' } },
  };
}
