// The Facebook Pages adapter against its simulator over real HTTP: the shared contract, then what is Facebook's
// own — multi-photo posts, link posts, video processing slow and failed, the duplicate-post error, token and
// throttling codes, reconciliation by feed look-up, and Facebook Login (consent, denial, replayed and expired codes).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract, rejects, withAdapter } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';
import { mediaSource, mp4, png } from '../../../test/helpers/media-sources.ts';
import type { PlatformError } from '../types.ts';
import { partMemory } from '../part-memory.ts';

adapterContract('facebook');
metricsContract('facebook', {
  gives: ['impressions', 'reach', 'clicks', 'likes', 'comments', 'shares'],
  operation: 'read_metrics',
});

describe('facebook specifics against the simulator', () => {
  withAdapter('facebook', (get) => {
    test('three photos go out as one feed post through unpublished photos and attached_media, alt text kept', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(
        c.session,
        [
          mediaSource(png(20, 20), 'image/png', { altText: 'first' }),
          mediaSource(png(), 'image/png'),
          mediaSource(png(3, 2), 'image/png'),
        ],
        {},
      );
      assert.deepEqual(
        media.map((m) => m.platformRef.split(':')[0]),
        ['photo', 'photo', 'photo'],
      );
      assert.equal(
        (await c.held()).filter((p) => p.media > 0 && p.text === '').length,
        0,
        'unpublished photos make no post of their own',
      );
      const photo = await c.session.http.request({
        method: 'GET',
        path: `/v23.0/${media[0]!.platformRef.split(':')[1]}`,
        query: { fields: 'id,alt_text_custom', access_token: c.session.credentials.accessToken },
      });
      assert.equal(photo.json<{ alt_text_custom?: string }>().alt_text_custom, 'first');
      const post = await c.adapter.publish(c.session, c.part(`album ${Date.now()}`, { media }));
      assert.match(post.id, /^\d+_\d+$/);
      assert.equal((await c.held()).find((p) => p.id === post.id)?.media, 3);
      // The same photos cannot be attached twice (1366051 is Facebook's "already posted").
      const again = await rejects(
        c.adapter.publish(c.session, c.part(`album again ${Date.now()}`, { media })),
        'invalid_content',
        'PLATFORM_DUPLICATE',
      );
      assert.match(again.message, /1366051/);
    });

    test('a link post carries the link from platform_options.facebook.link', async () => {
      const c = get();
      const text = `link post ${Date.now()}`;
      const post = await c.adapter.publish(
        c.session,
        c.part(text, { options: { link: 'https://herald.example/launch' } }),
      );
      const page = await c.session.http.request({
        method: 'GET',
        path: `/v23.0/${post.id}`,
        query: { fields: 'id,message,link', access_token: c.session.credentials.accessToken },
      });
      assert.equal(page.json<{ link: string }>().link, 'https://herald.example/launch');
      const bad = await rejects(
        c.adapter.publish(c.session, c.part(`bad link ${Date.now()}`, { options: { link: 'not a url' } })),
        'invalid_content',
      );
      assert.match(bad.message, /1609005/);
    });

    test('the same message twice in a row is the 506 duplicate error → PLATFORM_DUPLICATE', async () => {
      const c = get();
      const text = `twice ${Date.now()}`;
      await c.adapter.publish(c.session, c.part(text));
      const error = await rejects(c.adapter.publish(c.session, c.part(text)), 'invalid_content', 'PLATFORM_DUPLICATE');
      assert.match(error.message, /506/);
      assert.equal((await c.held()).filter((p) => p.text === text).length, 1);
    });

    test('a deleted post is gone from the Page, and deleting it again is refused (100/33)', async () => {
      const c = get();
      const post = await c.adapter.publish(c.session, c.part(`to delete ${Date.now()}`));
      await c.adapter.deletePost(c.session, post);
      assert.equal(
        (await c.held()).some((p) => p.id === post.id),
        false,
      );
      const again = await rejects(c.adapter.deletePost(c.session, post), 'permanent');
      assert.match(again.message, /100\/33/);
    });

    test('the duplicate fault switch answers 506 as well', async () => {
      const c = get();
      c.fault({ fault: 'duplicate', operation: 'create_post' });
      await rejects(
        c.adapter.publish(c.session, c.part(`dup switch ${Date.now()}`)),
        'invalid_content',
        'PLATFORM_DUPLICATE',
      );
    });

    test('a video is processing until ready; a slow one is waited for, and only publishing creates the post', async () => {
      const c = get();
      c.fault({ fault: 'slow_media', operation: 'upload_media', delayMs: 1000 });
      const before = (await c.held()).length;
      const media = await c.adapter.prepareMedia(c.session, [mediaSource(mp4(5 * 1024 * 1024), 'video/mp4')], {});
      assert.equal((await c.held()).length, before, 'an unpublished video is not a post');
      const part = c.part(`video ${Date.now()}`, { media });
      const post = await c.adapter.publish(c.session, part);
      assert.equal((await c.held()).find((p) => p.id === post.id)?.text, part.text);
      // Publishing the same video again is an update, not a second post; the look-up finds it by the video.
      assert.equal((await c.adapter.publish(c.session, part)).id, post.id);
      assert.equal((await c.adapter.findPublished(c.session, part))?.id, post.id);
    });

    test('a video Facebook fails to process is media_rejected, and a non-video file too', async () => {
      const c = get();
      c.fault({ fault: 'media_failed', operation: 'upload_media' });
      await rejects(
        c.adapter.prepareMedia(c.session, [mediaSource(mp4(), 'video/mp4')], {}),
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
      );
      await rejects(
        c.adapter.prepareMedia(c.session, [mediaSource(png(), 'video/mp4', { kind: 'video' })], {}),
        'media_rejected',
      );
    });

    test('a photo post lost in transit is found through the photo, not by text', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [mediaSource(png(), 'image/png')], {});
      const part = c.part('', { media });
      assert.equal(await c.adapter.findPublished(c.session, part), null);
      c.fault({ fault: 'lost_response', operation: 'create_post' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      const held = (await c.held()).filter((p) => p.media === 1 && p.text === '');
      assert.equal(held.length, 1);
      assert.equal((await c.adapter.findPublished(c.session, part))?.id, held[0]!.id);
      // A look-up that fails is an error to retry, never a "not found" that would send the post again.
      c.fault({ fault: 'server_error', operation: 'lookup' });
      await rejects(c.adapter.findPublished(c.session, part), 'transient');
    });

    test('reconciliation pages through a busy feed and picks the oldest match', async () => {
      const c = get();
      const text = `busy ${Date.now()}`;
      const part = c.part(text);
      const first = await c.adapter.publish(c.session, part);
      for (let i = 0; i < 120; i++) await c.adapter.publish(c.session, c.part(`filler ${i} ${Date.now()}`));
      assert.equal((await c.adapter.findPublished(c.session, part))?.id, first.id);
    });

    test('an expired Page token (190/463) is auth_expired, and refreshing says reconnect', async () => {
      const c = get();
      c.fault({ fault: 'expired_token', operation: 'create_post' });
      const error = await rejects(
        c.adapter.publish(c.session, c.part(`expired ${Date.now()}`)),
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
      );
      assert.match(error.message, /190\/463/);
      await rejects(c.adapter.refreshCredentials(c.session), 'auth_expired', 'PLATFORM_RECONNECT_REQUIRED');
      await rejects(c.adapter.verifyAccount({ ...c.session, credentials: { accessToken: 'garbage' } }), 'auth_expired');
    });

    test('the Page throttle (code 4 from the fault, code 32 from the page budget) is rate_limited with a wait', async () => {
      const c = get();
      c.fault({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 90 });
      const limited = await rejects(
        c.adapter.publish(c.session, c.part(`throttled ${Date.now()}`)),
        'rate_limited',
        'PLATFORM_RATE_LIMITED',
      );
      assert.ok(
        limited.retryAfterMs !== undefined && limited.retryAfterMs >= 60_000,
        `retryAfterMs ${limited.retryAfterMs}`,
      );
    });
  });
});

describe('facebook page call budget', () => {
  test('a spent 24-hour Page budget answers (#32) with estimated_time_to_regain_access in minutes', async () => {
    const { startSandbox } = await import('../../sandbox/server.ts');
    const { createPlatformHttp } = await import('../http.ts');
    const { createPlatformRegistry } = await import('../registry.ts');
    const sandbox = await startSandbox({ platforms: ['facebook'], rateLimitFactor: 0.002 }); // 4,800 × 0.002 ≈ 10 calls
    try {
      const adapter = createPlatformRegistry().get('facebook')!;
      const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('facebook') });
      const { account, credentials } = await adapter.connectSandbox(http, { username: 'budget_page' });
      const session = {
        connection: {
          id: 'c',
          accountId: account.accountId,
          handle: account.handle,
          baseUrl: http.baseUrl,
          settings: {},
          sandbox: true,
        },
        credentials,
        http,
        clock: { now: () => new Date() },
      };
      let error: PlatformError | undefined;
      for (let i = 0; i < 20 && !error; i++) {
        try {
          await adapter.publish(session, {
            index: 0,
            text: `budget ${i}`,
            media: [],
            parent: null,
            root: null,
            key: 'k',
            firstSentAt: new Date(),
            options: {},
            ...partMemory(),
          });
        } catch (e) {
          error = e as PlatformError;
        }
      }
      assert.ok(error, 'the budget ran out');
      assert.equal(error.kind, 'rate_limited');
      assert.match(error.message, /\(#32\)/);
      assert.ok(
        error.retryAfterMs !== undefined && error.retryAfterMs >= 60_000 && error.retryAfterMs <= 24 * 3600_000,
        `retryAfterMs ${error.retryAfterMs}`,
      );
    } finally {
      await sandbox.close();
    }
  });
});
