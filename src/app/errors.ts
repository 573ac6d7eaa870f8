// The error catalogue of the public API (API.md "Error codes"): every error a client can see is an AppError
// with one of these codes. The catalogue is the documentation: /docs/errors and the OpenAPI description are
// generated from it.

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
  PUBLIC_API_SCOPE_FORBIDDEN: {
    status: 403,
    retryable: false,
    when: 'The key lacks the scope the endpoint requires; the message names it.',
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
