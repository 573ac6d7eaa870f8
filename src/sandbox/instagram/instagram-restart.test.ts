// The Instagram simulator keeps its state in the sandbox store: published media, their comments and metrics, the
// fetched media files, the quota and spent codes survive a restart on the same database, ids are never handed out
// twice, and two sandboxes on one database (two API nodes) serve the same media and publish a container once.
// Also: a post's page shows it as Instagram would (caption with links, its images and video, the owner's comments),
// and a listing reads about a page of the store however many media an account has.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { sandboxSession } from '../../../test/helpers/meta-adapter.ts';
import { jpeg, mediaFetchSettings, mediaSource, mp4, servedUrl } from '../../../test/helpers/media-sources.ts';
import { pollFor } from '../../../test/helpers/poll.ts';
import { createPlatformHttp } from '../../platforms/http.ts';
import { partMemory } from '../../platforms/part-memory.ts';
import { createPlatformRegistry } from '../../platforms/registry.ts';
import type { OutgoingPart, PlatformSession, PreparedMedia } from '../../platforms/types.ts';
import { spyStore } from '../../../test/helpers/store-spy.ts';
import { edgeOwner } from '../meta/publishing.ts';
import { MEDIA, type IgMedia } from './state.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

const FIXED = 'instagram-restart-test-secret';
const V = 'v23.0';
const adapter = createPlatformRegistry().get('instagram')!;

const part = (text: string, media: PreparedMedia[], options: Record<string, unknown> = {}): OutgoingPart => ({
  index: 0,
  text,
  media,
  parent: null,
  root: null,
  key: adapter.newPartKey(new Date()),
  firstSentAt: new Date(),
  options,
  ...partMemory(),
});

/** The session of an account on one sandbox (the same token reaches any sandbox sharing the secret). */
function on(sandbox: RunningSandbox, session: PlatformSession): PlatformSession {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('instagram'), timeoutMs: 5000 });
  return { ...session, http, connection: { ...session.connection, baseUrl: http.baseUrl } };
}

/** A Graph GET with the session's token: status and body. */
async function graph(session: PlatformSession, path: string, query: Record<string, string> = {}) {
  const res = await session.http.request({
    method: 'GET',
    path: `/${V}${path}`,
    query: { ...query, access_token: session.credentials.accessToken },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Graph bodies, read field by field in assertions
  return { status: res.status, body: res.json<any>() };
}

/** The page at a post's URL on `sandbox` (its URL names the node it was published through). */
async function page(sandbox: RunningSandbox, url: string): Promise<{ status: number; html: string }> {
  const path = new URL(url).pathname;
  const res = await fetch(`${sandbox.url}${path}`);
  return { status: res.status, html: await res.text() };
}

/** The media URLs a page shows, in order. */
const mediaUrls = (html: string) => [...html.matchAll(/<(?:img|video)[^>]* src="([^"]+)"/g)].map((m) => m[1]!);

describe('the Instagram simulator on PostgreSQL', () => {
  let nodes: SandboxNodes;
  const start = async () => nodes.start({ settings: await mediaFetchSettings() });
  const close = (sandbox: RunningSandbox) => nodes.stop(sandbox);

  before(async () => {
    nodes = await sandboxNodes(['instagram'], FIXED);
  });
  after(() => nodes.close());

  test('a restart keeps the token, media, comments, metrics, quota, files and pages; ids are never reused', async () => {
    const first = await start();
    const session = await sandboxSession(
      adapter,
      createPlatformHttp({ baseUrl: first.baseUrl('instagram'), timeoutMs: 5000 }),
      'ig_restart',
      'conn_ig',
    );
    const image = jpeg(40, 40);
    const carousel = await adapter.publish(
      session,
      part(
        'Before the restart, see https://example.com/herald #sandbox',
        await adapter.prepareMedia(
          session,
          [
            mediaSource(image, 'image/jpeg', { width: 40, height: 40, altText: 'a small square' }),
            mediaSource(jpeg(40, 50), 'image/jpeg', { width: 40, height: 50 }),
          ],
          {},
        ),
      ),
    );
    await adapter.ownComments!.create(session, carousel, part('the first comment', []));
    const single = await adapter.publish(
      session,
      part('a single image', await adapter.prepareMedia(session, [mediaSource(jpeg(50, 40), 'image/jpeg')], {})),
    );
    const comments = await graph(session, `/${carousel.id}/comments`, { fields: 'id,text' });
    const earlier = new Set([carousel.id, single.id, ...comments.body.data.map((c: { id: string }) => c.id)]);
    await close(first);

    const restarted = await start();
    const again = on(restarted, session);
    const read = await graph(again, `/${carousel.id}`, { fields: 'caption,media_type,comments_count,shortcode' });
    assert.equal(read.status, 200, 'the token issued before the restart still works');
    assert.equal(read.body.caption, 'Before the restart, see https://example.com/herald #sandbox');
    assert.equal(read.body.media_type, 'CAROUSEL_ALBUM');
    assert.equal(read.body.comments_count, 1);
    assert.deepEqual((await graph(again, `/${carousel.id}/comments`, { fields: 'id,text' })).body, comments.body);
    const insights = await graph(again, `/${carousel.id}/insights`, { metric: 'comments' });
    assert.equal(insights.body.data[0].values[0].value, 1, 'the metric counts the comment made before');
    const listed = await graph(again, '/me/media', { fields: 'id' });
    assert.deepEqual(
      listed.body.data.map((m: { id: string }) => m.id),
      [single.id, carousel.id],
    );
    const limit = await graph(again, `/${session.connection.accountId}/content_publishing_limit`);
    assert.equal(limit.body.data[0].quota_usage, 2, 'the rolling quota remembers both publishes');

    const shown = await page(restarted, carousel.url);
    assert.equal(shown.status, 200);
    for (const text of ['Before the restart', 'the first comment', '@ig_restart', '#E1306C'])
      assert.ok(shown.html.includes(text), `the page shows ${text}`);
    assert.ok(shown.html.includes('href="https://example.com/herald"'), 'the link is live');
    const urls = mediaUrls(shown.html);
    assert.equal(urls.length, 2, 'both carousel images are shown');
    assert.ok(shown.html.includes(`<img src="${urls[0]}" alt="a small square"`));
    const served = await fetch(`${restarted.url}${urls[0]}`);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image, 'the image bytes fetched before the restart');

    const next = await adapter.publish(
      again,
      part('after the restart', await adapter.prepareMedia(again, [mediaSource(jpeg(40, 40), 'image/jpeg')], {})),
    );
    assert.ok(!earlier.has(next.id), `${next.id} is new`);
    assert.ok(BigInt(next.id) > BigInt(single.id), 'ids keep growing across the restart');
    assert.equal((await restarted.simulator('instagram').posts()).length, 3);
    await close(restarted);
  });

  test('two sandboxes on one database (two API nodes) serve the same media and publish a container once', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const session = await sandboxSession(
      adapter,
      createPlatformHttp({ baseUrl: a.baseUrl('instagram'), timeoutMs: 5000 }),
      'ig_two_nodes',
      'conn_ig2',
    );
    const viaB = on(b, session);
    const posted = await adapter.publish(
      session,
      part('posted through node A', await adapter.prepareMedia(session, [mediaSource(jpeg(40, 40), 'image/jpeg')], {})),
    );
    assert.equal((await graph(viaB, `/${posted.id}`, { fields: 'caption' })).body.caption, 'posted through node A');
    assert.ok((await page(b, posted.url)).html.includes('posted through node A'));

    // One container, published through both nodes at the same time: one post, the other call refused.
    const user = session.connection.accountId;
    const made = await session.http.request({
      method: 'POST',
      path: `/${V}/${user}/media`,
      form: {
        image_url: await servedUrl(`ig-race-${Date.now()}`, jpeg(40, 40), 'image/jpeg'),
        caption: 'raced',
        access_token: session.credentials.accessToken,
      },
    });
    const container = made.json<{ id: string }>().id;
    await pollFor(
      'the container is FINISHED on node B',
      async () => (await graph(viaB, `/${container}`, { fields: 'status_code' })).body.status_code === 'FINISHED',
      20_000,
    );
    const publish = (s: PlatformSession) =>
      s.http.request({
        method: 'POST',
        path: `/${V}/${user}/media_publish`,
        form: { creation_id: container, access_token: s.credentials.accessToken },
      });
    const answers = await Promise.all([publish(session), publish(viaB)]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400]);
    const raced = (await a.simulator('instagram').posts()).filter((p) => p.text === 'raced');
    assert.equal(raced.length, 1, 'published once');
    await Promise.all([close(a), close(b)]);
  });

  test('a container claimed by a node that stopped before writing its media is finished by the next read', async () => {
    const node = await start();
    const session = await sandboxSession(
      adapter,
      createPlatformHttp({ baseUrl: node.baseUrl('instagram'), timeoutMs: 5000 }),
      'ig_stopped',
      'conn_ig3',
    );
    const user = session.connection.accountId;
    const made = await session.http.request({
      method: 'POST',
      path: `/${V}/${user}/media`,
      form: {
        image_url: await servedUrl(`ig-stopped-${Date.now()}`, jpeg(40, 40), 'image/jpeg'),
        caption: 'claimed, then the node stopped',
        access_token: session.credentials.accessToken,
      },
    });
    const container = made.json<{ id: string }>().id;
    // What media_publish leaves when its node stops right after the claim: the container PUBLISHED, no media yet.
    const { kit } = node.simulator('instagram');
    const mediaId = (await kit.store.next('graph-id')).toString();
    await kit.store.update<Record<string, unknown>>('container', container, (c) => ({
      ...c,
      publishedAs: mediaId,
      publishedAt: kit.now(),
    }));
    assert.equal((await graph(session, '/me/media')).body.data.length, 0);
    const status = await graph(session, `/${container}`, { fields: 'status_code' });
    assert.equal(status.body.status_code, 'PUBLISHED');
    const listed = await graph(session, '/me/media', { fields: 'id,caption' });
    assert.deepEqual(listed.body.data, [{ id: mediaId, caption: 'claimed, then the node stopped' }]);
    await close(node);
  });
});

describe('the page of an Instagram post', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['instagram'], settings: await mediaFetchSettings() });
  });
  after(() => sandbox.close());

  test('shows the caption with its link, every image and video of a carousel, and the first comment', async () => {
    const session = await sandboxSession(
      adapter,
      createPlatformHttp({ baseUrl: sandbox.baseUrl('instagram'), timeoutMs: 5000 }),
      'ig_page',
      'conn_ig_page',
    );
    const media = await adapter.prepareMedia(
      session,
      [
        mediaSource(jpeg(40, 40), 'image/jpeg', { width: 40, height: 40, altText: 'alt words' }),
        mediaSource(mp4(), 'video/mp4'),
      ],
      {},
    );
    const post = await adapter.publish(session, part('Read https://example.org/a?b=1 & <more>', media));
    await adapter.ownComments!.create(session, post, part('and a word below', []));
    const shown = await page(sandbox, post.url);
    assert.equal(shown.status, 200);
    assert.ok(shown.html.includes('<a style="color:#E1306C" href="https://example.org/a?b=1"'), 'the link');
    assert.ok(shown.html.includes('&amp; &lt;more&gt;'), 'the caption escaped');
    assert.ok(shown.html.indexOf('Read ') < shown.html.indexOf('and a word below'), 'the comment below the post');
    const urls = mediaUrls(shown.html);
    assert.equal(urls.length, 2);
    assert.ok(shown.html.includes(`<img src="${urls[0]}" alt="alt words"`), 'the image');
    assert.ok(shown.html.includes(`<video controls preload="none" src="${urls[1]}"`), 'the video');
    assert.equal((await fetch(`${sandbox.url}${urls[1]}`)).headers.get('content-type'), 'video/mp4');
    // A post that never was, and a media URL that was never handed out, answer 404.
    assert.equal((await fetch(`${sandbox.baseUrl('instagram')}/web/p/B/`)).status, 404);
    assert.equal((await fetch(`${sandbox.baseUrl('instagram')}/cdn/AAAAAAAAAAAAAAAAAAAAAA`)).status, 404);
  });
});

describe('what an Instagram listing reads of the store', () => {
  const spy = spyStore();
  let sandbox: RunningSandbox;
  let session: PlatformSession;
  /** Media of the account, written straight to the store (publishing each through Graph adds nothing here). */
  const seed = async (edge: IgMedia['edge'], count: number, at: (i: number) => number) => {
    for (let i = 0; i < count; i++) {
      const id = `17${edge === 'media' ? 8 : 9}${String(i).padStart(13, '0')}`;
      const media: IgMedia = {
        id,
        owner: session.connection.accountId,
        containerId: `c${id}`,
        caption: `${edge} ${i}`,
        mediaType: 'IMAGE',
        productType: edge === 'media' ? 'FEED' : 'STORY',
        edge,
        username: 'ig_busy',
        shortcode: `s${id}`,
        items: 1,
        media: [],
        timestamp: at(i),
        commentCount: 0,
        deleted: false,
      };
      await spy.store.put(MEDIA, id, media, edgeOwner(media.owner, edge));
    }
  };
  before(async () => {
    sandbox = await startSandbox({ platforms: ['instagram'], store: () => spy.store });
    session = await sandboxSession(
      adapter,
      createPlatformHttp({ baseUrl: sandbox.baseUrl('instagram'), timeoutMs: 5000 }),
      'ig_busy',
      'conn_ig_busy',
    );
    const now = Date.now();
    await seed('media', 30, (i) => now - (30 - i) * 60_000);
    // Stories of the last three days, one an hour: the last 24 hours' are listed.
    await seed('stories', 72, (i) => now - (72 - i) * 3600_000 + 60_000);
  });
  after(() => sandbox.close());

  for (const edge of ['media', 'stories'] as const)
    test(`each page of the ${edge} edge reads one page, and the cursor pages through every live one`, async () => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 20; page++) {
        spy.takeScanned();
        const res = await graph(session, `/${session.connection.accountId}/${edge}`, {
          fields: 'id,caption',
          limit: '5',
          ...(after ? { after } : {}),
        });
        assert.ok(spy.takeScanned() <= 6, `page ${page} reads one page and one more`);
        seen.push(...(res.body.data as Array<{ caption: string }>).map((m) => m.caption));
        if (!res.body.paging?.next) break;
        after = res.body.paging.cursors.after;
      }
      const expected = edge === 'media' ? 30 : 24;
      assert.equal(seen.length, expected, seen.join());
      assert.equal(new Set(seen).size, expected, 'none twice');
      assert.equal(seen[0], edge === 'media' ? 'media 29' : 'stories 71', 'newest first');
    });
});
