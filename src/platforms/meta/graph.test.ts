// The Meta Graph usage headers (a throttle's wait) and container polling: the states read and the waits between them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyGraphError } from './graph-errors.ts';
import { containerStateOf, graphUsage, waitForContainer, type ContainerState } from './graph.ts';
import { isPlatformError } from '../types.ts';
import { answer } from './graph-errors.fixture.ts';

test('a throttle takes its wait from the Business Use Case header', () => {
  const headers = {
    'x-business-use-case-usage': JSON.stringify({
      '1784': [
        { type: 'instagram', call_count: 100, total_cputime: 10, total_time: 10, estimated_time_to_regain_access: 7 },
      ],
    }),
    'x-app-usage': '{"call_count":42,"total_cputime":3,"total_time":5}',
  };
  const usage = graphUsage(headers);
  assert.equal(usage.highestPercent, 100);
  assert.equal(usage.regainAccessMs, 7 * 60_000);
  const e = classifyGraphError(
    answer(400, { code: 80002, message: 'too many calls' }, headers),
    'Instagram',
    [],
    usage.regainAccessMs,
  );
  assert.equal(e.retryAfterMs, 7 * 60_000);
  assert.deepEqual(graphUsage({ 'x-app-usage': 'not json' }), { highestPercent: undefined, regainAccessMs: undefined });
});

test('container polling waits through IN_PROGRESS and stops at FINISHED, ERROR, EXPIRED or the deadline', async () => {
  const sequence = (states: ContainerState[]) => {
    let i = 0;
    return async () => states[Math.min(i++, states.length - 1)]!;
  };
  const fast = { intervalsMs: [1], sleep: async () => {} };
  const done = await waitForContainer(
    'Instagram',
    'c1',
    sequence([
      { status: 'IN_PROGRESS', detail: null },
      { status: 'IN_PROGRESS', detail: null },
      { status: 'FINISHED', detail: null },
    ]),
    fast,
  );
  assert.equal(done.status, 'FINISHED');
  const failed = await waitForContainer(
    'Instagram',
    'c2',
    sequence([{ status: 'ERROR', detail: 'Error: 2207026 unsupported video' }]),
    fast,
  ).catch((e: unknown) => e);
  assert.ok(isPlatformError(failed) && failed.kind === 'media_rejected');
  const fetch = await waitForContainer(
    'Instagram',
    'c3',
    sequence([{ status: 'ERROR', detail: 'Media download has failed (2207052)' }]),
    fast,
  ).catch((e: unknown) => e);
  assert.ok(isPlatformError(fetch) && fetch.kind === 'transient');
  const expired = await waitForContainer('Threads', 'c4', sequence([{ status: 'EXPIRED', detail: null }]), fast).catch(
    (e: unknown) => e,
  );
  assert.ok(isPlatformError(expired) && expired.kind === 'transient' && /expired/.test(expired.message));
  let t = 0;
  const slow = await waitForContainer('Threads', 'c5', sequence([{ status: 'IN_PROGRESS', detail: null }]), {
    intervalsMs: [1000],
    timeoutMs: 5000,
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  }).catch((e: unknown) => e);
  assert.ok(isPlatformError(slow) && slow.kind === 'transient' && /still processing/.test(slow.message));
});

test("container states are read from either platform's fields", () => {
  assert.deepEqual(containerStateOf({ status_code: 'ERROR', status: 'Error: 2207026' }, 'status_code', 'status'), {
    status: 'ERROR',
    detail: 'Error: 2207026',
  });
  assert.deepEqual(containerStateOf({ status: 'FINISHED', id: '1' }, 'status', 'error_message'), {
    status: 'FINISHED',
    detail: null,
  });
  assert.throws(() => containerStateOf({ status: 'WAT' }, 'status', 'error_message'));
});
