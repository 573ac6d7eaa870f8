// The gate of every call on a Page (docs/platforms/facebook.md "Auth"): the Page's own token with the needed
// permission, the Page's usage budget, and the fault switches in Graph shapes (src/sandbox/meta/graph.ts). Posts,
// photos and videos all pass through it, so it sits below each of them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseBody, type ParsedBody } from '../framework/body.ts';
import type { FaultRule } from '../framework/faults.ts';
import { applyGraphFault, queryFields } from '../meta/graph.ts';
import { GRAPH_VERSION, pageOf } from './auth.ts';
import { checkToken, graphError, pageUsage } from './graph-reply.ts';
import type { FbPage, FbSim } from './state.ts';

export const MAX_MESSAGE = 63_206; // docs/platforms/facebook.md "Limits" (Postiz maxLength)

/** A path under a Page: `/{version}/{page-id}/…`. */
export interface PagePath {
  version: string;
  pageId: string;
}

/** A node read, updated or deleted by id: `/{version}/{id}`. */
export interface NodePath {
  version: string;
  id: string;
}

/** How Graph reads a boolean parameter that turns something off (`published=false`). */
export const falsy = (v: unknown) => v === false || v === 'false' || v === '0' || v === 0;

export interface PageCall {
  page: FbPage;
  fields: Record<string, unknown>;
  body: ParsedBody;
  fault: FaultRule | undefined;
  /** The shared fault decided the answer must be dropped after the work is done. */
  drop: boolean;
}

export interface PageGate {
  version: string;
  /** The Page the call acts on: the path's, or the Page owning the object the path names. */
  pageId: string;
  /** The fault operation the call takes, if any (it may depend on the call's fields). */
  operation: string | null | ((fields: Record<string, unknown>) => string | null);
  /** The permission the Page token must carry. */
  scope: string;
}

/** The call's Page and parameters, or undefined once the call has been answered with Graph's refusal. */
export async function pageGate(
  { kit }: FbSim,
  request: FastifyRequest,
  reply: FastifyReply,
  gate: PageGate,
): Promise<PageCall | undefined> {
  const { version, pageId } = gate;
  if (!GRAPH_VERSION.test(version)) {
    graphError(reply, 400, {
      code: 2635,
      message: `(#2635) ${version} is not a Graph API version this sandbox knows.`,
    });
    return undefined;
  }
  const body = parseBody(request.headers['content-type'], request.body);
  const fields = { ...queryFields(request), ...body.fields };
  const claims = await checkToken(kit, request, reply, ['fb_page', 'fb_user'], fields);
  if (!claims) return undefined;
  const page = claims.typ === 'fb_page' ? pageOf(claims) : undefined;
  if (!page || page.id !== pageId) {
    graphError(reply, 400, {
      code: 200,
      message:
        '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
    });
    return undefined;
  }
  if (!String(claims.scope).split(',').includes(gate.scope)) {
    graphError(reply, 400, { code: 200, message: `(#200) Requires ${gate.scope} permission to perform this action` });
    return undefined;
  }
  const waitMinutes = pageUsage(kit, reply, page.id);
  if (waitMinutes !== undefined) {
    graphError(reply, 400, { code: 32, message: '(#32) Page request limit reached', isTransient: true });
    return undefined;
  }
  const op = typeof gate.operation === 'function' ? gate.operation(fields) : gate.operation;
  const fault = op ? kit.faults.take(op, page.id) : undefined;
  const applied = applyGraphFault(kit, fault, request, reply, { businessId: page.id, type: 'pages' });
  if (applied === 'sent') return undefined;
  return { page, fields, body, fault, drop: applied === 'drop' };
}
