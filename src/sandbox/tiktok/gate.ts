// What every authenticated TikTok call goes through in the simulator: the bearer token, the scope the endpoint
// needs, the operation's faults, and (for calls TikTok counts per user token) the rate window.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultRule } from '../framework/faults.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { parseBody } from '../framework/body.ts';
import { authenticate } from './auth.ts';
import type { TiktokAccount, TiktokContext } from './state.ts';

export interface Gated {
  account: TiktokAccount;
  /** The request's JSON body (an object; `{}` when there is none). */
  body: Record<string, unknown>;
  /** `lost_response`: do the work, then drop the connection. */
  drop: boolean;
  fault: FaultRule | undefined;
}

/** Per user token, per minute (developers.tiktok.com; tiktok-api-v2-rate-limit). */
export const RATE = { init: 6, status: 30, creator: 20, display: 600 } as const; // creator: ⚠ unverified

/**
 * Authenticates, checks the scope, spends the call from the account's window, takes the operation's fault, and parses
 * the JSON body. Undefined when the answer went out.
 */
export async function gate(
  ctx: TiktokContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  scope: string,
  bucket: keyof typeof RATE,
): Promise<Gated | undefined> {
  const { kit, errorReply } = ctx;
  const auth = await authenticate(ctx, request, reply);
  if (!auth) return undefined;
  if (!auth.scopes.includes(scope)) {
    errorReply(reply, 401, `scope_not_authorized: The user did not authorize the scope required (${scope}).`);
    return undefined;
  }
  if (!spend(ctx, reply, auth.account, bucket)) return undefined;
  const fault = kit.faults.take(operation, auth.account.id);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  if (applied === 'sent') return undefined;
  let body: Record<string, unknown> = {};
  if (Buffer.isBuffer(request.body) && request.body.length > 0) {
    const parsed = parseBody(request.headers['content-type'], request.body);
    if (!parsed.valid || parsed.contentType !== 'application/json') {
      errorReply(reply, 400, 'invalid_params: The body must be JSON.');
      return undefined;
    }
    body = parsed.fields;
  }
  return { account: auth.account, body, drop: applied === 'drop', fault };
}

/**
 * Spends one call of the account's window (every authenticated call counts); false after the 429. ⚠ unverified:
 * TikTok's rate-limit headers (the simulator sends the IETF RateLimit fields).
 */
export function spend(
  ctx: TiktokContext,
  reply: FastifyReply,
  account: TiktokAccount,
  bucket: keyof typeof RATE,
): boolean {
  const window = ctx.kit.windows.hit(`${bucket}:${account.id}`, ctx.kit.limit(RATE[bucket]), 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (window.allowed) return true;
  ctx.errorReply(reply, 429, 'rate_limit_exceeded: The API rate limit was exceeded; retry after the reset.');
  return false;
}

/** The day a count belongs to (UTC), for the per-day caps. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A string field of an object, or undefined. */
export const str = (o: Record<string, unknown> | undefined, name: string) =>
  typeof o?.[name] === 'string' ? (o[name] as string) : undefined;
export const bool = (o: Record<string, unknown> | undefined, name: string) => o?.[name] === true;
export const obj = (o: Record<string, unknown> | undefined, name: string) =>
  o?.[name] && typeof o[name] === 'object' && !Array.isArray(o[name])
    ? (o[name] as Record<string, unknown>)
    : undefined;
