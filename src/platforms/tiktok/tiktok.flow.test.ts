// The TikTok adapter's own flows against its simulator: a worker killed at each step of a video publish (after the
// init, mid-upload, after the last chunk) resumes or reconciles to one video; PULL_FROM_URL; the creator's privacy
// levels and video length; the unaudited-client switch; rotating refresh tokens; metrics from the video query.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rejects, withAdapter } from '../../../test/helpers/adapter-contract.ts';
import { mediaFetchSettings, mediaSource, mp4 } from '../../../test/helpers/media-sources.ts';
import { pollFor } from '../../../test/helpers/poll.ts';
import { startSandbox } from '../../sandbox/server.ts';
import { createPlatformHttp } from '../http.ts';
import { partMemory } from '../part-memory.ts';
import { createPlatformRegistry } from '../registry.ts';
import type { OutgoingPart, PendingRefs, PlatformSession } from '../types.ts';
import { PULL_SETTLE_MS } from './publish.ts';

/** A "restarted worker": the same part (key, first send) with what the killed one recorded, and the media again. */
function restarted(part: OutgoingPart, recorded: PendingRefs, extra: Partial<OutgoingPart> = {}): OutgoingPart {
  return { ...part, ...partMemory({ ...recorded }), ...extra };
}

describe('tiktok flows', () => {
  withAdapter('tiktok', (get) => {
    const video = (size: number) => mediaSource(mp4(size), 'video/mp4');

    test('killed mid-upload: the next attempt resumes the same publish from the bytes TikTok holds', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(20_000_000)], {});
      const part = c.part(`resumed upload ${Date.now()}`, { media });
      // The second chunk's connection drops after TikTok took it? No: the first chunk is taken and the answer lost.
      c.fault({ fault: 'lost_response', operation: 'upload_chunk' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      const recorded = part.pending;
      assert.ok(recorded.publish_id && recorded.upload_url, 'the publish was recorded before the upload');
      const again = restarted(part, recorded, {
        media: await c.adapter.prepareMedia(c.session, [video(20_000_000)], {}),
      });
      assert.equal(await c.adapter.findPublished(c.session, again), null, 'still uploading: nothing to adopt');
      const post = await c.adapter.publish(c.session, again);
      const held = (await c.held()).filter((p) => p.text === part.text);
      assert.deepEqual(
        held.map((p) => p.id),
        [post.id],
        'one video',
      );
    });

    test('killed after the last chunk: the look-up adopts the recorded publish once it is out', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(300 * 1024)], {});
      const part = c.part(`lost last chunk ${Date.now()}`, { media });
      c.fault({ fault: 'lost_response', operation: 'upload_chunk' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      const found = await pollFor('tiktok adopt after the last chunk', () =>
        c.adapter.findPublished(c.session, restarted(part, part.pending, { media: [] })).then((f) => f ?? undefined),
      );
      assert.deepEqual(
        (await c.held()).filter((p) => p.text === part.text).map((p) => p.id),
        [found.id],
      );
    });

    test('killed between the init and its record: the empty publish never posts, and the re-send makes one', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(200 * 1024)], {});
      const lost = Object.assign(new Error('the claim was lost'), { name: 'LostClaim' });
      const part = c.part(`crash before remember ${Date.now()}`, {
        media,
        remember: async () => {
          throw lost;
        },
      });
      await assert.rejects(c.adapter.publish(c.session, part), /the claim was lost/);
      const again = restarted(part, {}, { media: await c.adapter.prepareMedia(c.session, [video(200 * 1024)], {}) });
      assert.equal(await c.adapter.findPublished(c.session, again), null);
      const post = await c.adapter.publish(c.session, again);
      assert.deepEqual(
        (await c.held()).filter((p) => p.text === part.text).map((p) => p.id),
        [post.id],
      );
    });

    test('a lost FILE_UPLOAD init answer: the empty publish never posts, the re-send makes the one video', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(100 * 1024)], {});
      const part = c.part(`lost init ${Date.now()}`, { media });
      c.fault({ fault: 'lost_response', operation: 'create_post' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      assert.deepEqual(part.pending, {}, 'nothing to record: the answer never came');
      assert.equal(await c.adapter.findPublished(c.session, part), null);
      const post = await c.adapter.publish(c.session, part);
      assert.deepEqual(
        (await c.held()).filter((p) => p.text === part.text).map((p) => p.id),
        [post.id],
      );
    });

    test('a lost status answer after the last chunk is unknown; the look-up adopts the publish', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(100 * 1024)], {});
      const part = c.part(`lost status ${Date.now()}`, { media });
      c.fault({ fault: 'lost_response', operation: 'publish_status' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      const found = await pollFor('tiktok adopt after a lost status', () =>
        c.adapter.findPublished(c.session, restarted(part, part.pending, { media: [] })).then((f) => f ?? undefined),
      );
      assert.deepEqual(
        (await c.held()).filter((p) => p.text === part.text).map((p) => p.id),
        [found.id],
      );
    });

    test('a 5xx on a chunk is transient; the next attempt resumes the recorded publish', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(20_000_000)], {});
      const part = c.part(`chunk 5xx ${Date.now()}`, { media });
      c.fault({ fault: 'server_error', operation: 'upload_chunk', skip: 1 });
      await rejects(c.adapter.publish(c.session, part), 'transient');
      const post = await c.adapter.publish(c.session, restarted(part, part.pending));
      assert.deepEqual(
        (await c.held()).filter((p) => p.text === part.text).map((p) => p.id),
        [post.id],
      );
    });

    test('PULL_FROM_URL: TikTok fetches the signed URL', async () => {
      const c = get();
      const options = { video_source: 'pull_from_url' };
      const media = await c.adapter.prepareMedia(c.session, [video(100 * 1024)], options);
      const post = await c.adapter.publish(c.session, c.part(`pulled ${Date.now()}`, { media, options }));
      assert.match(post.url, /\/@contract_tiktok_\d+\/video\/\d+$/);
      assert.equal((await c.held()).filter((p) => p.id === post.id).length, 1);
    });

    test('a lost PULL_FROM_URL init answer: the look-up waits for the pulled post and adopts it, never a second', async () => {
      const c = get();
      const options = { video_source: 'pull_from_url' };
      const media = await c.adapter.prepareMedia(c.session, [video(100 * 1024)], options);
      const part = c.part(`lost pulled init ${Date.now()}`, { media, options });
      c.fault({ fault: 'lost_response', operation: 'create_post' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      assert.ok(part.pending.pulled_at && !part.pending.publish_id, 'the pulled init was recorded before it was sent');
      const found = await pollFor('tiktok adopt after a lost pulled init', async () => {
        try {
          return (await c.adapter.findPublished(c.session, restarted(part, part.pending, { media: [] }))) ?? undefined;
        } catch (error) {
          // Not listed yet (still processing): within the settle window that is an unknown outcome, never a null.
          assert.equal((error as { kind?: string }).kind, 'unknown_outcome');
          return undefined;
        }
      });
      assert.deepEqual(
        (await c.held()).filter((p) => p.text === part.text).map((p) => p.id),
        [found.id],
      );
    });

    test('a pulled init TikTok answers with an error drops its record: the re-send goes at once', async () => {
      const c = get();
      const options = { video_source: 'pull_from_url' };
      const media = await c.adapter.prepareMedia(c.session, [video(100 * 1024)], options);
      const part = c.part(`answered pulled init ${Date.now()}`, { media, options });
      c.fault({ fault: 'server_error', operation: 'create_post' });
      await assert.rejects(c.adapter.publish(c.session, part));
      assert.equal(part.pending.pulled_at, undefined, 'an answered init leaves no pulled record');
      assert.equal(await c.adapter.findPublished(c.session, restarted(part, part.pending, { media: [] })), null);
    });

    test('a pulled init still unlisted after the settle window, or none sent, is sent again', async () => {
      const c = get();
      const part = c.part(`never pulled ${Date.now()}`, { media: [] });
      assert.equal(await c.adapter.findPublished(c.session, part), null, 'no pulled init recorded: re-send at once');
      const recent = restarted(part, { kind: 'video', pulled_at: new Date().toISOString() });
      await rejects(c.adapter.findPublished(c.session, recent), 'unknown_outcome');
      const old = new Date(Date.now() - PULL_SETTLE_MS - 1000).toISOString();
      assert.equal(await c.adapter.findPublished(c.session, restarted(part, { kind: 'video', pulled_at: old })), null);
    });

    test('a recorded publish TikTok does not know is nothing to adopt: the re-send starts afresh', async () => {
      const c = get();
      const part = restarted(c.part(`unknown publish ${Date.now()}`, { media: [] }), {
        publish_id: 'v_pub_file~v2-1.999999999',
        kind: 'video',
      });
      assert.equal(await c.adapter.findPublished(c.session, part), null);
    });

    test('the default privacy is the most private level; a level the creator lacks is refused before any init', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(50 * 1024)], {});
      const text = `privacy ${Date.now()}`;
      await c.adapter.publish(c.session, c.part(text, { media }));
      const publishes = await c.sandbox
        .simulator('tiktok')
        .kit.store.list<{ title: string; privacyLevel: string }>('publish');
      assert.equal(publishes.find((p) => p.title === text)?.privacyLevel, 'SELF_ONLY');
      await rejects(
        c.adapter.publish(
          c.session,
          c.part(`bad privacy ${Date.now()}`, { media, options: { privacy_level: 'FOLLOWER_OF_CREATOR' } }),
        ),
        'invalid_content',
      );
    });

    test('fetchMetrics reads views, likes, comments and shares from the video query', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video(50 * 1024)], {});
      const post = await c.adapter.publish(c.session, c.part(`metrics ${Date.now()}`, { media }));
      const metrics = await c.adapter.fetchMetrics!(c.session, post);
      assert.deepEqual(Object.keys(metrics).sort(), ['comments', 'likes', 'shares', 'video_views']);
      assert.ok(Object.values(metrics).every((n) => Number.isInteger(n) && n >= 0));
    });

    test('refresh tokens rotate: the old one is refused once used', async () => {
      const c = get();
      const fresh = await c.adapter.refreshCredentials(c.session);
      assert.notEqual(fresh.refreshToken, c.session.credentials.refreshToken);
      await rejects(c.adapter.refreshCredentials(c.session), 'auth_expired');
      const next = await c.adapter.refreshCredentials({ ...c.session, credentials: fresh });
      assert.ok(next.accessToken);
      c.session.credentials = next;
    });
  });
});

describe('tiktok creators and the unaudited switch', () => {
  const adapter = createPlatformRegistry().get('tiktok')!;
  async function session(settings: Record<string, unknown>, username: string) {
    const sandbox = await startSandbox({
      platforms: ['tiktok'],
      settings: { ...(await mediaFetchSettings()), ...settings },
    });
    const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('tiktok'), timeoutMs: 3000 });
    const { account, credentials } = await adapter.connectSandbox(http, { username });
    const s: PlatformSession = {
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
    return { sandbox, session: s, account };
  }
  const part = (text: string, extra: Partial<OutgoingPart>): OutgoingPart => ({
    index: 0,
    text,
    media: [],
    parent: null,
    root: null,
    key: adapter.newPartKey(new Date()),
    firstSentAt: new Date(),
    options: {},
    ...partMemory(),
    ...extra,
  });

  test('an unaudited app may post SELF_ONLY only, and says so', async () => {
    const { sandbox, session: s } = await session({ tiktokUnaudited: true }, 'flow_unaudited');
    try {
      const media = await adapter.prepareMedia(s, [mediaSource(mp4(), 'video/mp4')], {});
      const error = await rejects(
        adapter.publish(s, part('public please', { media, options: { privacy_level: 'PUBLIC_TO_EVERYONE' } })),
        'permanent',
        'PLATFORM_PERMISSION_DENIED',
      );
      assert.match(error.message, /unaudited.*SELF_ONLY/s);
      const post = await adapter.publish(s, part('private is fine', { media }));
      assert.ok(post.id);
    } finally {
      await sandbox.close();
    }
  });

  test("a creator's video length cap and their settings are read before each post", async () => {
    const { sandbox, session: s, account } = await session({}, 'flow_short_locked');
    try {
      assert.deepEqual(account.settings?.privacy_level_options, [
        'PUBLIC_TO_EVERYONE',
        'MUTUAL_FOLLOW_FRIENDS',
        'SELF_ONLY',
      ]);
      const long = await adapter.prepareMedia(s, [mediaSource(mp4(), 'video/mp4', { durationMs: 90_000 })], {});
      await rejects(adapter.publish(s, part('too long', { media: long })), 'media_rejected', 'PLATFORM_MEDIA_REJECTED');
      const short = await adapter.prepareMedia(s, [mediaSource(mp4(), 'video/mp4', { durationMs: 30_000 })], {});
      await rejects(
        adapter.publish(s, part('comments on', { media: short, options: { disable_comment: false } })),
        'invalid_content',
      );
      assert.ok((await adapter.publish(s, part('comments off', { media: short }))).id);
      assert.equal((await sandbox.simulator('tiktok').posts()).length, 1);
    } finally {
      await sandbox.close();
    }
  });
});
