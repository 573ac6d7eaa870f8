// The Google Business Profile adapter: the shared contract against its simulator, its error table against Google's
// error bodies, the option rules (422 at creation) and the LocalPost body they become.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { classify } from '../classify.ts';
import type { PlatformResponse } from '../http-contract.ts';
import { GOOGLEBUSINESS_ERRORS } from './errors.ts';
import { checkOptions, limits, measure } from './limits.ts';
import { localPostBody } from './map.ts';

adapterContract('googlebusiness');

describe("Google Business Profile error table against Google's error bodies", () => {
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
  const google = (code: number, status: string, message: string, details?: unknown[]) => ({
    error: { code, message, status, ...(details ? { details } : {}) },
  });
  const cases: Array<[string, number, unknown, string, string]> = [
    [
      'expired token',
      401,
      google(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.'),
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    ],
    [
      'location not managed',
      403,
      google(403, 'PERMISSION_DENIED', 'The caller does not have permission'),
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    ],
    [
      'photo refused',
      400,
      google(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
        {
          '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
          errorDetails: [{ code: 3, field: 'media.source_url', message: 'The photo could not be fetched.' }],
        },
      ]),
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    ],
    [
      'summary refused',
      400,
      google(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'),
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
    ],
    [
      'per-minute quota',
      429,
      google(
        429,
        'RESOURCE_EXHAUSTED',
        "Quota exceeded for quota metric 'Requests' of service 'mybusiness.googleapis.com'.",
      ),
      'rate_limited',
      'PLATFORM_RATE_LIMITED',
    ],
    [
      'an app without API access (quota 0)',
      429,
      google(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', metadata: { quota_limit_value: '0' } },
      ]),
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    ],
    [
      'outage',
      503,
      google(503, 'UNAVAILABLE', 'The service is currently unavailable.'),
      'transient',
      'PLATFORM_UNAVAILABLE',
    ],
  ];
  for (const [name, status, body, kind, code] of cases)
    test(name, () => {
      const error = classify(answer(status, body), GOOGLEBUSINESS_ERRORS, 'Google Business Profile');
      assert.equal(error.kind, kind);
      assert.equal(error.code, code);
    });
});

describe('Google Business Profile options and limits', () => {
  const rules = (options: Record<string, unknown>) => checkOptions(options).map((i) => i.rule);
  const dates = { start: '2026-12-01T18:00', end: '2026-12-01T22:00' };

  test('text is counted in code points up to 1,500; one photo, no video, no threads', () => {
    assert.equal(measure('👍'.repeat(1500)), 1500);
    assert.deepEqual(limits.text.check('x'.repeat(1500)), []);
    assert.equal(limits.text.check('x'.repeat(1501))[0]?.rule, 'text_too_long');
    assert.equal(limits.media.maxItems, 1);
    assert.equal(limits.media.kinds.video, undefined);
    assert.equal(limits.maxThreadParts, 0);
  });

  test('a STANDARD post takes a call to action; an EVENT or OFFER needs its title and dates', () => {
    assert.deepEqual(rules({}), []);
    assert.deepEqual(rules({ call_to_action: { action_type: 'LEARN_MORE', url: 'https://example.com' } }), []);
    assert.deepEqual(rules({ topic_type: 'EVENT', event: { title: 'Tasting', ...dates } }), []);
    assert.deepEqual(
      rules({ topic_type: 'OFFER', event: { title: '10% off', ...dates }, offer: { coupon_code: 'X' } }),
      [],
    );
    assert.deepEqual(rules({ topic_type: 'EVENT', event: dates }), ['event_title_required']);
    assert.deepEqual(rules({ topic_type: 'EVENT' }), ['event_title_required', 'event_schedule_required']);
    assert.deepEqual(rules({ topic_type: 'OFFER', event: { title: 'Sale' } }), ['event_schedule_required']);
  });

  test('bad combinations are named', () => {
    assert.deepEqual(rules({ event: { title: 'x', ...dates } }), ['event_not_allowed']);
    assert.deepEqual(rules({ offer: { coupon_code: 'A' } }), ['offer_not_allowed']);
    assert.deepEqual(
      rules({
        topic_type: 'OFFER',
        event: { title: 'Sale', ...dates },
        call_to_action: { action_type: 'SHOP', url: 'https://example.com' },
      }),
      ['call_to_action_on_offer'],
    );
    assert.deepEqual(rules({ call_to_action: { action_type: 'CALL', url: 'https://example.com' } }), [
      'call_has_no_url',
    ]);
    assert.deepEqual(rules({ call_to_action: { action_type: 'CALL' } }), []);
    assert.deepEqual(rules({ call_to_action: { action_type: 'BOOK' } }), ['call_to_action_url_required']);
    assert.deepEqual(rules({ topic_type: 'EVENT', event: { title: 'x', start: '2026-02-30', end: '2026-03-01' } }), [
      'event_date_invalid',
    ]);
    assert.deepEqual(
      rules({ topic_type: 'EVENT', event: { title: 'x', start: '2026-12-02', end: '2026-12-01T10:00' } }),
      ['event_schedule_order'],
    );
    // A one-day event by dates alone.
    assert.deepEqual(rules({ topic_type: 'EVENT', event: { title: 'x', start: '2026-12-02', end: '2026-12-02' } }), []);
  });

  test('the options become the LocalPost body in Google terms', () => {
    const photo = [
      { platformRef: 'https://herald.example/m/1?sig=a', kind: 'image' as const, altText: null, width: 1, height: 1 },
    ];
    assert.deepEqual(
      localPostBody(
        'Tasting night',
        {
          topic_type: 'EVENT',
          language: 'en',
          event: { title: 'Tasting', start: '2026-12-01T18:30', end: '2026-12-02' },
          call_to_action: { action_type: 'BOOK', url: 'https://example.com/book' },
        },
        photo,
      ),
      {
        topicType: 'EVENT',
        summary: 'Tasting night',
        languageCode: 'en',
        event: {
          title: 'Tasting',
          schedule: {
            startDate: { year: 2026, month: 12, day: 1 },
            endDate: { year: 2026, month: 12, day: 2 },
            startTime: { hours: 18, minutes: 30, seconds: 0, nanos: 0 },
          },
        },
        callToAction: { actionType: 'BOOK', url: 'https://example.com/book' },
        media: [{ mediaFormat: 'PHOTO', sourceUrl: 'https://herald.example/m/1?sig=a' }],
      },
    );
    assert.deepEqual(
      localPostBody(
        'Ten percent off',
        {
          topic_type: 'OFFER',
          event: { title: 'Sale', start: '2026-12-01', end: '2026-12-24' },
          offer: { coupon_code: 'TEN', redeem_url: 'https://example.com/r', terms: 'One per visit.' },
        },
        [],
      ).offer,
      { couponCode: 'TEN', redeemOnlineUrl: 'https://example.com/r', termsConditions: 'One per visit.' },
    );
    assert.deepEqual(localPostBody('Call us', { call_to_action: { action_type: 'CALL' } }, []).callToAction, {
      actionType: 'CALL',
    });
  });
});
