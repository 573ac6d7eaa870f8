// The PLATFORM_* codes of a failed target (docs/api.md "Platform error codes"): one table, code → kind → category →
// retryable. Adapters pick the code; the publish task reads the kind to decide (retry, fail, reconnect); the
// API shows code, category and retryable on the target. /docs/errors renders this table.

/** The seven kinds of adapter failure; the publish task alone decides what each means (retry, fail, reconnect). */
export type PlatformErrorKind =
  | 'auth_expired'
  | 'rate_limited'
  | 'invalid_content'
  | 'media_rejected'
  | 'transient'
  | 'unknown_outcome'
  | 'permanent';

export type ErrorCategory = 'auth' | 'content' | 'media' | 'rate_limit' | 'platform' | 'network' | 'unknown';

export interface PlatformErrorDefinition {
  kind: PlatformErrorKind;
  category: ErrorCategory;
  /** Whether trying again later can succeed (the engine retries these itself; `POST /retry` may too). */
  retryable: boolean;
  when: string;
}

export const PLATFORM_ERRORS = {
  PLATFORM_RECONNECT_REQUIRED: {
    kind: 'auth_expired',
    category: 'auth',
    retryable: false,
    when: "The platform no longer accepts the connection's token and refreshing it failed; reconnect the account.",
  },
  PLATFORM_PERMISSION_DENIED: {
    kind: 'permanent',
    category: 'auth',
    retryable: false,
    when: 'The account may not do this (missing scope, suspended or restricted account).',
  },
  PLATFORM_CONNECTION_UNAVAILABLE: {
    kind: 'permanent',
    category: 'auth',
    retryable: false,
    when: "The target's connection was disconnected or removed before the post went out.",
  },
  PLATFORM_RATE_LIMITED: {
    kind: 'rate_limited',
    category: 'rate_limit',
    retryable: true,
    when: "The platform's rate limit was reached; Herald waited for the reset and retried until its retry budget ran out.",
  },
  PLATFORM_QUOTA_EXHAUSTED: {
    kind: 'permanent',
    category: 'rate_limit',
    retryable: true,
    when: 'A daily or monthly cap of the account or app is spent (X usage-capped); retry after it resets.',
  },
  PLATFORM_CONTENT_REJECTED: {
    kind: 'invalid_content',
    category: 'content',
    retryable: false,
    when: 'The platform refused the text or options (too long, invalid, not allowed).',
  },
  PLATFORM_REPLY_WINDOW_CLOSED: {
    kind: 'permanent',
    category: 'content',
    retryable: false,
    when: 'The platform no longer accepts an answer to this item (a direct message older than its reply window, a thread closed to replies).',
  },
  PLATFORM_ITEM_DELETED: {
    kind: 'permanent',
    category: 'content',
    retryable: false,
    when: 'The comment, message or review being answered was deleted or hidden on the platform.',
  },
  PLATFORM_DUPLICATE: {
    kind: 'invalid_content',
    category: 'content',
    retryable: false,
    when: 'The platform refused the post as a duplicate of a recent one (X, LinkedIn, Facebook), or answered with a post another Herald post already holds; the message names that Herald post when Herald published it.',
  },
  PLATFORM_MEDIA_REJECTED: {
    kind: 'media_rejected',
    category: 'media',
    retryable: false,
    when: 'The platform refused or failed to process a media item.',
  },
  PLATFORM_MEDIA_CONVERSION_FAILED: {
    kind: 'media_rejected',
    category: 'media',
    retryable: false,
    when: "Herald could not fit a media item to the platform's rules (an animated GIF for a platform that takes only still images, bytes that do not decode); the message says why.",
  },
  PLATFORM_API_VERSION_RETIRED: {
    kind: 'permanent',
    category: 'platform',
    retryable: false,
    when: 'The platform retired the API version Herald speaks; upgrade Herald.',
  },
  PLATFORM_REJECTED: {
    kind: 'permanent',
    category: 'platform',
    retryable: false,
    when: "The platform refused the request for another reason; see the message and the platform's answer.",
  },
  PLATFORM_UNAVAILABLE: {
    kind: 'transient',
    category: 'platform',
    retryable: true,
    when: 'The platform answered with a server error or was overloaded, through every retry.',
  },
  PLATFORM_NETWORK_ERROR: {
    kind: 'transient',
    category: 'network',
    retryable: true,
    when: 'The platform could not be reached (connection refused, DNS), through every retry.',
  },
  PLATFORM_DESTINATION_BLOCKED: {
    kind: 'permanent',
    category: 'network',
    retryable: false,
    when: 'The instance or service address is private or reserved and not in HERALD_OUTBOUND_ALLOWLIST.',
  },
  PLATFORM_UNKNOWN_OUTCOME: {
    kind: 'unknown_outcome',
    category: 'network',
    retryable: true,
    when: 'A request was sent but no answer came (timeout, reset); Herald looks the post up before it ever sends again.',
  },
} as const satisfies Record<string, PlatformErrorDefinition>;

export type PlatformErrorCode = keyof typeof PLATFORM_ERRORS;

/** The code used for a kind when an adapter has nothing more precise. */
export const DEFAULT_CODE: Record<PlatformErrorKind, PlatformErrorCode> = {
  auth_expired: 'PLATFORM_RECONNECT_REQUIRED',
  rate_limited: 'PLATFORM_RATE_LIMITED',
  invalid_content: 'PLATFORM_CONTENT_REJECTED',
  media_rejected: 'PLATFORM_MEDIA_REJECTED',
  transient: 'PLATFORM_UNAVAILABLE',
  unknown_outcome: 'PLATFORM_UNKNOWN_OUTCOME',
  permanent: 'PLATFORM_REJECTED',
};

/** Every code with its meaning, for the API reference. */
export function platformErrorRows(): Array<{ code: string } & PlatformErrorDefinition> {
  return Object.entries(PLATFORM_ERRORS).map(([code, d]) => ({ code, ...d }));
}
