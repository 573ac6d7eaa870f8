// LinkedIn's errors: the error table against LinkedIn's error bodies, and the simulator refusing bad input with
// LinkedIn's 4xx error bodies, never a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { png } from '../../../test/helpers/media-sources.ts';
import { classify } from '../classify.ts';
import type { PlatformResponse } from '../http-contract.ts';
import { LINKEDIN_ERRORS } from './errors.ts';
import { currentVersion, rig, type Rig } from './linkedin.fixture.ts';

describe("LinkedIn error table against LinkedIn's error bodies", () => {
  const answer = (status: number, body: unknown): PlatformResponse => {
    const text = JSON.stringify(body);
    return {
      status,
      headers: {},
      body: Buffer.from(text),
      text: () => text,
      json: () => JSON.parse(text),
      rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
      retryAfterMs: undefined,
    };
  };
  const cases: Array<[string, number, unknown, string, string]> = [
    [
      'retired version',
      426,
      { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 20250401 is not active' },
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    ],
    [
      'expired token',
      401,
      {
        status: 401,
        serviceErrorCode: 65601,
        code: 'EXPIRED_ACCESS_TOKEN',
        message: 'The token used in the request has expired',
      },
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    ],
    [
      'empty token',
      401,
      { message: 'Empty oauth2_access_token', serviceErrorCode: 401, status: 401 },
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    ],
    [
      'missing permission',
      403,
      { serviceErrorCode: 100, message: 'Not enough permissions to access: GET /me', status: 403 },
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    ],
    [
      'duplicate',
      422,
      {
        message: 'Content is a duplicate of urn:li:share:7123',
        status: 422,
        errorDetails: { inputErrors: [{ code: 'DUPLICATE_POST' }] },
      },
      'invalid_content',
      'PLATFORM_DUPLICATE',
    ],
    [
      'missing fields',
      422,
      { message: 'Missing required fields: visibility', status: 422 },
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
    ],
    [
      'media not ready',
      422,
      {
        message: 'Media urn:li:video:D4D05AQx is PROCESSING, not AVAILABLE (/content/0/id)',
        status: 422,
        errorDetails: { inputErrors: [{ input: { inputPath: { fieldPath: '/content/0/id' } } }] },
      },
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    ],
    [
      'unconvertible body',
      400,
      { status: 400, code: 'ILLEGAL_ARGUMENT', message: 'Request body could not be converted to data map' },
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
    ],
    [
      'daily limit',
      429,
      { status: 429, message: 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.' },
      'rate_limited',
      'PLATFORM_RATE_LIMITED',
    ],
    ['server error', 504, { status: 504, message: 'Gateway timeout' }, 'transient', 'PLATFORM_UNAVAILABLE'],
  ];
  for (const [name, status, body, kind, code] of cases) {
    test(`${name}: ${status} → ${kind} ${code}`, () => {
      const error = classify(answer(status, body), LINKEDIN_ERRORS, 'LinkedIn');
      assert.equal(error.kind, kind);
      assert.equal(error.code, code);
      assert.ok(!error.message.includes('[object'), error.message);
    });
  }
});

describe('LinkedIn simulator refuses bad input with LinkedIn errors, never a 500', () => {
  let r: Rig;
  before(async () => {
    r = await rig();
  });
  after(() => r.sandbox.close());

  test('malformed bodies, fields of the wrong type, unknown URNs and forged upload URLs are 4xx with an error body', async () => {
    const author = r.session.connection.accountId;
    const post = (json: unknown) => r.rest('POST', '/rest/posts', { json });
    const valid = {
      author,
      commentary: 'x',
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED' },
      lifecycleState: 'PUBLISHED',
    };
    const cases: Array<[string, Promise<Awaited<ReturnType<Rig['rest']>>>]> = [
      ['array body', post([1, 2])],
      ['null body', post(null)],
      ['missing fields', post({ author })],
      ['author not a URN', post({ ...valid, author: 'me' })],
      ['commentary a number', post({ ...valid, commentary: 5 })],
      ['visibility unknown', post({ ...valid, visibility: 'EVERYONE' })],
      ['distribution null', post({ ...valid, distribution: null })],
      ['content null', post({ ...valid, content: null })],
      ['content two kinds', post({ ...valid, content: { media: { id: 'x' }, multiImage: { images: [] } } })],
      ['media unknown', post({ ...valid, content: { media: { id: 'urn:li:image:nope' } } })],
      ['multiImage items null', post({ ...valid, content: { multiImage: { images: [null, null] } } })],
      ['unknown field', post({ ...valid, bogus: true })],
      [
        'not JSON',
        r.http.request({
          method: 'POST',
          path: '/rest/posts',
          bearer: r.session.credentials.accessToken,
          headers: { 'linkedin-version': currentVersion(), 'x-restli-protocol-version': '2.0.0' },
          body: { data: Buffer.from('{oops'), contentType: 'application/json' },
        }),
      ],
      ['init without request', r.rest('POST', '/rest/images', { query: { action: 'initializeUpload' }, json: {} })],
      ['init unknown action', r.rest('POST', '/rest/images', { query: { action: 'explode' }, json: {} })],
      [
        'video size negative',
        r.rest('POST', '/rest/videos', {
          query: { action: 'initializeUpload' },
          json: { initializeUploadRequest: { owner: author, fileSizeBytes: -1 } },
        }),
      ],
      [
        'video size huge',
        r.rest('POST', '/rest/videos', {
          query: { action: 'initializeUpload' },
          json: { initializeUploadRequest: { owner: author, fileSizeBytes: 1e15 } },
        }),
      ],
      [
        'finalize unknown video',
        r.rest('POST', '/rest/videos', {
          query: { action: 'finalizeUpload' },
          json: { finalizeUploadRequest: { video: 'urn:li:video:nope', uploadedPartIds: 'x' } },
        }),
      ],
      [
        'someone else as owner',
        r.rest('POST', '/rest/documents', {
          query: { action: 'initializeUpload' },
          json: { initializeUploadRequest: { owner: 'urn:li:person:someoneelse' } },
        }),
      ],
      ['status of unknown image', r.rest('GET', `/rest/images/${encodeURIComponent('urn:li:image:nope')}`)],
      ['badly encoded URN', r.rest('GET', '/rest/posts/urn%ZZ')],
      ['finder without author', r.rest('GET', '/rest/posts', { query: { q: 'author' } })],
      ['finder count 0', r.rest('GET', '/rest/posts', { query: { q: 'author', author, count: '0' } })],
      [
        'forged upload URL',
        r.http.request({
          method: 'PUT',
          path: '/dms-uploads/urn%3Ali%3Aimage%3Ax/0?ut=forged',
          body: { data: png(), contentType: 'application/octet-stream' },
        }),
      ],
      ['token without fields', r.http.request({ method: 'POST', path: '/oauth/v2/accessToken', form: {} })],
      [
        'token unknown grant',
        r.http.request({
          method: 'POST',
          path: '/oauth/v2/accessToken',
          form: { grant_type: 'password', client_id: 'a', client_secret: 'b' },
        }),
      ],
      [
        'authorize without state',
        r.http.request({
          method: 'GET',
          path: '/oauth/v2/authorization',
          query: { response_type: 'code', client_id: 'a', redirect_uri: 'https://a.example/cb', scope: 'openid' },
        }),
      ],
      [
        'authorize unknown scope',
        r.http.request({
          method: 'GET',
          path: '/oauth/v2/authorization',
          query: {
            response_type: 'code',
            client_id: 'a',
            redirect_uri: 'https://a.example/cb',
            scope: 'r_everything',
            state: 's',
          },
        }),
      ],
      ['no token', r.http.request({ method: 'GET', path: '/v2/userinfo' })],
      ['forged token', r.http.request({ method: 'GET', path: '/v2/userinfo', bearer: 'a.b.c' })],
    ];
    for (const [label, pending] of cases) {
      const res = await pending;
      assert.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status} ${res.text()}`);
      const body = res.json<Record<string, unknown>>();
      assert.ok(typeof body.message === 'string' || typeof body.error === 'string', `${label}: ${res.text()}`);
    }
  });
});
