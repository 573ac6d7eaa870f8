// What the engine does with each kind of platform failure (policy.ts), as pure decisions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlatformError } from '../../platforms/types.ts';
import { backoffMs, decide, targetError } from './policy.ts';

const now = new Date('2026-01-01T00:00:00Z');
const half = () => 0.5;

test('transient failures and fruitless reconciliations retry with growing backoff, then fail', () => {
  const error = new PlatformError('transient', 'PLATFORM_UNAVAILABLE', '503');
  const waits = [1, 2, 3, 4].map((n) => {
    const d = decide(error, n, 8, now, half);
    assert.equal(d.action, 'retry');
    return d.action === 'retry' ? d.at.getTime() - now.getTime() : 0;
  });
  assert.deepEqual(waits, [1500, 3000, 6000, 12000]);
  assert.deepEqual(decide(error, 8, 8, now, half), { action: 'fail', reconnect: false });
  assert.ok(backoffMs(30, half) <= 5 * 60_000, 'capped at five minutes');
  assert.equal(
    decide(new PlatformError('unknown_outcome', 'PLATFORM_UNKNOWN_OUTCOME', 'timeout'), 1, 8, now).action,
    'retry',
  );
});

test("a rate limit waits for the platform's reset and holds the connection; a reset too far away fails", () => {
  const d = decide(
    new PlatformError('rate_limited', 'PLATFORM_RATE_LIMITED', '429', { retryAfterMs: 60_000 }),
    1,
    8,
    now,
    () => 0,
  );
  assert.equal(d.action, 'retry');
  if (d.action === 'retry') {
    assert.equal(d.throttleConnection, true);
    assert.ok(d.at.getTime() - now.getTime() >= 60_000);
  }
  assert.equal(
    decide(
      new PlatformError('rate_limited', 'PLATFORM_RATE_LIMITED', '429', { retryAfterMs: 24 * 3600_000 }),
      1,
      8,
      now,
    ).action,
    'fail',
  );
});

test('content, media and permanent errors fail at once; auth fails and asks for a reconnect', () => {
  for (const kind of ['invalid_content', 'media_rejected', 'permanent'] as const) {
    assert.deepEqual(decide(new PlatformError(kind, 'PLATFORM_REJECTED', 'no'), 1, 8, now), {
      action: 'fail',
      reconnect: false,
    });
  }
  assert.deepEqual(decide(new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', 'no'), 1, 8, now), {
    action: 'fail',
    reconnect: true,
  });
});

test('the target error carries code, category, retryable, platform status and a truncated answer', () => {
  const e = targetError(
    new PlatformError('invalid_content', 'PLATFORM_DUPLICATE', 'dup', {
      platformStatus: 403,
      platformBody: 'x'.repeat(5000),
    }),
  );
  assert.deepEqual(
    { ...e, platform_response: (e.platform_response as string).length },
    {
      code: 'PLATFORM_DUPLICATE',
      category: 'content',
      message: 'dup',
      retryable: false,
      platform_status: 403,
      platform_response: 1000,
    },
  );
});
