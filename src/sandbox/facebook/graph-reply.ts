// Graph API answers of the Facebook simulator: the error envelope every Graph failure carries (platforms.md §3
// "Errors", shared by §4), the page usage header, and the access-token check each route runs. Graph takes the
// token as `access_token` (query or form) or as an `Authorization: Bearer|OAuth` header.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import type { TokenClaims } from '../framework/tokens.ts';
import type { FbState } from './state.ts';

export interface GraphErrorSpec {
  code: number;
  subcode?: number;
  type?: string;
  message: string;
  transient?: boolean;
  userTitle?: string;
  userMessage?: string;
}

/**
 * Sends Graph's error envelope. ⚠ unverified: the HTTP status of each code. Graph answers most errors, token
 * errors and throttling included, with 400 (the body's `code` carries the meaning); server faults with 5xx.
 */
export function graphError(reply: FastifyReply, status: number, spec: GraphErrorSpec): FastifyReply {
  const error: Record<string, unknown> = { message: spec.message, type: spec.type ?? 'OAuthException', code: spec.code };
  if (spec.subcode !== undefined) error.error_subcode = spec.subcode;
  error.is_transient = spec.transient ?? false;
  if (spec.userTitle) error.error_user_title = spec.userTitle;
  if (spec.userMessage) error.error_user_msg = spec.userMessage;
  error.fbtrace_id = randomBytes(8).toString('base64url');
  if (spec.code === 190) reply.header('www-authenticate', `OAuth "Facebook Platform" "invalid_token" "${spec.message.replace(/"/g, "'")}"`);
  return reply.code(status).send({ error });
}

/** `(#100) message`: how Graph prefixes the message of a numbered API error. */
export const invalidParameter = (reply: FastifyReply, message: string, subcode?: number) => graphError(reply, 400, { code: 100, subcode, message: `(#100) ${message}` });

/** The token of a Graph request, wherever the client put it. */
export function tokenOf(request: FastifyRequest, fields: Record<string, unknown> = {}): string {
  const header = request.headers.authorization ?? '';
  const bearer = /^(Bearer|OAuth) (.+)$/i.exec(header)?.[2];
  if (bearer) return bearer.trim();
  const query = (request.query as Record<string, unknown>).access_token;
  if (typeof query === 'string') return query;
  return typeof fields.access_token === 'string' ? fields.access_token : '';
}

/** The claims of a valid user or Page token, or undefined after Graph's code-190 answer. */
export function checkToken(kit: SimulatorKit, state: FbState, request: FastifyRequest, reply: FastifyReply, kinds: Array<'fb_user' | 'fb_page'>, fields?: Record<string, unknown>): TokenClaims | undefined {
  const token = tokenOf(request, fields);
  if (!token) {
    graphError(reply, 400, { code: 2500, message: 'An active access token must be used to query information about the current user.' });
    return undefined;
  }
  let expired = false;
  for (const kind of kinds) {
    const check = kit.tokens.verify(token, kind);
    if (check.ok) {
      if (state.deauthorized.has(String(check.claims.uid))) {
        graphError(reply, 400, { code: 190, subcode: 458, message: 'Error validating access token: The user has not authorized application.' });
        return undefined;
      }
      return check.claims;
    }
    if (check.reason === 'expired') expired = true;
  }
  if (expired) graphError(reply, 400, { code: 190, subcode: 463, message: `Error validating access token: Session has expired on ${new Date(kit.now()).toUTCString()}.` });
  else graphError(reply, 400, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
  return undefined;
}

const PAGE_CALLS_PER_DAY = 4800; // platforms.md §4: Page calls per 24 h scale with engaged users; 4,800 is the floor ⚠ unverified

/**
 * Counts a call against the Page's 24-hour budget and sets `X-Business-Use-Case-Usage` (percentages, and minutes
 * until access returns). Returns the minutes to wait when the budget is spent, else undefined.
 */
export function pageUsage(kit: SimulatorKit, reply: FastifyReply, pageId: string): number | undefined {
  const window = kit.windows.hit(`page:${pageId}`, kit.limit(PAGE_CALLS_PER_DAY), 24 * 3600_000);
  const used = Math.min(100, Math.round(((window.limit - window.remaining) / window.limit) * 100));
  const minutes = window.allowed ? 0 : Math.max(1, Math.ceil((window.resetAt - kit.now()) / 60_000));
  reply.header('x-business-use-case-usage', usageHeader(pageId, used, minutes));
  return window.allowed ? undefined : minutes;
}

export function usageHeader(pageId: string, percent: number, minutes: number): string {
  return JSON.stringify({ [pageId]: [{ type: 'pages', call_count: percent, total_cputime: Math.min(percent, 100), total_time: Math.min(percent, 100), estimated_time_to_regain_access: minutes }] });
}
