// What every Instagram Graph route goes through before its own work: the version, the token, the account's
// hourly call budget with its usage headers, the own-account check of a path and the publishing permission.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import { graphError } from '../meta/graph.ts';
import { beginGraphCall, ownAccount, type GraphPath } from '../meta/publishing.ts';
import { igAuthenticate, igScopes } from './auth.ts';
import type { IgUser } from './state.ts';

const CALLS_PER_HOUR = 200; // ⚠ unverified: Instagram's Business Use Case budget depends on impressions; a flat figure here

/** What the Instagram Graph handlers are given (their state is in `kit.store`). */
export interface IgSim {
  kit: SimulatorKit;
}

/** The caller and the call's parameters, or undefined once the call has been answered with Graph's refusal. */
export function beginIgCall(
  { kit }: IgSim,
  request: FastifyRequest<{ Params: GraphPath }>,
  reply: FastifyReply,
): { user: IgUser; params: Record<string, string> } | undefined {
  const ctx = beginGraphCall(
    kit,
    {
      windowPrefix: 'ig-calls',
      usageType: 'instagram',
      callsPerHour: CALLS_PER_HOUR,
      authenticate: (req, rep, params) => igAuthenticate(kit, req, rep, params),
      userId: (user) => user.id,
      limited: {
        message: 'There have been too many calls to this Instagram account. Wait a bit and try again.',
        code: 80002,
        isTransient: true,
      },
    },
    request,
    reply,
  );
  return ctx && { user: ctx.auth, params: ctx.params };
}

/** The account a path names: its id or `me`; another account is out of reach of this token. */
export const ownIgAccount = (reply: FastifyReply, user: IgUser, id: string): boolean =>
  ownAccount(reply, user.id, id, `Unsupported request - method type: ${id}.`);

/** The token of a call as Instagram reads it for scope checks: the Authorization header, else `access_token`. */
export const callToken = (request: FastifyRequest, params: Record<string, string>): string | undefined =>
  /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? params.access_token;

/** Whether the token may publish (instagram_business_content_publish); answers code 10 when it may not. */
export function mayPublish(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  params: Record<string, string>,
): boolean {
  if (igScopes(kit, callToken(request, params)).includes('instagram_business_content_publish')) return true;
  graphError(reply, 403, { message: 'Application does not have permission for this action', code: 10 });
  return false;
}
