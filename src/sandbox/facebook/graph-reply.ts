// What the Facebook simulator adds to the shared Meta simulator helpers (src/sandbox/meta/graph.ts): the token
// check that knows user and Page tokens and removed app authorizations (190/458), and the Page's own 24-hour
// call budget with its usage headers. Graph takes the token as `access_token` (query or form) or as an
// `Authorization: Bearer|OAuth` header.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import type { TokenClaims } from '../framework/tokens.ts';
import { graphError, graphToken, queryFields, usageHeaders } from '../meta/graph.ts';
import { KIND } from './state.ts';

export { graphError } from '../meta/graph.ts';

/** `(#100) message`: how Graph prefixes the message of a numbered API error. */
export const invalidParameter = (reply: FastifyReply, message: string, subcode?: number) =>
  graphError(reply, 400, { code: 100, subcode, message: `(#100) ${message}` });

/** The token of a Graph request, wherever the client put it (the shared reader, given query and body fields). */
export function tokenOf(request: FastifyRequest, fields: Record<string, unknown> = {}): string {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...queryFields(request), ...fields })) if (typeof v === 'string') params[k] = v;
  return graphToken(request, params) ?? '';
}

/**
 * The claims of a valid user or Page token, or undefined after Graph's code-190 answer. A token is checked against
 * the store only for a removed app authorization (one read); the rest is in its signed claims.
 */
export async function checkToken(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  kinds: Array<'fb_user' | 'fb_page'>,
  fields?: Record<string, unknown>,
): Promise<TokenClaims | undefined> {
  const token = tokenOf(request, fields);
  if (!token) {
    graphError(reply, 400, {
      code: 2500,
      message: 'An active access token must be used to query information about the current user.',
    });
    return undefined;
  }
  let expired = false;
  for (const kind of kinds) {
    const check = kit.tokens.verify(token, kind);
    if (check.ok) {
      if (await kit.store.get(KIND.deauthorized, String(check.claims.uid))) {
        graphError(reply, 400, {
          code: 190,
          subcode: 458,
          message: 'Error validating access token: The user has not authorized application.',
        });
        return undefined;
      }
      return check.claims;
    }
    if (check.reason === 'expired') expired = true;
  }
  if (expired)
    graphError(reply, 400, {
      code: 190,
      subcode: 463,
      message: `Error validating access token: Session has expired on ${new Date(kit.now()).toUTCString()}.`,
    });
  else graphError(reply, 400, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
  return undefined;
}

// docs/platforms/facebook.md "Rate limits": Page calls per 24 h scale with engaged users; 4,800 is the floor
// ⚠ unverified
const PAGE_CALLS_PER_DAY = 4800;

/**
 * Counts a call against the Page's 24-hour budget and sets `X-Business-Use-Case-Usage` (percentages, and minutes
 * until access returns). Returns the minutes to wait when the budget is spent, else undefined.
 */
export function pageUsage(kit: SimulatorKit, reply: FastifyReply, pageId: string): number | undefined {
  const window = kit.windows.hit(`page:${pageId}`, kit.limit(PAGE_CALLS_PER_DAY), 24 * 3600_000);
  const used = Math.min(100, Math.round(((window.limit - window.remaining) / window.limit) * 100));
  const minutes = window.allowed ? 0 : Math.max(1, Math.ceil((window.resetAt - kit.now()) / 60_000));
  reply.headers(usageHeaders(pageId, 'pages', used, minutes));
  return window.allowed ? undefined : minutes;
}
