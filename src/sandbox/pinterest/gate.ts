// What every authenticated Pinterest call goes through in the simulator: the bearer token, the rate windows of the
// call's category (docs/platforms/pinterest.md "Rate limits": per user and app per minute under standard access, or
// 1,000 calls a day under trial access), and the operation's faults.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultRule } from '../framework/faults.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { authenticate } from './auth.ts';
import { trialAccess, type PinterestAccount, type PinterestContext } from './state.ts';

/** Pinterest's rate-limit categories (the OpenAPI's `x-ratelimit-category` of each endpoint). */
export type RateCategory = 'org_read' | 'org_write' | 'org_analytics';

/**
 * Standard access, calls per minute per user per app. ⚠ unverified: the numbers of Pinterest's live table (only the
 * categories are in the OpenAPI); 100 per second per user is the documented universal cap above them.
 */
const PER_MINUTE: Record<RateCategory, number> = { org_read: 1000, org_write: 100, org_analytics: 300 };
/** Trial access: 1,000 calls a day for all requests (rate limits page). */
const TRIAL_PER_DAY = 1000;

export interface Gated {
  account: PinterestAccount;
  /** The request must do its work, then drop the connection (`lost_response`). */
  drop: boolean;
  /** A fault that is the route's own business (media faults). */
  fault: FaultRule | undefined;
}

export async function gate(
  ctx: PinterestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  category: RateCategory,
): Promise<Gated | undefined> {
  const { kit, errorReply } = ctx;
  const account = await authenticate(ctx, request, reply);
  if (!account) return undefined;
  // Rate windows are the kit's, in memory by design: a restart forgives the window, as a new process would.
  const window = trialAccess(ctx)
    ? kit.windows.hit('trial:app', kit.limit(TRIAL_PER_DAY), 24 * 3600_000)
    : kit.windows.hit(`${category}:${account.id}`, kit.limit(PER_MINUTE[category]), 60_000);
  // ⚠ unverified: the header names; Pinterest's pages name no rate-limit headers. IETF-style RateLimit-*.
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) {
    errorReply(reply, 429, '8: Rate limit exceeded.');
    return undefined;
  }
  const fault = kit.faults.take(operation, account.id);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  return applied === 'sent' ? undefined : { account, drop: applied === 'drop', fault };
}

/** The URL prefix of the simulator as the client reached it, for the URLs it hands out. */
export const hostOf = (ctx: PinterestContext, request: FastifyRequest) =>
  `${request.protocol}://${request.headers.host}${ctx.prefix}`;
