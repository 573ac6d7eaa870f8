// The error tables of the adapters against the platforms' real error bodies ("Errors" of each platform's page in
// docs/platforms/), and the PLATFORM_* catalogue's consistency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, type ErrorRule } from './classify.ts';
import { BLUESKY_ERRORS } from './bluesky/errors.ts';
import { PLATFORM_ERRORS } from './errors.ts';
import type { PlatformResponse } from './http-contract.ts';
import { MASTODON_ERRORS } from './mastodon/errors.ts';
import { X_ERRORS } from './x/errors.ts';

function answer(status: number, body: unknown, retryAfterMs?: number): PlatformResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    status,
    headers: {},
    body: Buffer.from(text),
    text: () => text,
    json: () => JSON.parse(text),
    rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
    retryAfterMs,
  };
}

const cases: Array<[string, ErrorRule[], number, unknown, string, string]> = [
  [
    'X duplicate text',
    X_ERRORS,
    403,
    {
      detail: 'You are not allowed to create a Tweet with duplicate content.',
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
    },
    'invalid_content',
    'PLATFORM_DUPLICATE',
  ],
  [
    'X expired token',
    X_ERRORS,
    401,
    { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'X usage cap',
    X_ERRORS,
    429,
    { title: 'UsageCapExceeded', type: 'https://api.x.com/2/problems/usage-capped', status: 429 },
    'permanent',
    'PLATFORM_QUOTA_EXHAUSTED',
  ],
  ['X rate limit', X_ERRORS, 429, { title: 'Too Many Requests', status: 429 }, 'rate_limited', 'PLATFORM_RATE_LIMITED'],
  [
    'X suspended',
    X_ERRORS,
    403,
    { title: 'Forbidden', detail: 'user-suspended', status: 403 },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
  [
    'X invalid media',
    X_ERRORS,
    400,
    { errors: [{ message: 'Your media IDs are invalid.' }], title: 'Invalid Request' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  ['X 503', X_ERRORS, 503, 'Service Unavailable', 'transient', 'PLATFORM_UNAVAILABLE'],
  [
    'Bluesky expired token (a 400, not a 401)',
    BLUESKY_ERRORS,
    400,
    { error: 'ExpiredToken', message: 'Token has expired' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'Bluesky invalid token',
    BLUESKY_ERRORS,
    400,
    { error: 'InvalidToken', message: 'Token could not be verified' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'Bluesky text too long',
    BLUESKY_ERRORS,
    400,
    {
      error: 'InvalidRequest',
      message: 'Invalid app.bsky.feed.post record: grapheme too big (maximum 300, got 301) at $.record.text',
    },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'Bluesky unknown blob',
    BLUESKY_ERRORS,
    400,
    { error: 'BlobNotFound', message: 'Could not find blob' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'Bluesky rate limit',
    BLUESKY_ERRORS,
    429,
    { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'Mastodon revoked token',
    MASTODON_ERRORS,
    401,
    { error: 'The access token is invalid' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'Mastodon blank text',
    MASTODON_ERRORS,
    422,
    { error: "Validation failed: Text can't be blank" },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'Mastodon media still processing',
    MASTODON_ERRORS,
    422,
    { error: 'Cannot attach files that have not finished processing. Try again in a moment!' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  ['Mastodon reply target gone', MASTODON_ERRORS, 404, { error: 'Record not found' }, 'permanent', 'PLATFORM_REJECTED'],
];

for (const [name, table, status, body, kind, code] of cases) {
  test(`${name}: ${status} → ${kind} ${code}`, () => {
    const error = classify(answer(status, body, 5000), table, 'Platform');
    assert.equal(error.kind, kind);
    assert.equal(error.code, code);
    assert.equal(error.platformStatus, status);
    assert.equal(error.retryAfterMs, 5000);
    assert.ok(error.message.length > 0 && !error.message.includes('[object'));
  });
}

test('every PLATFORM_* code names a known category and a sentence', () => {
  for (const [code, d] of Object.entries(PLATFORM_ERRORS)) {
    assert.match(code, /^PLATFORM_[A-Z_]+$/);
    assert.ok(['auth', 'content', 'media', 'rate_limit', 'platform', 'network', 'unknown'].includes(d.category));
    assert.ok(d.when.endsWith('.'), code);
  }
});
