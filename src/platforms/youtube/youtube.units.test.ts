// YouTube's pure parts: the error table against Google's error bodies (the quota waits for midnight Pacific), the
// counting rules of the description, the title and the tags, the option rules checked at creation, the quota day,
// and the consent URL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformResponse } from '../http-contract.ts';
import { youtubeError } from './client.ts';
import { limits, measure, tagsLength, titleFrom } from './limits.ts';
import { youtubeOAuth } from './oauth.ts';
import { nextPacificMidnight, pacificDay } from './quota.ts';

const answer = (status: number, body: unknown, retryAfterMs?: number): PlatformResponse => {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {},
    body: Buffer.from(text),
    text: () => text,
    json: () => JSON.parse(text),
    rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
    retryAfterMs,
  };
};
const google = (code: number, reason: string, domain = 'youtube.video', message = `${reason} message`) => ({
  error: { code, message, errors: [{ message, domain, reason }] },
});

describe("YouTube's error table against Google's error bodies", () => {
  const cases: Array<[string, number, unknown, string, string]> = [
    ['expired token', 401, google(401, 'authError', 'global'), 'auth_expired', 'PLATFORM_RECONNECT_REQUIRED'],
    ['daily quota', 403, google(403, 'quotaExceeded', 'youtube.quota'), 'rate_limited', 'PLATFORM_RATE_LIMITED'],
    [
      'per-user rate',
      403,
      google(403, 'userRateLimitExceeded', 'usageLimits'),
      'rate_limited',
      'PLATFORM_RATE_LIMITED',
    ],
    ['channel upload cap', 400, google(400, 'uploadLimitExceeded'), 'permanent', 'PLATFORM_QUOTA_EXHAUSTED'],
    ['bad title', 400, google(400, 'invalidTitle'), 'invalid_content', 'PLATFORM_CONTENT_REJECTED'],
    ['bad description', 400, google(400, 'invalidDescription'), 'invalid_content', 'PLATFORM_CONTENT_REJECTED'],
    ['bad tags', 400, google(400, 'invalidTags'), 'invalid_content', 'PLATFORM_CONTENT_REJECTED'],
    [
      'no channel',
      403,
      google(403, 'youtubeSignupRequired', 'youtube.header'),
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    ],
    ['missing scope', 403, google(403, 'insufficientPermissions', 'global'), 'permanent', 'PLATFORM_PERMISSION_DENIED'],
    ['backend', 503, google(503, 'backendError', 'global'), 'transient', 'PLATFORM_UNAVAILABLE'],
  ];
  for (const [name, status, body, kind, code] of cases)
    test(`${name}: ${status} is ${kind} (${code}) with Google's message`, () => {
      const error = youtubeError(answer(status, body));
      assert.equal(error.kind, kind);
      assert.equal(error.code, code);
      assert.match(error.message, /message$/);
    });

  test('quotaExceeded waits until midnight Pacific time, never a blind retry', () => {
    const now = Date.parse('2026-11-26T13:00:00Z'); // 05:00 PST
    const error = youtubeError(answer(403, google(403, 'quotaExceeded', 'youtube.quota')), now);
    assert.equal(error.retryAfterMs, Date.parse('2026-11-27T08:00:00Z') - now);
  });

  test("a 429's own reset is kept", () => {
    assert.equal(youtubeError(answer(429, google(429, 'rateLimitExceeded', 'global'), 30_000)).retryAfterMs, 30_000);
  });
});

describe('the quota day ends at midnight Pacific time, daylight saving included', () => {
  const cases: Array<[string, string, string]> = [
    ['2026-11-26T13:00:00Z', '2026-11-26', '2026-11-27T08:00:00.000Z'],
    ['2026-07-01T06:59:59Z', '2026-06-30', '2026-07-01T07:00:00.000Z'],
    ['2026-03-08T09:30:00Z', '2026-03-08', '2026-03-09T07:00:00.000Z'], // the day clocks go forward
    ['2026-11-01T07:30:00Z', '2026-11-01', '2026-11-02T08:00:00.000Z'], // the day clocks go back
  ];
  for (const [at, day, next] of cases)
    test(`${at} is in ${day}, which ends ${next}`, () => {
      assert.equal(pacificDay(Date.parse(at)), day);
      assert.equal(new Date(nextPacificMidnight(Date.parse(at))).toISOString(), next);
    });
});

describe("YouTube's counting rules", () => {
  test('the description is counted in UTF-8 bytes, at most 5,000, without < or >', () => {
    assert.equal(measure('é'), 2);
    assert.equal(measure('👍'), 4);
    assert.deepEqual(limits.text.check('a'.repeat(5000)), []);
    assert.deepEqual(
      limits.text.check('é'.repeat(2501)).map((i) => i.rule),
      ['text_too_long'],
    );
    assert.deepEqual(
      limits.text.check('a <b>').map((i) => i.rule),
      ['text_angle_brackets'],
    );
  });

  test('tags: commas between tags count, a tag with a space counts its quotes (Foo-Baz 7, Foo Baz 9)', () => {
    assert.equal(tagsLength(['Foo-Baz']), 7);
    assert.equal(tagsLength(['Foo Baz']), 9);
    assert.equal(tagsLength(['a', 'b', 'c']), 5);
    assert.equal(tagsLength([]), 0);
  });

  test('tags past 500 characters as YouTube counts them are a 422 rule at creation', () => {
    const fits = Array.from({ length: 50 }, () => 'abcdefghi'); // 50 × 9 + 49 commas = 499
    assert.deepEqual(limits.checkOptions!({ tags: fits }, 1), []);
    const over = [...fits.slice(1), 'abc defgh']; // the space adds two quotes: 501
    assert.deepEqual(
      limits.checkOptions!({ tags: over }, 1).map((i) => i.rule),
      ['youtube_tags_too_long'],
    );
  });

  test("the default title is the text's first non-empty line, cut to 100 characters", () => {
    assert.equal(titleFrom('\n  Launch day  \nmore'), 'Launch day');
    assert.equal([...titleFrom('😀'.repeat(150))].length, 100);
    assert.equal(titleFrom(''), '');
  });

  test('one video per post, required; no images, no threads', () => {
    assert.equal(limits.media.required, true);
    assert.equal(limits.media.maxItems, 1);
    assert.deepEqual(Object.keys(limits.media.kinds), ['video']);
    assert.equal(limits.maxThreadParts, 0);
  });
});

test("the consent URL asks Google for an offline grant with consent, PKCE and YouTube's scopes", () => {
  const url = new URL(
    youtubeOAuth().authorizeUrl(
      {
        http: { baseUrl: 'https://www.googleapis.com', request: async () => assert.fail('no call') },
        webUrl: 'https://accounts.google.com',
        sandbox: false,
        app: { clientId: 'client-1', clientSecret: 'secret' },
        redirectUri: 'https://herald.example/connect/callback',
      },
      { state: 'st', codeChallenge: 'cc' },
    ),
  );
  assert.equal(url.origin + url.pathname, 'https://accounts.google.com/o/oauth2/v2/auth');
  const q = Object.fromEntries(url.searchParams);
  assert.equal(q.access_type, 'offline');
  assert.equal(q.prompt, 'consent');
  assert.equal(q.code_challenge_method, 'S256');
  assert.match(q.scope!, /auth\/youtube\.upload/);
});
