// The threads adapter against its simulator: the shared contract, then Threads' own behaviour over real HTTP —
// carousels up to 20, the emoji-as-bytes length rule and the 5-link rule, reply control, media Threads cannot
// fetch, a block whose post is live anyway, re-sends after lost answers, the post and reply quotas, container
// expiry, delete, and the Threads sign-in (consent, deny, replayed and expired codes, refresh).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';
import { consentRedirect, failure, sandboxSession } from '../../../test/helpers/meta-adapter.ts';
import { brokenUrl, mediaFetchSettings, mediaSource, mp4, png } from '../../../test/helpers/media-sources.ts';
import { createPlatformHttp } from '../http.ts';
import { createPlatformRegistry } from '../registry.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import {
  isPlatformError,
  type OAuthContext,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../types.ts';
import { partMemory } from '../part-memory.ts';

adapterContract('threads');
metricsContract('threads', {
  gives: ['impressions', 'likes', 'comments', 'shares', 'quotes'],
  operation: 'read_metrics',
});

interface Rig {
  sandbox: RunningSandbox;
  adapter: PlatformAdapter;
  session: PlatformSession;
  part(text: string, extra?: Partial<OutgoingPart>): OutgoingPart;
  held(): ReturnType<ReturnType<RunningSandbox['simulator']>['posts']>;
  get(id: string, fields: string): Promise<Record<string, unknown>>;
}

let account = 0;

async function rig(settings: Record<string, unknown> = {}, rateLimitFactor = 1): Promise<Rig> {
  const sandbox = await startSandbox({
    platforms: ['threads'],
    settings: { ...(await mediaFetchSettings()), ...settings },
    rateLimitFactor,
  });
  const adapter = createPlatformRegistry().get('threads')!;
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('threads'), timeoutMs: 1500 });
  const session = await sandboxSession(adapter, http, `th_specific_${++account}`, 'conn_th');
  return {
    sandbox,
    adapter,
    session,
    part: (text, extra = {}) => ({
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
    }),
    held: async () =>
      (await sandbox.simulator('threads').posts()).filter(
        (p) => p.account === session.connection.accountId && !p.deleted,
      ),
    get: async (id, fields) =>
      (
        await http.request({
          method: 'GET',
          path: `/v1.0/${id}`,
          query: { fields, access_token: session.credentials.accessToken },
        })
      ).json(),
  };
}

describe('threads specifics', () => {
  let r: Rig;
  before(async () => {
    r = await rig({ threadsPublishQuota: 12, threadsReplyQuota: 3 });
  });
  after(() => r.sandbox.close());

  test('a carousel of 20 images and a video is published as one post; 21 items are refused before any call', async () => {
    const sources = [
      ...Array.from({ length: 19 }, (_, i) => mediaSource(png(10 + i, 10), 'image/png')),
      mediaSource(mp4(), 'video/mp4'),
    ];
    const media = await r.adapter.prepareMedia(r.session, sources, {});
    const post = await r.adapter.publish(r.session, r.part(`carousel ${Date.now()}`, { media }));
    assert.equal((await r.held()).find((p) => p.id === post.id)?.media, 20);
    const more = [...media, media[0]!];
    assert.equal(
      (await failure(r.adapter.publish(r.session, r.part('too many', { media: more })))).code,
      'PLATFORM_CONTENT_REJECTED',
    );
  });

  test('emoji count as their UTF-8 bytes: 125 thumbs (500 bytes) pass, 126 do not', async () => {
    const ok = await r.adapter.publish(r.session, r.part('👍'.repeat(125)));
    assert.ok(ok.id);
    const error = await failure(r.adapter.publish(r.session, r.part('👍'.repeat(126))));
    assert.equal(error.kind, 'invalid_content');
  });

  test('more than five links are refused (THREADS_API__LINK_LIMIT_EXCEEDED)', async () => {
    const text = Array.from({ length: 6 }, (_, i) => `https://example${i}.com`).join(' ');
    const error = await failure(r.adapter.publish(r.session, r.part(text)));
    assert.equal(error.kind, 'invalid_content');
    assert.match(error.message, /LINK_LIMIT/);
  });

  test('reply control is set on the first part', async () => {
    const post = await r.adapter.publish(
      r.session,
      r.part(`mentioned only ${Date.now()}`, { options: { reply_control: 'mentioned_only' } }),
    );
    assert.equal((await r.get(post.id, 'reply_audience')).reply_audience, 'MENTIONED_ONLY');
  });

  test('an image URL Threads cannot fetch is transient (2207052); a video one ends FAILED_DOWNLOADING_VIDEO, also transient', async () => {
    const image: PreparedMedia[] = [
      { platformRef: await brokenUrl(), kind: 'image', altText: null, width: 1, height: 1 },
    ];
    const e1 = await failure(r.adapter.publish(r.session, r.part(`broken image ${Date.now()}`, { media: image })));
    assert.equal(e1.kind, 'transient');
    const video: PreparedMedia[] = [
      { platformRef: await brokenUrl(), kind: 'video', altText: null, width: null, height: null },
    ];
    const e2 = await failure(r.adapter.publish(r.session, r.part(`broken video ${Date.now()}`, { media: video })));
    assert.equal(e2.kind, 'transient');
    assert.match(e2.message, /FAILED_DOWNLOADING_VIDEO/);
  });

  test('a block whose post is live is reconciled without a duplicate', async () => {
    r.sandbox.simulator('threads').faults.add({ fault: 'published_but_blocked', operation: 'create_post' });
    const part = r.part(`blocked but live ${Date.now()}`);
    assert.equal((await failure(r.adapter.publish(r.session, part))).kind, 'unknown_outcome');
    const found = await r.adapter.findPublished(r.session, part);
    const held = (await r.held()).filter((p) => p.text === part.text);
    assert.equal(held.length, 1);
    assert.equal(found?.id, held[0]!.id);
  });

  test('a reply whose answer was lost is found among the replies, and a re-send publishes nothing twice', async () => {
    const root = await r.adapter.publish(r.session, r.part(`root ${Date.now()}`));
    r.sandbox.simulator('threads').faults.add({ fault: 'lost_response', operation: 'create_post' });
    const reply = r.part('the reply', { index: 1, parent: root, root });
    assert.equal((await failure(r.adapter.publish(r.session, reply))).kind, 'unknown_outcome');
    const found = await r.adapter.findPublished(r.session, reply);
    const again = await r.adapter.publish(r.session, reply);
    const held = (await r.held()).filter((p) => p.replyTo === root.id);
    assert.equal(held.length, 1);
    assert.equal(found?.id, held[0]!.id);
    assert.equal(again.id, held[0]!.id);
  });

  test('a lost reply is found even when more than a page of newer replies followed it', async () => {
    // The look-up reads the account's replies newest first; a busy account's lost part can sit pages down.
    const own = await rig({}, 100); // 120 replies are more calls than Threads allows an hour
    try {
      const root = await own.adapter.publish(own.session, own.part(`busy root ${Date.now()}`));
      own.sandbox.simulator('threads').faults.add({ fault: 'lost_response', operation: 'create_post' });
      const lost = own.part('the reply that went out', { index: 1, parent: root, root });
      assert.equal((await failure(own.adapter.publish(own.session, lost))).kind, 'unknown_outcome');
      for (let i = 0; i < 120; i++)
        await own.adapter.publish(own.session, own.part(`later reply ${i}`, { index: 1, parent: root, root }));
      const found = await own.adapter.findPublished(own.session, lost);
      const held = (await own.held()).filter((p) => p.text === 'the reply that went out');
      assert.equal(held.length, 1);
      assert.equal(found?.id, held[0]!.id);
    } finally {
      await own.sandbox.close();
    }
  });

  test('replies to a post are listed; a reply goes out as a Threads reply', async () => {
    const post = await r.adapter.publish(r.session, r.part(`conversation ${Date.now()}`));
    const answer = await r.adapter.reply!(r.session, post, 'a reply from Herald');
    const list = await r.adapter.listComments!(r.session, post);
    assert.deepEqual(
      list.map((c) => [c.id, c.text]),
      [[answer.id, 'a reply from Herald']],
    );
    assert.match(list[0]!.url ?? '', /\/web\/@.*\/post\//);
    assert.equal((await r.adapter.fetchMetrics!(r.session, post)).comments, 1);
  });

  test('the reply quota is separate from the post quota and fails the part PLATFORM_QUOTA_EXHAUSTED', async () => {
    const root = await r.adapter.publish(r.session, r.part(`quota root ${Date.now()}`));
    let parent: PublishedPart = root;
    let error: unknown;
    for (let i = 1; i <= 4 && !error; i++) {
      try {
        parent = await r.adapter.publish(r.session, r.part(`reply ${i}`, { index: i, parent, root }));
      } catch (e) {
        error = e;
      }
    }
    assert.ok(isPlatformError(error) && error.code === 'PLATFORM_QUOTA_EXHAUSTED', String(error));
    // Top-level posts still go out.
    assert.ok((await r.adapter.publish(r.session, r.part(`after the replies ${Date.now()}`))).id);
  });

  test('bad requests get the Graph error envelope, never a 500', async () => {
    const call = async (method: 'GET' | 'POST' | 'DELETE', path: string, params: Record<string, string> = {}) => {
      const token = r.session.credentials.accessToken;
      const res = await r.session.http.request(
        method === 'POST'
          ? { method, path, form: { ...params, access_token: token } }
          : { method, path, query: { ...params, access_token: token } },
      );
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status}`);
      const body = res.json<{ error: { code: number; fbtrace_id: string } }>();
      assert.ok(body.error.fbtrace_id);
      return body.error.code;
    };
    const me = r.session.connection.accountId;
    assert.equal(await call('GET', '/v9x/me'), 2500);
    assert.equal(await call('POST', `/v1.0/${me}/threads`, {}), 100);
    assert.equal(await call('POST', `/v1.0/${me}/threads`, { media_type: 'TEXT' }), 100);
    assert.equal(
      await call('POST', `/v1.0/${me}/threads`, { media_type: 'TEXT', text: 'hi', reply_control: 'nobody' }),
      100,
    );
    assert.equal(
      await call('POST', `/v1.0/${me}/threads`, { media_type: 'TEXT', text: 'hi', reply_to_id: '123' }),
      100,
    );
    assert.equal(await call('POST', `/v1.0/${me}/threads`, { media_type: 'CAROUSEL', children: 'a,b' }), 100);
    assert.equal(await call('POST', `/v1.0/${me}/threads`, { media_type: 'IMAGE' }), 100);
    assert.equal(await call('POST', `/v1.0/${me}/threads_publish`), 100);
    assert.equal(await call('DELETE', '/v1.0/123456'), 100);
  });

  test('a published post can be deleted', async () => {
    const post = await r.adapter.publish(r.session, r.part(`to delete ${Date.now()}`));
    await r.adapter.deletePost(r.session, post);
    assert.equal(
      (await r.held()).some((p) => p.id === post.id),
      false,
    );
  });
});

describe('threads containers that expire', () => {
  test('an expired container is a transient failure and nothing is published', async () => {
    const r = await rig({ containerVideoMs: 2000, containerExpiryMs: 300 });
    try {
      const media = await r.adapter.prepareMedia(r.session, [mediaSource(mp4(), 'video/mp4')], {});
      const error = await failure(r.adapter.publish(r.session, r.part(`expiring ${Date.now()}`, { media })));
      assert.equal(error.kind, 'transient');
      assert.equal((await r.held()).length, 0);
    } finally {
      await r.sandbox.close();
    }
  });
});

describe('threads sign-in (OAuth)', () => {
  let t = Date.now();
  let sandbox: RunningSandbox;
  let ctx: OAuthContext;
  const adapter = createPlatformRegistry().get('threads')!;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['threads'], now: () => t });
    ctx = {
      http: createPlatformHttp({ baseUrl: sandbox.baseUrl('threads'), timeoutMs: 3000 }),
      webUrl: sandbox.baseUrl('threads'),
      sandbox: true,
      app: { clientId: '1234567890', clientSecret: 'th-secret' },
      redirectUri: 'https://herald.example/connect/callback',
    };
  });
  after(() => sandbox.close());

  const consent = (decision: 'approve' | 'deny', username = 'th_oauth'): Promise<URL> =>
    consentRedirect(adapter, ctx, {
      state: 's1',
      username,
      decision,
      checkPage: (page) => assert.match(page.text(), /<form[\s\S]*approve[\s\S]*deny/),
    });

  test('authorize → consent → code → long-lived token → the account; denied; replayed; expired', async () => {
    const back = await consent('approve');
    assert.equal(back.searchParams.get('state'), 's1');
    const code = back.searchParams.get('code')!;
    const credentials = await adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const [acc] = await adapter.oauth!.accounts(ctx, credentials);
    assert.equal(acc!.account.handle, 'th_oauth');
    assert.equal((await failure(adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null }))).kind, 'auth_expired');
    assert.equal((await consent('deny')).searchParams.get('error'), 'access_denied');
    const late = (await consent('approve')).searchParams.get('code')!;
    t += 11 * 60_000;
    const expired = await failure(adapter.oauth!.exchangeCode(ctx, { code: late, codeVerifier: null }));
    assert.equal(expired.kind, 'auth_expired');
    assert.match(expired.message, /expired/);
  });

  test('refresh (th_refresh_token) once a day old gives a new working token', async () => {
    const credentials = await adapter.oauth!.exchangeCode(ctx, {
      code: (await consent('approve', 'th_refresh')).searchParams.get('code')!,
      codeVerifier: null,
    });
    const session: PlatformSession = {
      connection: {
        id: 'c',
        accountId: '0',
        handle: 'th_refresh',
        baseUrl: ctx.http.baseUrl,
        settings: {},
        sandbox: true,
      },
      credentials,
      http: ctx.http,
      clock: { now: () => new Date(t) },
    };
    t += 25 * 3600_000;
    const fresh = await adapter.refreshCredentials(session);
    assert.notEqual(fresh.accessToken, credentials.accessToken);
    assert.equal((await adapter.verifyAccount({ ...session, credentials: fresh })).handle, 'th_refresh');
  });
});
