// The Pinterest adapter against its simulator over real HTTP: the shared contract and metrics, then Pinterest's own
// cases: the board a Pin goes to and its fields, carousels, unknown outcomes at every step of a video Pin (register,
// upload, processing, create) with no second Pin, the look-up's rules, continuous refresh, and the error table
// against Pinterest's error bodies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptedImage, adapterContract, rejects, withAdapter } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';
import { mediaFetchSettings, mediaSource, mp4 } from '../../../test/helpers/media-sources.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { createPlatformHttp } from '../http.ts';
import { partMemory } from '../part-memory.ts';
import { createPlatformRegistry } from '../registry.ts';
import { classify } from '../classify.ts';
import type { PlatformResponse } from '../http-contract.ts';
import type { OutgoingPart, PlatformSession } from '../types.ts';
import * as client from './client.ts';
import { PINTEREST_ERRORS } from './errors.ts';
import type { BoardChoice } from './index.ts';

adapterContract('pinterest');
metricsContract('pinterest', {
  gives: ['impressions', 'saves', 'clicks', 'likes', 'comments'],
  operation: 'metrics',
});

describe('Pinterest adapter specifics', () => {
  withAdapter('pinterest', (get) => {
    const boards = () => get().session.connection.settings.boards as BoardChoice[];
    const pin = (id: string) => client.getPin(get().session.http, get().session.credentials.accessToken, id);
    const video = () => mediaSource(mp4(64 * 1024), 'video/mp4');
    const countOf = async (text: string) => (await get().held()).filter((p) => p.text === text).length;

    test("the connection records the account's boards; the first is the default", () => {
      const c = get();
      assert.deepEqual(
        boards().map((b) => b.privacy),
        ['PUBLIC', 'SECRET'],
      );
      assert.equal(c.session.connection.settings.default_board_id, boards()[0]!.id);
    });

    test('a Pin goes to the chosen board with its title, link, alt text and description', async () => {
      const c = get();
      const board = boards()[1]!.id;
      const text = `to the second board ${Date.now()}`;
      const options = { board_id: board, title: 'A title', link: 'https://example.com/a', alt_text: 'a square' };
      const post = await c.adapter.publish(c.session, c.part(text, { options }));
      assert.equal(post.url, `${c.session.http.baseUrl}/pin/${post.id}/`);
      const got = await pin(post.id);
      assert.equal(got.board_id, board);
      assert.deepEqual([got.title, got.link, got.description], ['A title', 'https://example.com/a', text]);
      assert.equal((got as { alt_text?: string }).alt_text, 'a square');
    });

    test("boards picks this connection's board over board_id; the look-up reads that board", async () => {
      const c = get();
      const [first, second] = boards();
      const text = `per connection ${Date.now()}`;
      const options = { board_id: first!.id, boards: { [c.session.connection.id]: second!.id, conn_other: first!.id } };
      const part = c.part(text, { options });
      const post = await c.adapter.publish(c.session, part);
      assert.equal((await pin(post.id)).board_id, second!.id);
      assert.equal((await c.adapter.findPublished(c.session, part))?.id, post.id);
    });

    test("a board that is not the account's is refused as invalid_content, and nothing is made", async () => {
      const c = get();
      const text = `no such board ${Date.now()}`;
      await rejects(
        c.adapter.publish(c.session, c.part(text, { options: { board_id: '12345' } })),
        'invalid_content',
        'PLATFORM_CONTENT_REJECTED',
      );
      assert.equal(await countOf(text), 0);
    });

    test('three images make one carousel Pin; six are refused as media_rejected', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(
        c.session,
        [1, 2, 3].map(() => acceptedImage(c.adapter)),
        {},
      );
      const post = await c.adapter.publish(c.session, c.part(`carousel ${Date.now()}`, { media }));
      const got = await pin(post.id);
      assert.equal(got.media?.media_type, 'multiple_images');
      assert.equal(got.media?.items?.length, 3);
      const six = await c.adapter.prepareMedia(
        c.session,
        [1, 2, 3, 4, 5, 6].map(() => acceptedImage(c.adapter)),
        {},
      );
      await rejects(c.adapter.publish(c.session, c.part(`six ${Date.now()}`, { media: six })), 'media_rejected');
    });

    test('an unanswered media registration is unknown_outcome; the next attempt registers afresh and makes one Pin', async () => {
      const c = get();
      c.fault({ fault: 'lost_response', operation: 'register_media' });
      await rejects(c.adapter.prepareMedia(c.session, [video()], {}), 'unknown_outcome');
      const text = `after a lost registration ${Date.now()}`;
      const media = await c.adapter.prepareMedia(c.session, [video()], {});
      await c.adapter.publish(c.session, c.part(text, { media }));
      assert.equal(await countOf(text), 1);
    });

    test('an upload whose answer is lost is found processed; one refused by S3 is posted again', async () => {
      const c = get();
      for (const fault of ['lost_response', 'server_error'] as const) {
        c.fault({ fault, operation: 'upload_media' });
        const media = await c.adapter.prepareMedia(c.session, [video()], {});
        const text = `upload ${fault} ${Date.now()}`;
        const post = await c.adapter.publish(c.session, c.part(text, { media }));
        assert.equal((await pin(post.id)).media?.media_type, 'video');
        assert.equal(await countOf(text), 1);
      }
    });

    test('a video larger than a JSON body (3 MiB) goes up in one S3 form', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [mediaSource(mp4(3 * 1024 * 1024), 'video/mp4')], {});
      const text = `large video ${Date.now()}`;
      await c.adapter.publish(c.session, c.part(text, { media }));
      assert.equal(await countOf(text), 1);
    });

    test('a failing status read while the video processes is asked again', async () => {
      const c = get();
      c.fault({ fault: 'server_error', operation: 'media_status', times: 2 });
      const media = await c.adapter.prepareMedia(c.session, [video()], {});
      assert.equal(media[0]!.kind, 'video');
    });

    test('a video Pin whose create answer is lost is found by the look-up, also after a restart, and only once', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video()], {});
      const part = c.part(`lost video pin ${Date.now()}`, { media });
      c.fault({ fault: 'lost_response', operation: 'create_post' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      const found = await c.adapter.findPublished(c.session, part);
      assert.ok(found);
      assert.equal(await countOf(part.text), 1);
      // A restarted worker has no prepared media, only their count.
      const restarted: OutgoingPart = { ...part, media: [], mediaCount: 1 };
      assert.equal((await c.adapter.findPublished(c.session, restarted))?.id, found.id);
      // A Pin another part holds, one made before the first send, or one with other media is not this part.
      assert.equal(
        await c.adapter.findPublished(c.session, { ...restarted, heldElsewhere: new Set([found.id]) }),
        null,
      );
      const later = new Date(Date.now() + 60_000);
      assert.equal(await c.adapter.findPublished(c.session, { ...restarted, firstSentAt: later }), null);
      assert.equal(await c.adapter.findPublished(c.session, { ...restarted, mediaCount: 2 }), null);
    });

    test('the look-up goes by the part’s board and fields: same text with another title is not the part', async () => {
      const c = get();
      const part = c.part(`titled ${Date.now()}`, { options: { title: 'One' } });
      c.fault({ fault: 'lost_response', operation: 'create_post' });
      await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
      assert.ok(await c.adapter.findPublished(c.session, part));
      assert.equal(await c.adapter.findPublished(c.session, { ...part, options: { title: 'Two' } }), null);
      const other = { ...part, options: { board_id: boards()[1]!.id, title: 'One' } };
      assert.equal(await c.adapter.findPublished(c.session, other), null);
    });

    test('refresh answers a new refresh token (continuous refresh); the spent one is refused as auth_expired', async () => {
      const c = get();
      const first = await c.adapter.refreshCredentials(c.session);
      assert.ok(first.refreshToken && first.refreshToken !== c.session.credentials.refreshToken);
      assert.ok(first.expiresAt && Date.parse(first.expiresAt) > Date.now() + 29 * 86_400_000);
      await rejects(c.adapter.refreshCredentials(c.session), 'auth_expired', 'PLATFORM_RECONNECT_REQUIRED');
      const session = { ...c.session, credentials: first };
      assert.equal((await c.adapter.verifyAccount(session)).accountId, c.session.connection.accountId);
    });

    test('a video Pin gives video views in its metrics; an image Pin does not', async () => {
      const c = get();
      const media = await c.adapter.prepareMedia(c.session, [video()], {});
      const post = await c.adapter.publish(c.session, c.part(`video metrics ${Date.now()}`, { media }));
      const metrics = await c.adapter.fetchMetrics!(c.session, post);
      assert.ok('video_views' in metrics, JSON.stringify(metrics));
      const image = await c.adapter.publish(c.session, c.part(`image metrics ${Date.now()}`));
      assert.ok(!('video_views' in (await c.adapter.fetchMetrics!(c.session, image))));
    });

    test('the consent URL is Pinterest’s /oauth/ with comma-separated scopes and no PKCE', () => {
      const oauth = get().adapter.oauth!;
      assert.equal(oauth.pkce, false);
      const url = new URL(
        oauth.authorizeUrl(
          {
            http: get().session.http,
            webUrl: 'https://www.pinterest.com',
            sandbox: false,
            app: { clientId: 'app1', clientSecret: 's' },
            redirectUri: 'https://herald.example/connect/callback',
          },
          { state: 'st', codeChallenge: null },
        ),
      );
      assert.equal(`${url.origin}${url.pathname}`, 'https://www.pinterest.com/oauth/');
      assert.equal(url.searchParams.get('scope'), 'boards:read,boards:write,pins:read,pins:write,user_accounts:read');
      assert.equal(url.searchParams.get('code_challenge'), null);
    });
  });
});

describe("Pinterest error table against Pinterest's error bodies", () => {
  const answer = (status: number, body: unknown): PlatformResponse => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
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
      'failed authentication',
      401,
      { code: 2, message: 'Authentication failed.' },
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    ],
    [
      'not permitted',
      403,
      { code: 29, message: 'You are not permitted to access that resource.' },
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    ],
    ['unknown board', 404, { code: 404, message: 'Board not found.' }, 'invalid_content', 'PLATFORM_CONTENT_REJECTED'],
    ['unknown Pin', 404, { code: 404, message: 'Pin not found.' }, 'permanent', 'PLATFORM_REJECTED'],
    [
      'image not fetched',
      400,
      { code: 1, message: 'Sorry we could not fetch the image.' },
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    ],
    [
      'video not processed',
      400,
      { code: 400, message: 'The media upload has not succeeded.' },
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    ],
    [
      'field too long',
      400,
      { code: 400, message: 'title is longer than 100 characters.' },
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
    ],
    ['rate limit', 429, { code: 8, message: 'Rate limit exceeded.' }, 'rate_limited', 'PLATFORM_RATE_LIMITED'],
    ['S3 slow down', 503, '<Error><Code>SlowDown</Code></Error>', 'transient', 'PLATFORM_UNAVAILABLE'],
  ];
  for (const [name, status, body, kind, code] of cases)
    test(`${name}: ${status} is ${kind} ${code}`, () => {
      const error = classify(answer(status, body), PINTEREST_ERRORS, 'Pinterest');
      assert.equal(error.kind, kind);
      assert.equal(error.code, code);
    });
});

describe('Pinterest trial access', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox({
      platforms: ['pinterest'],
      settings: { ...(await mediaFetchSettings()), pinterestTrialAccess: true },
    });
  });
  after(() => sandbox.close());

  test("production refuses the Pin with a message naming Herald's API Sandbox setting; the API Sandbox takes it", async () => {
    const adapter = createPlatformRegistry().get('pinterest')!;
    const sessionAt = async (baseUrl: string, username: string): Promise<PlatformSession> => {
      const http = createPlatformHttp({ baseUrl, timeoutMs: 1500 });
      const { account, credentials } = await adapter.connectSandbox(http, { username });
      return {
        connection: {
          id: 'conn_trial',
          accountId: account.accountId,
          handle: account.handle,
          baseUrl,
          settings: account.settings ?? {},
          sandbox: true,
        },
        credentials,
        http,
        clock: { now: () => new Date() },
      };
    };
    const part = (session: PlatformSession, media: OutgoingPart['media']): OutgoingPart => ({
      index: 0,
      text: `trial ${Date.now()}`,
      media,
      parent: null,
      root: null,
      key: adapter.newPartKey(new Date()),
      firstSentAt: new Date(),
      options: {},
      ...partMemory(),
    });
    const production = await sessionAt(sandbox.baseUrl('pinterest'), 'trial_pinner');
    const media = await adapter.prepareMedia(production, [acceptedImage(adapter)], {});
    const refused = await rejects(
      adapter.publish(production, part(production, media)),
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    );
    assert.match(refused.message, /HERALD_PINTEREST_API_URL=https:\/\/api-sandbox\.pinterest\.com/);
    const apiSandbox = await sessionAt(`${sandbox.baseUrl('pinterest')}/api-sandbox`, 'trial_pinner');
    const post = await adapter.publish(apiSandbox, part(apiSandbox, media));
    assert.ok(post.id);
  });
});
