// What every Threads Graph route goes through before its own work: the version, the token and its scopes, the
// account's hourly call budget with its usage headers, and the own-account check of a path.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import { graphError } from '../meta/graph.ts';
import { beginGraphCall, ownAccount, type GraphPath } from '../meta/publishing.ts';
import { thAuthenticate } from './auth.ts';
import type { ThUser } from './state.ts';

const CALLS_PER_HOUR = 500; // ⚠ unverified: Threads' budget is 4,800 × impressions per 24 h; a flat figure here

/** What the Threads Graph handlers are given (their state is in `kit.store`). */
export interface ThSim {
  kit: SimulatorKit;
}

/** The caller, its scopes and the call's parameters, or undefined once the call has been answered. */
export function beginThCall(
  { kit }: ThSim,
  request: FastifyRequest<{ Params: GraphPath }>,
  reply: FastifyReply,
): { user: ThUser; scopes: string[]; params: Record<string, string> } | undefined {
  const ctx = beginGraphCall(
    kit,
    {
      windowPrefix: 'th-calls',
      usageType: 'threads',
      callsPerHour: CALLS_PER_HOUR,
      authenticate: (req, rep, params) => thAuthenticate(kit, req, rep, params),
      userId: (auth) => auth.user.id,
      limited: { message: 'Application request limit reached', code: 4, isTransient: true },
    },
    request,
    reply,
  );
  return ctx && { ...ctx.auth, params: ctx.params };
}

/** The account a path names: its id or `me`; another account is out of reach of this token. */
export const ownThAccount = (reply: FastifyReply, user: ThUser, id: string): boolean =>
  ownAccount(reply, user.id, id, 'Unsupported request.');

/** Whether the token carries a scope; answers code 10 when it does not. */
export function hasScope(reply: FastifyReply, scopes: string[], scope: string): boolean {
  if (scopes.includes(scope)) return true;
  graphError(reply, 403, {
    message: `Application does not have permission for this action (${scope} is required).`,
    code: 10,
  });
  return false;
}
