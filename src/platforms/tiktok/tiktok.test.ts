// The TikTok adapter against its simulator (the shared contract), and TikTok's own rules as pure functions: the
// error table against TikTok's real error bodies, the chunk plan of the media transfer guide, the privacy level and
// interaction choices against creator info, and the option rules checked at creation. Flows: tiktok.flow.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import type { PlatformResponse } from '../http-contract.ts';
import { isPlatformError } from '../types.ts';
import { call, errorOf, tiktokError, type CreatorInfo } from './client.ts';
import { limits, measure } from './limits.ts';
import { choosePrivacy, chunkPlan, chunkRange, failure, interactions } from './map.ts';
import { chunksFrom } from './media.ts';

adapterContract('tiktok');

function response(status: number, body: unknown): PlatformResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    status,
    headers: {},
    body: Buffer.from(text),
    text: () => text,
    json: <T>() => JSON.parse(text) as T,
    rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
    retryAfterMs: status === 429 ? 60_000 : undefined,
  };
}

const body = (code: string, message = 'm') => ({ data: {}, error: { code, message, log_id: '202411' } });

test('the error table reads TikTok error.code, whatever the status', () => {
  const cases: Array<[number, string, string, string]> = [
    [401, 'access_token_invalid', 'auth_expired', 'PLATFORM_RECONNECT_REQUIRED'],
    [401, 'scope_not_authorized', 'permanent', 'PLATFORM_PERMISSION_DENIED'],
    [429, 'rate_limit_exceeded', 'rate_limited', 'PLATFORM_RATE_LIMITED'],
    [403, 'spam_risk_too_many_posts', 'permanent', 'PLATFORM_QUOTA_EXHAUSTED'],
    [403, 'reached_active_user_cap', 'permanent', 'PLATFORM_QUOTA_EXHAUSTED'],
    [403, 'unaudited_client_can_only_post_to_private_accounts', 'permanent', 'PLATFORM_PERMISSION_DENIED'],
    [403, 'spam_risk_user_banned_from_posting', 'permanent', 'PLATFORM_PERMISSION_DENIED'],
    [400, 'privacy_level_option_mismatch', 'invalid_content', 'PLATFORM_CONTENT_REJECTED'],
    [403, 'url_ownership_unverified', 'media_rejected', 'PLATFORM_MEDIA_REJECTED'],
    [400, 'invalid_params', 'invalid_content', 'PLATFORM_CONTENT_REJECTED'],
    [500, 'internal_error', 'transient', 'PLATFORM_UNAVAILABLE'],
  ];
  for (const [status, code, kind, herald] of cases) {
    const error = tiktokError(response(status, body(code, `TikTok said ${code}`)));
    assert.equal(error.kind, kind, code);
    assert.equal(error.code, herald, code);
    assert.match(error.message, new RegExp(`TikTok answered ${status} ${code}: TikTok said ${code}`));
  }
  assert.match(
    tiktokError(response(403, body('unaudited_client_can_only_post_to_private_accounts'))).message,
    /SELF_ONLY/,
    'the unaudited refusal says what to do',
  );
  assert.equal(tiktokError(response(429, body('rate_limit_exceeded'))).retryAfterMs, 60_000);
  assert.equal(errorOf('not json'), undefined);
});

test('an answer of 200 with an error code other than ok is an error', async () => {
  const http = { baseUrl: 'http://t', request: async () => response(200, body('spam_risk_too_many_posts')) };
  await assert.rejects(call(http, { method: 'POST', path: '/x' }), (e: unknown) => {
    assert.ok(isPlatformError(e));
    assert.equal(e.code, 'PLATFORM_QUOTA_EXHAUSTED');
    return true;
  });
  const fine = { baseUrl: 'http://t', request: async () => response(200, { data: { a: 1 }, error: { code: 'ok' } }) };
  assert.equal((await call(fine, { method: 'POST', path: '/x' })).status, 200);
});

test('a video goes whole under 10 MB, else in 10 MB chunks with the remainder on the last (5–64 MB, last ≤ 128 MB)', () => {
  assert.deepEqual(chunkPlan(256 * 1024), { chunkSize: 256 * 1024, totalChunks: 1 });
  assert.deepEqual(chunkPlan(9_999_999), { chunkSize: 9_999_999, totalChunks: 1 });
  assert.deepEqual(chunkPlan(25_000_000), { chunkSize: 10_000_000, totalChunks: 2 });
  assert.deepEqual(chunkRange(25_000_000, 1), { first: 10_000_000, end: 25_000_000 });
  const big = chunkPlan(4_000_000_000);
  assert.equal(big.totalChunks, 400);
  assert.ok(big.totalChunks <= 1000);
  for (const size of [10_000_000, 19_999_999, 4_000_000_000]) {
    const { totalChunks } = chunkPlan(size);
    const last = chunkRange(size, totalChunks - 1);
    assert.ok(last.end - last.first < 128 * 1024 * 1024, `last chunk of ${size}`);
  }
});

test('chunks are cut from any stream, and a resume starts at its chunk', async () => {
  const size = 25_000_000;
  const data = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) data[i] = (i / 4096) % 251;
  const pieces = () =>
    Readable.from([data.subarray(0, 3_333_333), data.subarray(3_333_333, 17_000_001), data.subarray(17_000_001)]);
  const all = [];
  for await (const c of chunksFrom(pieces(), size, 0)) all.push(c);
  assert.deepEqual(
    all.map((c) => [c.index, c.first, c.data.length]),
    [
      [0, 0, 10_000_000],
      [1, 10_000_000, 15_000_000],
    ],
  );
  assert.ok(Buffer.concat(all.map((c) => c.data)).equals(data));
  const resumed = [];
  for await (const c of chunksFrom(pieces(), size, 1)) resumed.push(c);
  assert.deepEqual(
    resumed.map((c) => c.first),
    [10_000_000],
  );
  assert.ok(resumed[0]!.data.equals(data.subarray(10_000_000)));
  await assert.rejects(async () => {
    for await (const c of chunksFrom(Readable.from([data.subarray(0, 1000)]), size, 0)) void c;
  }, /ended after 1000 bytes/);
});

const creator = (over: Partial<CreatorInfo> = {}): CreatorInfo => ({
  privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
  comment_disabled: false,
  duet_disabled: false,
  stitch_disabled: false,
  max_video_post_duration_sec: 600,
  ...over,
});

test('the privacy level is the option when the creator allows it, else the most private they allow', () => {
  assert.equal(choosePrivacy(creator(), {}), 'SELF_ONLY');
  assert.equal(
    choosePrivacy(creator({ privacy_level_options: ['PUBLIC_TO_EVERYONE', 'FOLLOWER_OF_CREATOR'] }), {}),
    'FOLLOWER_OF_CREATOR',
  );
  assert.equal(choosePrivacy(creator(), { privacy_level: 'PUBLIC_TO_EVERYONE' }), 'PUBLIC_TO_EVERYONE');
  assert.throws(
    () => choosePrivacy(creator({ privacy_level_options: ['SELF_ONLY'] }), { privacy_level: 'PUBLIC_TO_EVERYONE' }),
    (e: unknown) => isPlatformError(e) && e.kind === 'invalid_content' && /may use SELF_ONLY/.test(e.message),
  );
});

test('interactions follow the options, and what the creator turned off stays off', () => {
  assert.deepEqual(interactions(creator(), {}, true), {
    disable_comment: false,
    disable_duet: false,
    disable_stitch: false,
  });
  assert.deepEqual(interactions(creator({ duet_disabled: true }), { disable_comment: true }, true), {
    disable_comment: true,
    disable_duet: true,
    disable_stitch: false,
  });
  assert.deepEqual(interactions(creator(), {}, false), { disable_comment: false });
  assert.throws(
    () => interactions(creator({ comment_disabled: true }), { disable_comment: false }, false),
    /turned comments off/,
  );
});

test('a FAILED publish maps its fail_reason', () => {
  const of = (reason: string) => failure('v_pub_file~v2-1.1', { status: 'FAILED', fail_reason: reason, postIds: [] });
  assert.equal(of('file_format_check_failed').kind, 'media_rejected');
  assert.equal(of('video_pull_failed').code, 'PLATFORM_MEDIA_REJECTED');
  assert.equal(of('spam_risk_too_many_posts').code, 'PLATFORM_QUOTA_EXHAUSTED');
  assert.equal(of('internal').kind, 'transient');
  assert.equal(of('something_new').kind, 'permanent');
});

test('captions count UTF-16 code units up to 2,200; options are checked against the media count', () => {
  assert.equal(measure('😀'), 2);
  assert.equal(limits.text.check('a'.repeat(2200)).length, 0);
  assert.equal(limits.text.check('😀'.repeat(1101))[0]?.rule, 'text_too_long');
  const rules = (options: Record<string, unknown>, count: number) =>
    limits.checkOptions!(options, count).map((i) => i.rule);
  assert.deepEqual(rules({ disable_duet: true }, 1), []);
  assert.deepEqual(rules({ disable_duet: true, video_source: 'file_upload' }, 3), [
    'video_option_on_photo_post',
    'video_option_on_photo_post',
  ]);
  assert.deepEqual(rules({ photo_cover_index: 2 }, 2), ['photo_cover_index_out_of_range']);
  assert.deepEqual(rules({ brand_content_toggle: true, privacy_level: 'SELF_ONLY' }, 1), ['branded_content_private']);
  assert.equal(limits.maxThreadParts, 0);
  assert.equal(limits.media.required, true);
});
