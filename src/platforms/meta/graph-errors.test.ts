// The Meta Graph error table against real-shaped error bodies, and the fallback on the HTTP status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyGraphError, parseGraphError } from './graph-errors.ts';
import { answer } from './graph-errors.fixture.ts';

const cases: Array<[string, number, Record<string, unknown>, string, string]> = [
  [
    'unknown error',
    500,
    { code: 1, message: 'An unknown error occurred', is_transient: true },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'service unavailable',
    503,
    { code: 2, message: 'Service temporarily unavailable', is_transient: true },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'app rate limit',
    400,
    { code: 4, message: 'Application request limit reached', is_transient: true },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'user rate limit',
    400,
    { code: 17, message: 'User request limit reached' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'page rate limit',
    400,
    { code: 32, message: 'Page request limit reached' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'custom rate limit',
    400,
    { code: 613, message: 'Calls to this api have exceeded the rate limit.' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'BUC throttling (Instagram)',
    400,
    { code: 80002, message: 'There have been too many calls to this Instagram account.' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'BUC throttling (Pages)',
    400,
    { code: 80001, message: 'There have been too many calls to this Page account.' },
    'rate_limited',
    'PLATFORM_RATE_LIMITED',
  ],
  [
    'expired token',
    400,
    { code: 190, error_subcode: 463, message: 'Error validating access token: Session has expired' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'password changed',
    400,
    { code: 190, error_subcode: 460, message: 'Error validating access token: The session has been invalidated' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'app not installed',
    400,
    {
      code: 190,
      error_subcode: 458,
      message: 'Error validating access token: The user has not authorized application',
    },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'checkpointed',
    400,
    { code: 190, error_subcode: 459, message: 'The user is checkpointed' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'unconfirmed',
    400,
    { code: 190, error_subcode: 464, message: 'Sessions for the user are not allowed' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'invalid token',
    400,
    { code: 190, error_subcode: 467, message: 'Error validating access token' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'unparsable token',
    400,
    { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' },
    'auth_expired',
    'PLATFORM_RECONNECT_REQUIRED',
  ],
  [
    'missing permission',
    403,
    { code: 10, message: 'Application does not have permission for this action' },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
  ['permission 200', 403, { code: 200, message: 'Permissions error' }, 'permanent', 'PLATFORM_PERMISSION_DENIED'],
  [
    'pages permission',
    403,
    { code: 230, message: 'Requires pages_manage_posts permission' },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
  [
    'invalid parameter',
    400,
    { code: 100, message: 'Invalid parameter' },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'object missing',
    400,
    {
      code: 100,
      error_subcode: 33,
      message: 'Unsupported get request. Object with ID does not exist',
      type: 'GraphMethodException',
    },
    'permanent',
    'PLATFORM_REJECTED',
  ],
  [
    'policy block',
    400,
    { code: 368, message: 'The action attempted has been deemed abusive or is otherwise disallowed' },
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
  ],
  ['duplicate', 400, { code: 506, message: 'Duplicate status message' }, 'invalid_content', 'PLATFORM_DUPLICATE'],
  [
    'media fetch (9004)',
    400,
    {
      code: 9004,
      error_subcode: 2207052,
      message: "Media download has failed. The media URI doesn't meet our requirements.",
    },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'media fetch (100/2207052)',
    400,
    { code: 100, error_subcode: 2207052, message: 'The media could not be fetched from this URI' },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'publishing limit',
    400,
    {
      code: 9,
      error_subcode: 2207042,
      message: 'Application request limit reached',
      error_user_title: 'Reached maximum number of posts',
    },
    'permanent',
    'PLATFORM_QUOTA_EXHAUSTED',
  ],
  [
    'blocked, live anyway',
    400,
    {
      code: 10,
      error_subcode: 2207051,
      message: 'Application does not have permission for this action',
      error_user_msg: 'We restrict certain activity to protect our community.',
    },
    'unknown_outcome',
    'PLATFORM_UNKNOWN_OUTCOME',
  ],
  [
    'restricted, live anyway',
    400,
    { code: 100, error_subcode: 2207050, message: 'The user is restricted' },
    'unknown_outcome',
    'PLATFORM_UNKNOWN_OUTCOME',
  ],
  [
    'not ready',
    400,
    {
      code: 9007,
      error_subcode: 2207027,
      message: 'Media ID is not available',
      error_user_msg: 'The media is not ready for publishing, please wait for a moment',
    },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'container expired',
    400,
    { code: 100, error_subcode: 2207020, message: 'The media you are trying to access has expired' },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  [
    'caption too long',
    400,
    { code: 100, error_subcode: 2207010, message: 'Caption too long' },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'unsupported image (9004 family)',
    400,
    { code: 9004, error_subcode: 2207005, message: 'The image format is not supported' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'unsupported image',
    400,
    { code: 100, error_subcode: 2207005, message: 'The image format is not supported' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'aspect ratio',
    400,
    { code: 36003, error_subcode: 2207009, message: 'The aspect ratio is not supported.' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'invalid carousel',
    400,
    { code: 100, error_subcode: 2207028, message: 'Your post could not be shared. Please try again.' },
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
  ],
  [
    'deprecated version',
    400,
    {
      code: 12,
      message: '(#12) deprecate_post_aggregated_fields_for_attachement is deprecated for versions v3.3 and higher',
    },
    'permanent',
    'PLATFORM_API_VERSION_RETIRED',
  ],
  [
    'Threads link limit',
    400,
    { code: 100, message: 'THREADS_API__LINK_LIMIT_EXCEEDED' },
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
  ],
  [
    'transient flag only',
    400,
    { code: 99999, message: 'Something odd', is_transient: true },
    'transient',
    'PLATFORM_UNAVAILABLE',
  ],
  ['unknown code', 400, { code: 99999, message: 'Something odd' }, 'permanent', 'PLATFORM_REJECTED'],
];

for (const [name, status, error, kind, code] of cases) {
  test(`Graph error: ${name} → ${kind} / ${code}`, () => {
    const e = classifyGraphError(answer(status, error), 'Instagram');
    assert.equal(e.kind, kind);
    assert.equal(e.code, code);
    assert.match(e.message, /fbtrace_id AbCdEf123/);
    assert.equal(e.platformStatus, status);
  });
}

test('an answer that is not the Graph envelope falls back on the HTTP status', () => {
  const body = Buffer.from('<html>Bad Gateway</html>');
  const res = { ...answer(502, {}), body, text: () => body.toString('utf8') };
  assert.equal(parseGraphError(body.toString()), undefined);
  assert.equal(classifyGraphError(res, 'Threads').kind, 'transient');
});
