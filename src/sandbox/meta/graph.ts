// What the Meta simulators (Instagram, Facebook Pages, Threads) share: the Graph error envelope with its
// fbtrace_id, where Graph reads the access token (`access_token` in the query or form, or an
// `Authorization: Bearer|OAuth` header), the version prefix of paths, the usage headers (X-App-Usage,
// X-Business-Use-Case-Usage) and the shared fault switches in Graph shapes. Containers are in containers.ts.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseBody, type ParsedBody } from '../framework/body.ts';
import type { FaultRule } from '../framework/faults.ts';
import type { SimulatorKit } from '../framework/simulator.ts';
import type { TokenClaims } from '../framework/tokens.ts';

export interface GraphErrorSpec {
  message: string;
  /** `OAuthException` for most errors, `GraphMethodException` for unknown objects. */
  type?: string;
  code: number;
  subcode?: number;
  isTransient?: boolean;
  userTitle?: string;
  userMessage?: string;
}

/** A trace id in Meta's style (random, base64-ish, 27 characters). */
export function fbtraceId(): string {
  return randomBytes(20).toString('base64url').slice(0, 27);
}

/** The Graph error body: `{"error":{"message","type","code","error_subcode","is_transient","fbtrace_id",…}}`. */
export function graphErrorBody(spec: GraphErrorSpec): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = {
    message: spec.message,
    type: spec.type ?? 'OAuthException',
    code: spec.code,
  };
  if (spec.subcode !== undefined) error.error_subcode = spec.subcode;
  error.is_transient = spec.isTransient ?? false;
  if (spec.userTitle) error.error_user_title = spec.userTitle;
  if (spec.userMessage) error.error_user_msg = spec.userMessage;
  error.fbtrace_id = fbtraceId();
  return { error };
}

export function graphError(reply: FastifyReply, status: number, spec: GraphErrorSpec): FastifyReply {
  return reply
    .code(status)
    .header(
      'www-authenticate',
      spec.code === 190 ? `OAuth "Facebook Platform" "invalid_token" "${spec.message.replace(/"/g, "'")}"` : undefined,
    )
    .send(graphErrorBody(spec));
}

/** The simulator's `errorReply` for framework-level answers (404 unknown path, 5xx) in the Graph shape. */
export function graphStatusReply(reply: FastifyReply, status: number, message: string): FastifyReply {
  if (status === 404)
    return graphError(reply, 400, {
      message: `Unsupported request - method type or path: ${message}`,
      type: 'GraphMethodException',
      code: 100,
    });
  if (status === 401) return graphError(reply, 400, { message, code: 190 });
  if (status === 429)
    return graphError(reply, 400, { message: 'Application request limit reached', code: 4, isTransient: true });
  if (status >= 500)
    return graphError(reply, status, {
      message: 'An unexpected error has occurred. Please retry your request later.',
      code: 2,
      isTransient: true,
    });
  return graphError(reply, status, { message, code: 100 });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The query as Fastify parsed it, untyped on purpose: Graph reads its parameters loosely (a repeated key is an
 * array here, and each reader decides what to make of it).
 */
export function queryFields(request: FastifyRequest): Record<string, unknown> {
  return isRecord(request.query) ? request.query : {};
}

/** The request's parameters: query and (for POST) the form or JSON body, the body winning. */
export function graphParams(request: FastifyRequest): { params: Record<string, string>; body: ParsedBody } {
  const body = parseBody(request.headers['content-type'], request.body);
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(queryFields(request))) if (typeof v === 'string') params[k] = v;
  for (const [k, v] of Object.entries(body.fields)) {
    if (typeof v === 'string') params[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') params[k] = String(v);
    else if (v !== null && typeof v === 'object') params[k] = JSON.stringify(v);
  }
  return { params, body };
}

/** The access token of a Graph call, wherever Graph accepts it; undefined when there is none. */
export function graphToken(request: FastifyRequest, params: Record<string, string>): string | undefined {
  const header = request.headers.authorization ?? '';
  const match = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(header);
  return match?.[1] ?? (params.access_token || undefined);
}

/**
 * Verifies the token of a call: Graph's own 190 answers when it is missing (code 104 in fact), malformed,
 * expired (subcode 463) or revoked (subcode 460 here stands for "session invalidated"). Returns the claims, or
 * undefined after answering.
 */
export function requireGraphToken(
  kit: SimulatorKit,
  request: FastifyRequest,
  reply: FastifyReply,
  params: Record<string, string>,
  typ: string,
  revoked: (jti: string) => boolean = () => false,
): TokenClaims | undefined {
  const token = graphToken(request, params);
  if (!token) {
    graphError(reply, 400, { message: 'An access token is required to request this resource.', code: 104 });
    return undefined;
  }
  const check = kit.tokens.verify(token, typ);
  if (!check.ok && check.reason === 'expired') {
    graphError(reply, 400, { message: 'Error validating access token: Session has expired.', code: 190, subcode: 463 });
    return undefined;
  }
  if (!check.ok) {
    graphError(reply, 400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
    return undefined;
  }
  if (revoked(check.claims.jti)) {
    graphError(reply, 400, {
      message:
        'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
      code: 190,
      subcode: 460,
    });
    return undefined;
  }
  return check.claims;
}

/**
 * The path's version prefix: `v23.0` of `/v23.0/me`; null when the path has none (Graph then uses the app's
 * default version). Returns false for a malformed version (`/v99/…`), which Graph refuses.
 */
export function versionOf(url: string): string | null | false {
  const first = url.split('?')[0]!.split('/').filter(Boolean)[0] ?? '';
  if (!/^v\d/.test(first)) return null;
  return /^v\d{1,3}\.\d{1,2}$/.test(first) ? first : false;
}

/** Usage headers of an answer: X-App-Usage and X-Business-Use-Case-Usage, as percentages of the budget used. */
export function usageHeaders(
  businessId: string,
  type: string,
  usedPercent: number,
  regainMinutes = 0,
): Record<string, string> {
  const pct = Math.max(0, Math.min(100, Math.round(usedPercent)));
  return {
    'x-app-usage': JSON.stringify({
      call_count: pct,
      total_cputime: Math.round(pct / 2),
      total_time: Math.round(pct / 2),
    }),
    'x-business-use-case-usage': JSON.stringify({
      [businessId]: [
        {
          type,
          call_count: pct,
          total_cputime: Math.round(pct / 2),
          total_time: Math.round(pct / 2),
          estimated_time_to_regain_access: regainMinutes,
        },
      ],
    }),
  };
}

/**
 * The shared fault switches in Graph shapes: `rate_limited` is code 4 ("Application request limit reached")
 * with the usage headers at 100 % and the time to regain access; `expired_token` is 190/463; `server_error` is a
 * 500 with code 2 and `is_transient`; `hang` and `lost_response` as everywhere. Returns like `applyFault`.
 */
export function applyGraphFault(
  kit: SimulatorKit,
  fault: FaultRule | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  usage: { businessId: string; type: string },
): 'sent' | 'drop' | undefined {
  if (!fault) return undefined;
  switch (fault.fault) {
    case 'rate_limited': {
      const seconds = fault.retryAfterSeconds ?? 2;
      reply.headers(usageHeaders(usage.businessId, usage.type, 100, Math.max(1, Math.ceil(seconds / 60))));
      // Graph gives the wait in whole minutes; Retry-After carries the simulator's precise reset for tests.
      reply.header('retry-after', String(seconds));
      graphError(reply, 400, { message: 'Application request limit reached', code: 4, isTransient: true });
      return 'sent';
    }
    case 'expired_token':
      graphError(reply, 400, {
        message: 'Error validating access token: Session has expired.',
        code: 190,
        subcode: 463,
      });
      return 'sent';
    case 'server_error':
      graphError(reply, 500, {
        message: 'An unexpected error has occurred. Please retry your request later.',
        code: 2,
        isTransient: true,
      });
      return 'sent';
    case 'hang':
      kit.hang(request, reply);
      return 'sent';
    case 'lost_response':
      return 'drop';
    default:
      return undefined;
  }
}
