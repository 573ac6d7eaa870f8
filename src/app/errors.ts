// The error catalogue of the public API (docs/api.md "Errors"): every error a client can see is an AppError
// with one of these codes. The catalogue is the documentation: /docs/errors and the OpenAPI description are
// generated from it.
import { isDatabaseUnavailable } from '../db/pool.ts';
export interface ErrorDefinition {
  status: number;
  retryable: boolean;
  /** When the error is returned, in words for the API reference. */
  when: string;
}

export const ERROR_CATALOGUE = {
  PUBLIC_API_AUTH_REQUIRED: {
    status: 401,
    retryable: false,
    when: 'Authorization header absent, or not of the form `Bearer <token>`.',
  },
  PUBLIC_API_KEY_INVALID: {
    status: 401,
    retryable: false,
    when: 'The bearer token is not a live key: unknown, revoked, malformed or checksum-invalid.',
  },
  PUBLIC_API_KEY_EXPIRED: { status: 401, retryable: false, when: 'The key is past its expiry.' },
  PUBLIC_API_SESSION_INVALID: {
    status: 401,
    retryable: false,
    when: 'The session cookie is not a live session (signed out, expired or unknown): sign in again.',
  },
  PUBLIC_API_CREDENTIALS_INVALID: {
    status: 401,
    retryable: false,
    when: 'Signing in (`POST /app/api/session`): that email and password do not match an account.',
  },
  PUBLIC_API_CREDENTIALS_AMBIGUOUS: {
    status: 400,
    retryable: false,
    when: 'The request carries both a session cookie and an `Authorization` header: send one credential.',
  },
  PUBLIC_API_CSRF_TOKEN_INVALID: {
    status: 403,
    retryable: false,
    when: "A mutating call made with the session cookie without the session's `X-CSRF-Token` header, with a wrong one, or from another origin.",
  },
  PUBLIC_API_SESSION_REQUIRED: {
    status: 403,
    retryable: false,
    when: 'The endpoint acts on a signed-in session (sign out everywhere, change the password) and was called with an API key.',
  },
  PUBLIC_API_INVITE_INVALID: {
    status: 410,
    retryable: false,
    when: 'The invite link is unknown, already used, cancelled or expired: ask for a new one.',
  },
  PUBLIC_API_SCOPE_FORBIDDEN: {
    status: 403,
    retryable: false,
    when: 'The key lacks the scope the endpoint requires; the message names it.',
  },
  PUBLIC_API_APPROVAL_FORBIDDEN: {
    status: 403,
    retryable: false,
    when: 'The approval policy does not let you decide this item: your role is not an approver role, or you asked for it yourself and self-approval is off (`details[].rule` says which).',
  },
  PUBLIC_API_WORKSPACE_REQUIRED: {
    status: 400,
    retryable: false,
    when: 'The `x-herald-workspace-id` header is missing and the key reaches more than one workspace.',
  },
  PUBLIC_API_WORKSPACE_FORBIDDEN: {
    status: 403,
    retryable: false,
    when: 'The workspace is unknown, malformed, or not reachable by this key (one answer for all three).',
  },
  PUBLIC_API_BRAND_FORBIDDEN: {
    status: 403,
    retryable: false,
    when: 'The brand is not in this workspace or not reachable by this key.',
  },
  PUBLIC_API_IDEMPOTENCY_REQUIRED: {
    status: 400,
    retryable: false,
    when: 'A mutating call without a valid `Idempotency-Key` header (1–255 printable ASCII).',
  },
  PUBLIC_API_IDEMPOTENCY_CONFLICT: {
    status: 422,
    retryable: false,
    when: 'The idempotency key was used before with a different request.',
  },
  PUBLIC_API_IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    retryable: true,
    when: 'The first request with this idempotency key is still running; retry after `Retry-After` seconds.',
  },
  PUBLIC_API_BODY_INVALID: {
    status: 400,
    retryable: false,
    when: 'Malformed JSON, invalid UTF-8, or a body that fails the schema; `details` lists each field.',
  },
  PUBLIC_API_QUERY_INVALID: {
    status: 400,
    retryable: false,
    when: 'A query string that fails the schema, or a cursor used with other filters.',
  },
  PUBLIC_API_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    when: 'A body that is not JSON where JSON is required.',
  },
  PUBLIC_API_VALIDATION_FAILED: {
    status: 422,
    retryable: false,
    when: 'The request is well-formed but breaks a rule (text too long for a platform, schedule in the past, …); `details` name platform and rule.',
  },
  PUBLIC_API_NOT_FOUND: { status: 404, retryable: false, when: 'The resource does not exist in this workspace.' },
  PUBLIC_API_ROUTE_NOT_FOUND: { status: 404, retryable: false, when: 'No such route.' },
  PUBLIC_API_METHOD_NOT_ALLOWED: {
    status: 405,
    retryable: false,
    when: 'The route exists but not with this method; `Allow` lists the methods it has.',
  },
  PUBLIC_API_STATE_CONFLICT: {
    status: 409,
    retryable: false,
    when: "The action is not allowed in the resource's current state.",
  },
  PUBLIC_API_VERSION_CONFLICT: {
    status: 409,
    retryable: false,
    when: 'The `version` sent is not the current one (someone changed the resource since you read it): read it again, reapply the change and send the new `version`.',
  },
  PUBLIC_API_PUBLISH_IN_FLIGHT: {
    status: 409,
    retryable: true,
    when: 'A platform call for this post is in flight, so it cannot be cancelled or retried this instant; retry after `Retry-After` seconds.',
  },
  PUBLIC_API_SIGNED_URL_INVALID: {
    status: 403,
    retryable: false,
    when: 'A signed media URL (upload or download) whose signature does not match: altered, for another media, or not issued by this server.',
  },
  PUBLIC_API_SIGNED_URL_EXPIRED: {
    status: 403,
    retryable: false,
    when: 'A signed media URL past its expiry: request a new one (`POST /v1/media/upload-url`, or read the media again for a fresh `url`).',
  },
  PUBLIC_API_PAYLOAD_TOO_LARGE: {
    status: 413,
    retryable: false,
    when: 'The body, or a declared upload size, is over the limit.',
  },
  PUBLIC_API_RATE_LIMITED: {
    status: 429,
    retryable: true,
    when: 'Too many requests; retry after `Retry-After` seconds.',
  },
  PUBLIC_API_AI_LIMIT_EXCEEDED: {
    status: 429,
    retryable: true,
    when: 'The workspace has used its daily text-generation budget (`HERALD_AI_DAILY_CALLS` or `HERALD_AI_DAILY_TOKENS`) and the caller did not accept the deterministic answer instead; `Retry-After` is the next UTC midnight.',
  },
  PUBLIC_API_UNAVAILABLE: {
    status: 503,
    retryable: true,
    when: 'The database is unreachable or the server is shutting down; nothing was written.',
  },
  PUBLIC_API_INTERNAL_ERROR: {
    status: 500,
    retryable: true,
    when: 'An unexpected failure; the message holds no internals and the request id is logged.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One field-level problem: a JSON Pointer into the request and what is wrong there. */
export interface ErrorDetail {
  path?: string;
  message: string;
  platform?: string | null;
  rule?: string;
}

/** An error a client is meant to see. Anything else that reaches the error handler is a 500. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (Retry-After, Allow). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** 422 with one detail per broken rule. */
export function validationFailed(details: ErrorDetail[], message?: string): AppError {
  const first = details[0];
  return new AppError(
    'PUBLIC_API_VALIDATION_FAILED',
    message ?? (details.length === 1 && first ? first.message : `${details.length} rules failed; see details.`),
    { details },
  );
}

export function notFound(what: string): AppError {
  return new AppError('PUBLIC_API_NOT_FOUND', `No ${what} with that id in this workspace.`);
}

/** What a thrown value may carry: Fastify's and Node's errors mark client faults with a code or a 4xx status. */
interface ThrownError {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: ValidationIssue[];
  validationContext?: string;
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function detailsOf(issues: ValidationIssue[]): ErrorDetail[] {
  return issues.slice(0, 20).map((issue) => {
    let path = issue.instancePath || '';
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'additionalProperties' && issue.params?.additionalProperty !== undefined) {
      path = `${path}/${String(issue.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (issue.keyword === 'required' && issue.params?.missingProperty !== undefined) {
      path = `${path}/${String(issue.params.missingProperty)}`;
      message = 'is required';
    } else if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues)) {
      message = `must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`;
    }
    return { path: path || '/', message };
  });
}

/** Maps any thrown value (a framework's client fault, a database outage) to a catalogue error, without logging. */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const fe = error as ThrownError | undefined;
  if (fe?.validation) {
    const code: ErrorCode = fe.validationContext === 'body' ? 'PUBLIC_API_BODY_INVALID' : 'PUBLIC_API_QUERY_INVALID';
    const details = detailsOf(fe.validation);
    const where =
      fe.validationContext === 'body'
        ? 'body'
        : fe.validationContext === 'params'
          ? 'path'
          : fe.validationContext === 'headers'
            ? 'headers'
            : 'query string';
    const first = details[0];
    return new AppError(code, `The ${where} is invalid${first ? `: ${first.path} ${first.message}` : ''}.`, {
      details,
    });
  }
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PUBLIC_API_PAYLOAD_TOO_LARGE', 'The body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(
        fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE' : 'PUBLIC_API_BODY_INVALID',
        fe.message,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('PUBLIC_API_BODY_INVALID', 'The body is not valid JSON.');
  }
  // PostgreSQL text cannot hold U+0000 (22021) or a character the encoding lacks (22P05): bad input, not a fault.
  if ((error as { code?: string })?.code === '22021' || (error as { code?: string })?.code === '22P05') {
    return new AppError(
      'PUBLIC_API_BODY_INVALID',
      'The request contains a character Herald cannot store (such as U+0000).',
    );
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError('PUBLIC_API_UNAVAILABLE', 'The database is unavailable; nothing was written. Retry shortly.', {
      headers: { 'retry-after': '2' },
    });
  }
  // Node's HTTP layer and Fastify mark client faults with a 4xx status; keep them 4xx.
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413)
      return new AppError('PUBLIC_API_PAYLOAD_TOO_LARGE', 'The body is larger than this server accepts.');
    if (fe.statusCode === 415) return new AppError('PUBLIC_API_UNSUPPORTED_MEDIA_TYPE', fe.message);
    return new AppError('PUBLIC_API_BODY_INVALID', fe.message || 'The request is malformed.');
  }
  return undefined;
}
