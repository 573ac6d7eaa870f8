// Meta Graph API error answers (Instagram, Facebook Pages, Threads) → PlatformError kinds. Every Meta product
// answers failures with the same envelope, `{"error":{"message","type","code","error_subcode","is_transient",
// "error_user_title","error_user_msg","fbtrace_id"}}` (docs/platforms/meta-graph.md "Errors"), and the HTTP status
// says little (most failures are a 400), so the table below matches on `code` and `error_subcode`, first match
// wins. Sources: developers.facebook.com/docs/graph-api/guides/error-handling and the Instagram content-publishing
// error codes in docs/platforms/instagram.md "Errors".
import { DEFAULT_CODE, type PlatformErrorCode } from '../errors.ts';
import type { PlatformResponse } from '../http-contract.ts';
import { PlatformError, type PlatformErrorKind } from '../types.ts';

/** The `error` object of a Graph answer. */
export interface GraphErrorBody {
  message: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
}

/** One row: codes and/or subcodes (a number, a list, or an inclusive range), an optional message pattern. */
export interface GraphErrorRule {
  code?: number | readonly number[] | { from: number; to: number };
  subcode?: number | readonly number[];
  /** Tested against `message`, `error_user_msg` and `error_user_title` together. */
  message?: RegExp;
  kind: PlatformErrorKind;
  platformCode?: PlatformErrorCode;
  /** Why the row is what it is; shown nowhere, kept for the reader and the tests. */
  why: string;
}

const TOKEN_SUBCODES = [458, 459, 460, 463, 464, 467, 492] as const;

/**
 * The shared table. Subcode rows come before code rows: Instagram reports its own failures as subcodes of
 * generic codes (9004/2207052 under code 9004 or 100, 2207042 under code 9, 2207051 under code 10 or 100).
 * Adapters may put rows of their own in front (`classifyGraphError(res, platform, extra)`).
 */
export const GRAPH_ERROR_RULES: readonly GraphErrorRule[] = [
  // — Instagram / Threads publishing subcodes —
  {
    subcode: [2207050, 2207051],
    kind: 'unknown_outcome',
    platformCode: 'PLATFORM_UNKNOWN_OUTCOME',
    why: '"Instagram blocked your request" / restricted: the media is often live anyway; look it up before any re-send.',
  },
  {
    subcode: 2207042,
    kind: 'permanent',
    platformCode: 'PLATFORM_QUOTA_EXHAUSTED',
    why: 'The 24-hour content publishing limit is spent.',
  },
  {
    code: 9,
    kind: 'permanent',
    platformCode: 'PLATFORM_QUOTA_EXHAUSTED',
    why: 'Code 9 is the publishing-limit family (2207042 is its subcode).',
  },
  {
    subcode: [2207052, 2207003],
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: 'Meta could not fetch (or timed out fetching) the media URL; the next try often works.',
  },
  {
    subcode: 2207027,
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: 'Published before the container was FINISHED: wait and publish again.',
  },
  {
    subcode: [2207020, 2207008],
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: 'The container expired (not published within 24 h) or is stale: a new container is needed.',
  },
  {
    subcode: [2207010, 2207040, 2207013],
    kind: 'invalid_content',
    platformCode: 'PLATFORM_CONTENT_REJECTED',
    why: 'Caption too long, too many hashtags or mentions.',
  },
  {
    subcode: [2207001, 2207004, 2207005, 2207006, 2207009, 2207023, 2207026, 2207028, 2207032, 2207053, 2207057],
    kind: 'media_rejected',
    platformCode: 'PLATFORM_MEDIA_REJECTED',
    why: 'Media Instagram refuses: too large, wrong format, aspect ratio, unsupported video, invalid carousel.',
  },
  // Generic codes of the media family, once their precise subcodes above did not match.
  {
    code: 9004,
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: 'Media fetch failed ("The media could not be fetched from this URI").',
  },
  { code: 9007, kind: 'transient', platformCode: 'PLATFORM_UNAVAILABLE', why: 'Media not ready for publishing.' },
  {
    subcode: 4279013,
    kind: 'invalid_content',
    platformCode: 'PLATFORM_CONTENT_REJECTED',
    why: 'Threads: the post breaks a content rule (seen by peers on link-heavy posts).',
  },
  {
    message: /THREADS_API__LINK_LIMIT_EXCEEDED|at most 500 characters/i,
    kind: 'invalid_content',
    platformCode: 'PLATFORM_CONTENT_REJECTED',
    why: 'Threads text rules: 5 links, 500 characters.',
  },
  // — Access tokens —
  {
    code: 190,
    subcode: TOKEN_SUBCODES,
    kind: 'auth_expired',
    platformCode: 'PLATFORM_RECONNECT_REQUIRED',
    why: '458 app removed, 459 checkpoint, 460 password changed, 463 expired, 464 unconfirmed user, 467 invalid, 492 invalid session.',
  },
  {
    code: [190, 102],
    kind: 'auth_expired',
    platformCode: 'PLATFORM_RECONNECT_REQUIRED',
    why: 'Invalid or expired OAuth access token (no or another subcode).',
  },
  // — Throttling —
  {
    code: [4, 17, 32, 613],
    kind: 'rate_limited',
    platformCode: 'PLATFORM_RATE_LIMITED',
    why: '4 app, 17 user, 32 page, 613 custom rate limit.',
  },
  {
    code: { from: 80000, to: 80014 },
    kind: 'rate_limited',
    platformCode: 'PLATFORM_RATE_LIMITED',
    why: 'Business Use Case throttling (80001 Pages, 80002 Instagram, … 80014).',
  },
  {
    code: 368,
    kind: 'permanent',
    platformCode: 'PLATFORM_PERMISSION_DENIED',
    why: 'The account is temporarily blocked from posting for policy reasons.',
  },
  {
    code: [1390008],
    kind: 'rate_limited',
    platformCode: 'PLATFORM_RATE_LIMITED',
    why: 'Facebook Pages: posting too fast.',
  },
  // — Duplicates —
  {
    code: 506,
    kind: 'invalid_content',
    platformCode: 'PLATFORM_DUPLICATE',
    why: 'Facebook: "You cannot make duplicate posts in a row".',
  },
  {
    subcode: 1366051,
    kind: 'invalid_content',
    platformCode: 'PLATFORM_DUPLICATE',
    why: 'Facebook: these photos were already posted.',
  },
  // — Permissions —
  {
    code: [10, 3],
    kind: 'permanent',
    platformCode: 'PLATFORM_PERMISSION_DENIED',
    why: 'The app lacks the permission or capability.',
  },
  {
    code: { from: 200, to: 299 },
    kind: 'permanent',
    platformCode: 'PLATFORM_PERMISSION_DENIED',
    why: '200–299: permission errors (publish, pages, Instagram scopes not granted).',
  },
  // — API version and generic failures —
  {
    code: [12, 2635],
    kind: 'permanent',
    platformCode: 'PLATFORM_API_VERSION_RETIRED',
    why: 'The Graph API version (or the call) is deprecated.',
  },
  {
    code: [1, 2],
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: '1 unknown error, 2 service temporarily unavailable: retry later.',
  },
  {
    code: 100,
    subcode: 33,
    kind: 'permanent',
    platformCode: 'PLATFORM_REJECTED',
    why: 'The object (reply target, container) does not exist or is not reachable with this token.',
  },
  { code: 803, kind: 'permanent', platformCode: 'PLATFORM_REJECTED', why: 'Unknown alias or object.' },
  {
    code: 100,
    message: /image|video|media|aspect|format|url/i,
    kind: 'media_rejected',
    platformCode: 'PLATFORM_MEDIA_REJECTED',
    why: 'Invalid parameter about media.',
  },
  { code: 100, kind: 'invalid_content', platformCode: 'PLATFORM_CONTENT_REJECTED', why: 'Invalid parameter.' },
];

function matchesNumber(value: number | undefined, spec: GraphErrorRule['code']): boolean {
  if (spec === undefined) return true;
  if (value === undefined) return false;
  if (typeof spec === 'number') return value === spec;
  if (Array.isArray(spec)) return spec.includes(value);
  const range = spec as { from: number; to: number };
  return value >= range.from && value <= range.to;
}

/** The `error` object of a Graph answer, or undefined when the body is not the Graph envelope. */
export function parseGraphError(text: string): GraphErrorBody | undefined {
  try {
    const json = JSON.parse(text) as { error?: unknown };
    const e = json?.error;
    if (!e || typeof e !== 'object') return undefined;
    const r = e as Record<string, unknown>;
    const num = (v: unknown) =>
      typeof v === 'number' && Number.isFinite(v)
        ? v
        : typeof v === 'string' && /^\d+$/.test(v)
          ? Number(v)
          : undefined;
    return {
      message: typeof r.message === 'string' ? r.message : 'no message',
      type: typeof r.type === 'string' ? r.type : undefined,
      code: num(r.code),
      error_subcode: num(r.error_subcode),
      is_transient: r.is_transient === true,
      error_user_title: typeof r.error_user_title === 'string' ? r.error_user_title : undefined,
      error_user_msg: typeof r.error_user_msg === 'string' ? r.error_user_msg : undefined,
      fbtrace_id: typeof r.fbtrace_id === 'string' ? r.fbtrace_id : undefined,
    };
  } catch {
    return undefined;
  }
}

/** The first rule matching an error object; undefined when none does. */
export function graphRuleFor(
  error: GraphErrorBody,
  rules: readonly GraphErrorRule[] = GRAPH_ERROR_RULES,
): GraphErrorRule | undefined {
  const words = [error.message, error.error_user_title ?? '', error.error_user_msg ?? ''].join(' ');
  return rules.find((rule) => {
    if (rule.code === undefined && rule.subcode === undefined && !rule.message) return false;
    if (!matchesNumber(error.code, rule.code)) return false;
    if (rule.subcode !== undefined && !matchesNumber(error.error_subcode, rule.subcode)) return false;
    return !rule.message || rule.message.test(words);
  });
}

/** Kind and code of a Graph error object: the table, then `is_transient`, then the HTTP status. */
export function graphErrorKind(
  error: GraphErrorBody | undefined,
  status: number,
  extra: readonly GraphErrorRule[] = [],
): { kind: PlatformErrorKind; code: PlatformErrorCode } {
  const rule = error ? graphRuleFor(error, [...extra, ...GRAPH_ERROR_RULES]) : undefined;
  if (rule) return { kind: rule.kind, code: rule.platformCode ?? DEFAULT_CODE[rule.kind] };
  if (error?.is_transient || status >= 500) return { kind: 'transient', code: 'PLATFORM_UNAVAILABLE' };
  if (status === 401) return { kind: 'auth_expired', code: 'PLATFORM_RECONNECT_REQUIRED' };
  if (status === 429) return { kind: 'rate_limited', code: 'PLATFORM_RATE_LIMITED' };
  if (status === 403) return { kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' };
  return { kind: 'permanent', code: 'PLATFORM_REJECTED' };
}

/** A readable one-liner of a Graph error: `(#code/subcode) message — user message [fbtrace_id]`. */
export function describeGraphError(error: GraphErrorBody): string {
  const ids =
    error.code !== undefined
      ? `(#${error.code}${error.error_subcode !== undefined ? `/${error.error_subcode}` : ''}) `
      : '';
  const user = error.error_user_msg && error.error_user_msg !== error.message ? ` — ${error.error_user_msg}` : '';
  const trace = error.fbtrace_id ? ` [fbtrace_id ${error.fbtrace_id}]` : '';
  return `${ids}${error.message}${user}${trace}`;
}

/**
 * A failed Graph answer as a PlatformError. `retryAfterMs` is the response's own (Retry-After), else the Business
 * Use Case header's `estimated_time_to_regain_access` when the answer is a throttle (graph.ts reads it).
 */
export function classifyGraphError(
  res: PlatformResponse,
  platform: string,
  extra: readonly GraphErrorRule[] = [],
  retryAfterMs?: number,
): PlatformError {
  const text = res.text();
  const error = parseGraphError(text);
  const { kind, code } = graphErrorKind(error, res.status, extra);
  const message = error ? describeGraphError(error) : text.trim().slice(0, 300) || 'no message';
  return new PlatformError(kind, code, `${platform} answered ${res.status}: ${message}`, {
    platformStatus: res.status,
    platformBody: text,
    retryAfterMs: res.retryAfterMs ?? (kind === 'rate_limited' ? retryAfterMs : undefined),
  });
}
