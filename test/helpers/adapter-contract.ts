// The behaviour every adapter must show against its simulator, over real HTTP: connect, publish text,
// threads, images, video, and each fault the simulators inject, classified the way the engine expects.
// A new platform runs this suite from its own test file (src/platforms/README.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlatformHttp } from '../../src/platforms/http.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import { createPlatformRegistry } from '../../src/platforms/registry.ts';
import {
  isPlatformError,
  type PlatformError,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../../src/platforms/types.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import type { FaultRule } from '../../src/sandbox/framework/faults.ts';
import { jpeg, mediaFetchSettings, mediaSource, mp4, png } from './media-sources.ts';
import { partMemory } from '../../src/platforms/part-memory.ts';

export interface ContractContext {
  sandbox: RunningSandbox;
  adapter: PlatformAdapter;
  session: PlatformSession;
  /** A part to publish, with a fresh key. */
  part(text: string, extra?: Partial<OutgoingPart>): OutgoingPart;
  fault(rule: FaultRule): void;
  /** Posts the simulator holds for this account, not deleted. */
  held(): ReturnType<ReturnType<RunningSandbox['simulator']>['posts']>;
  /** Media every part carries where the platform requires media (Instagram), else none. */
  baseMedia: PreparedMedia[];
}

/** The media every part carries where the platform requires media: an image, or a video where it takes no images. */
export function requiredMedia(adapter: PlatformAdapter) {
  return adapter.limits.media.kinds.image ? acceptedImage(adapter) : mediaSource(mp4(256 * 1024), 'video/mp4');
}

/** An image in a format the platform takes (Instagram: JPEG only). */
export function acceptedImage(adapter: PlatformAdapter, width = 40, height = 30) {
  return adapter.limits.media.kinds.image?.contentTypes.includes('image/png')
    ? mediaSource(png(width, height), 'image/png')
    : mediaSource(jpeg(width, height), 'image/jpeg', { width, height });
}

let unique = 0;

/**
 * Media the media tests send through processing: a video where the platform takes video, else an accepted image
 * (Google Business Profile takes one photo and no video).
 */
export function processedMedia(adapter: PlatformAdapter) {
  return adapter.limits.media.kinds.video ? mediaSource(mp4(), 'video/mp4') : acceptedImage(adapter);
}

/** How many images one part may carry on the platform, at most 2 (the images test sends that many). */
const imagesPerPart = (adapter: PlatformAdapter) =>
  Math.min(2, adapter.limits.media.maxItems, adapter.limits.media.kinds.image?.maxCount ?? 0);

/** Starts the platform's simulator, connects a sandbox account and hands the context to `body`. */
export function withAdapter(platform: PlatformName, body: (ctx: () => ContractContext) => void): void {
  let ctx: ContractContext | undefined;
  before(async () => {
    // Limits scaled up: the suite sends more in a minute than some platforms allow a day (YouTube's upload quota).
    const sandbox = await startSandbox({
      platforms: [platform],
      settings: await mediaFetchSettings(),
      rateLimitFactor: 100,
    });
    const adapter = createPlatformRegistry().get(platform)!;
    const http = createPlatformHttp({ baseUrl: sandbox.baseUrl(platform), timeoutMs: 1500 });
    const { account, credentials } = await adapter.connectSandbox(http, {
      username: `contract_${platform}_${++unique}`,
    });
    const session: PlatformSession = {
      connection: {
        id: 'conn_test',
        accountId: account.accountId,
        handle: account.handle,
        baseUrl: http.baseUrl,
        settings: account.settings ?? {},
        sandbox: true,
      },
      credentials,
      http,
      clock: { now: () => new Date() },
    };
    const sim = sandbox.simulator(platform);
    const baseMedia = adapter.limits.media.required
      ? await adapter.prepareMedia(session, [requiredMedia(adapter)], {})
      : [];
    ctx = {
      baseMedia,
      sandbox,
      adapter,
      session,
      part: (text, extra = {}) => ({
        index: 0,
        text,
        media: baseMedia,
        parent: null,
        root: null,
        key: adapter.newPartKey(new Date()),
        firstSentAt: new Date(),
        options: {},
        ...partMemory(),
        ...extra,
      }),
      fault: (rule) => sim.faults.add(rule),
      held: async () => (await sim.posts()).filter((p) => p.account === account.accountId && !p.deleted),
    };
  });
  after(() => ctx?.sandbox.close());
  body(() => ctx!);
}

/** Awaits a promise that must fail with a PlatformError of this kind (and code); returns the error. */
export async function rejects(promise: Promise<unknown>, kind: string, code?: string): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPlatformError(error), `expected a PlatformError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    if (code) assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a ${kind} PlatformError`);
}

export function adapterContract(platform: PlatformName): void {
  describe(`${platform} adapter against its simulator`, () => {
    withAdapter(platform, (get) => {
      test('the sandbox account verifies as the connected account', async () => {
        const { adapter, session } = get();
        const account = await adapter.verifyAccount(session);
        assert.equal(account.accountId, session.connection.accountId);
      });

      test('a text post is created once, with an id and a URL', async () => {
        const c = get();
        const text = `contract text ${Date.now()}`;
        const post = await c.adapter.publish(c.session, c.part(text));
        assert.ok(post.id && post.url.startsWith('http'));
        assert.equal((await c.held()).filter((p) => p.text === text).length, 1);
      });

      test(
        'a thread is a chain of replies, each to the part before',
        { skip: createPlatformRegistry().get(platform)!.limits.maxThreadParts === 0 && 'the platform has no threads' },
        async () => {
          const c = get();
          const texts = [`thread one ${Date.now()}`, 'thread two', 'thread three'];
          const done: PublishedPart[] = [];
          for (const [i, text] of texts.entries())
            done.push(
              await c.adapter.publish(
                c.session,
                c.part(text, { index: i, parent: done[i - 1] ?? null, root: done[0] ?? null }),
              ),
            );
          const held = await c.held();
          for (let i = 1; i < done.length; i++)
            assert.equal(held.find((p) => p.id === done[i]!.id)?.replyTo, done[i - 1]!.id);
        },
      );

      test(
        'images are uploaded in the platform protocol and attached',
        { skip: !createPlatformRegistry().get(platform)!.limits.media.kinds.image && 'the platform takes no images' },
        async () => {
          const c = get();
          const first = acceptedImage(c.adapter);
          const count = imagesPerPart(c.adapter);
          const media = await c.adapter.prepareMedia(
            c.session,
            [{ ...first, altText: 'a square' }, acceptedImage(c.adapter, 1, 1)].slice(0, count),
            {},
          );
          assert.equal(media.length, count);
          const post = await c.adapter.publish(c.session, c.part(`with images ${Date.now()}`, { media }));
          assert.equal((await c.held()).find((p) => p.id === post.id)?.media, count);
        },
      );

      test(
        'a video is uploaded, waited for while the platform processes it, and attached',
        { skip: !createPlatformRegistry().get(platform)!.limits.media.kinds.video && 'the platform takes no video' },
        async () => {
          const c = get();
          const started = Date.now();
          const media = await c.adapter.prepareMedia(c.session, [mediaSource(mp4(256 * 1024), 'video/mp4')], {});
          const post = await c.adapter.publish(c.session, c.part(`with video ${Date.now()}`, { media }));
          assert.equal((await c.held()).find((p) => p.id === post.id)?.media, 1);
          console.log(`# ${platform} video upload and processing took ${Date.now() - started} ms`);
        },
      );

      test('429 is rate_limited with the reset as retryAfterMs', async () => {
        const c = get();
        c.fault({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 30 });
        const error = await rejects(
          c.adapter.publish(c.session, c.part(`limited ${Date.now()}`)),
          'rate_limited',
          'PLATFORM_RATE_LIMITED',
        );
        assert.ok(
          error.retryAfterMs !== undefined && error.retryAfterMs > 20_000 && error.retryAfterMs <= 31_000,
          `retryAfterMs ${error.retryAfterMs}`,
        );
      });

      test('an expired token is auth_expired', async () => {
        const c = get();
        c.fault({ fault: 'expired_token', operation: 'create_post' });
        await rejects(c.adapter.publish(c.session, c.part(`expired ${Date.now()}`)), 'auth_expired');
      });

      test('a 5xx is transient and creates nothing', async () => {
        const c = get();
        const text = `five hundred ${Date.now()}`;
        c.fault({ fault: 'server_error', operation: 'create_post' });
        await rejects(c.adapter.publish(c.session, c.part(text)), 'transient');
        assert.equal((await c.held()).filter((p) => p.text === text).length, 0);
      });

      test('a hang past the deadline is unknown_outcome, and the look-up finds nothing', async () => {
        const c = get();
        const part = c.part(`hang ${Date.now()}`);
        c.fault({ fault: 'hang', operation: 'create_post' });
        await rejects(c.adapter.publish(c.session, part), 'unknown_outcome', 'PLATFORM_UNKNOWN_OUTCOME');
        // A platform that lists a post only after moderation (TikTok's pulled posts) may keep the outcome unknown for
        // a while rather than say null; asked a day later, it must say null.
        const found = await c.adapter.findPublished(c.session, part).catch(async (error: unknown) => {
          if (!isPlatformError(error) || error.kind !== 'unknown_outcome') throw error;
          const later = { now: () => new Date(Date.now() + 24 * 3600_000) };
          return c.adapter.findPublished({ ...c.session, clock: later }, part);
        });
        assert.equal(found, null);
      });

      test('a response lost after the post was made is unknown_outcome, and the look-up finds that post', async () => {
        const c = get();
        const part = c.part(`lost ${Date.now()}`);
        c.fault({ fault: 'lost_response', operation: 'create_post' });
        await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
        const held = (await c.held()).filter((p) => p.text === part.text);
        assert.equal(held.length, 1);
        const found = await c.adapter.findPublished(c.session, part);
        assert.equal(found?.id, held[0]!.id);
      });

      // Platforms that pull media (Instagram, Threads) meet it when the post's container is made, so the media is
      // prepared and published in one step here.
      test('media the platform fails to process is media_rejected', async () => {
        const c = get();
        c.fault({ fault: 'media_failed', operation: platform === 'mastodon' ? 'media_processing' : 'upload_media' });
        await rejects(
          (async () => {
            const media = await c.adapter.prepareMedia(c.session, [processedMedia(c.adapter)], {});
            await c.adapter.publish(c.session, c.part(`failed media ${Date.now()}`, { media }));
          })(),
          'media_rejected',
          'PLATFORM_MEDIA_REJECTED',
        );
      });

      test('slow media processing is waited for', async () => {
        const c = get();
        c.fault({
          fault: 'slow_media',
          operation: platform === 'mastodon' ? 'media_processing' : 'upload_media',
          delayMs: 1500,
        });
        const media = await c.adapter.prepareMedia(c.session, [processedMedia(c.adapter)], {});
        assert.equal(media.length, 1);
        const post = await c.adapter.publish(c.session, c.part(`slow media ${Date.now()}`, { media }));
        assert.equal((await c.held()).find((p) => p.id === post.id)?.media, 1);
      });

      test('text over the platform limit is refused as invalid_content', async () => {
        const c = get();
        await rejects(
          c.adapter.publish(c.session, c.part('é'.repeat(c.adapter.limits.text.maxLength + 1))),
          'invalid_content',
        );
      });
    });
  });
}
