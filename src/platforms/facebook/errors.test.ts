// Facebook's error answers → PlatformError kinds: its own rows in front of the shared Meta table, checked with
// the bodies Facebook (and the simulator) send, so that a row added in front cannot shadow a shared one unnoticed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformResponse } from '../http-contract.ts';
import { graphUsage } from '../meta/graph.ts';
import { classifyGraphError } from '../meta/graph-errors.ts';
import { FACEBOOK_ERRORS } from './errors.ts';

function answer(
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
): PlatformResponse {
  const body = Buffer.from(
    JSON.stringify({ error: { type: 'OAuthException', is_transient: false, fbtrace_id: 'AbC123', ...error } }),
  );
  return {
    status,
    headers,
    body,
    text: () => body.toString('utf8'),
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
    rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
    retryAfterMs: undefined,
  };
}

const cases: Array<[string, Record<string, unknown>, string, string]> = [
  [
    'duplicate post',
    { code: 506, error_subcode: 1455006, message: '(#506) Duplicate status message' },
    'invalid_content',
    'PLATFORM_DUPLICATE',
  ],
  [
    'photos already posted',
    { code: 100, error_subcode: 1366051, message: '(#100) These photos were already posted.' },
    'invalid_content',
    'PLATFORM_DUPLICATE',
  ],
  [
    'link not scrapable',
    {
      code: 100,
      error_subcode: 1609005,
      message: '(#100) The link could not be fetched: it is not a valid http(s) URL.',
    },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'message too long',
    { code: 100, message: '(#100) Param message must be at most 63206 characters long.' },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'not an image',
    { code: 324, error_subcode: 1366046, message: '(#324) Missing or invalid image file' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'upload file missing',
    { code: 324, message: '(#324) Requires upload file' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'video too large',
    { code: 6001, error_subcode: 1363023, message: 'There was a problem uploading your video file: too large' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'video upload offset',
    { code: 6001, error_subcode: 1363037, message: 'There was a problem uploading your video file: offset' },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'video not processed yet',
    { code: 100, error_subcode: 1363047, message: '(#100) The video cannot be published while it is processing.' },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'code used',
    { code: 100, error_subcode: 36009, message: 'This authorization code has been used.' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'code expired',
    { code: 100, error_subcode: 36007, message: 'This authorization code has expired.' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'wrong client secret',
    { code: 1, message: 'Error validating client secret.' },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
  [
    'unknown error stays transient',
    { code: 1, message: 'An unknown error has occurred.', is_transient: true },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'policy block',
    { code: 368, message: 'The action attempted has been deemed abusive or is otherwise disallowed' },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
  [
    'page throttle',
    { code: 32, message: '(#32) Page request limit reached', is_transient: true },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  ['user throttle', { code: 17, message: '(#17) User request limit reached' }, 'rate_limited', 'PLATFORM_RATE_LIMITED'],
  [
    'custom throttle',
    { code: 613, message: '(#613) Calls to this api have exceeded the rate limit.' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'app throttle',
    { code: 4, message: '(#4) Application request limit reached', is_transient: true },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'page token expired',
    { code: 190, error_subcode: 463, message: 'Error validating access token: Session has expired.' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'app removed by the user',
    {
      code: 190,
      error_subcode: 458,
      message: 'Error validating access token: The user has not authorized application.',
    },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'page role removed',
    { code: 190, error_subcode: 492, message: 'Error validating access token: invalid session.' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'publish permission missing',
    { code: 200, message: '(#200) Requires pages_manage_posts permission to perform this action' },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
];

for (const [name, error, kind, code] of cases) {
  test(`Facebook ${name} (#${String(error.code)}${error.error_subcode ? `/${String(error.error_subcode)}` : ''}) is ${kind} ${code}`, () => {
    const classified = classifyGraphError(answer(400, error), 'Facebook', FACEBOOK_ERRORS);
    assert.equal(classified.kind, kind, classified.message);
    assert.equal(classified.code, code);
    assert.match(classified.message, /fbtrace_id AbC123/);
  });
}

test('a throttle waits as long as X-Business-Use-Case-Usage says (minutes), and Retry-After wins when present', () => {
  const headers = {
    'x-business-use-case-usage': JSON.stringify({
      '1234': [
        { type: 'pages', call_count: 100, total_cputime: 40, total_time: 40, estimated_time_to_regain_access: 7 },
      ],
    }),
  };
  const res = answer(400, { code: 32, message: '(#32) Page request limit reached' }, headers);
  const error = classifyGraphError(res, 'Facebook', FACEBOOK_ERRORS, graphUsage(res.headers).regainAccessMs);
  assert.equal(error.retryAfterMs, 7 * 60_000);
  const withRetryAfter = { ...res, retryAfterMs: 2000 };
  assert.equal(classifyGraphError(withRetryAfter, 'Facebook', FACEBOOK_ERRORS, 7 * 60_000).retryAfterMs, 2000);
});
