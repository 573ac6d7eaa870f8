// The Threads simulator keeps its state in the sandbox store: published threads with their replies and media files,
// metrics, the rolling quotas and spent codes survive a restart on the same database, ids are never handed out
// twice, and two sandboxes on one database (two API nodes) serve the same posts. Also: a post's page shows its
// thread as Threads would (every part of the account's chain, text with links, images), from any part's URL, and
// each request reads about a page of the store however much an account holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { sandboxSession } from '../../../test/helpers/meta-adapter.ts';
import { jpeg, mediaFetchSettings, mediaSource, png } from '../../../test/helpers/media-sources.ts';
import { createPlatformHttp } from '../../platforms/http.ts';
import { partMemory } from '../../platforms/part-memory.ts';
import { createPlatformRegistry } from '../../platforms/registry.ts';
import type { OutgoingPart, PlatformSession, PublishedPart } from '../../platforms/types.ts';
import { spyStore } from '../../../test/helpers/store-spy.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

const FIXED = 'threads-restart-test-secret';
const adapter = createPlatformRegistry().get('threads')!;

const part = (text: string, extra: Partial<OutgoingPart> = {}): OutgoingPart => ({
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

/** Publishes a thread: the first part (with `media`), then each later part replying to the one before. */
async function thread(session: PlatformSession, texts: string[], media: OutgoingPart['media']) {
  const root = await adapter.publish(session, part(texts[0]!, { media }));
  const parts: PublishedPart[] = [root];
  for (const [i, text] of texts.slice(1).entries())
    parts.push(await adapter.publish(session, part(text, { index: i + 1, parent: parts.at(-1)!, root })));
  return parts;
}

/** The session of an account on one sandbox (the same token reaches any sandbox sharing the secret). */
function on(sandbox: RunningSandbox, session: PlatformSession): PlatformSession {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('threads'), timeoutMs: 5000 });
  return { ...session, http, connection: { ...session.connection, baseUrl: http.baseUrl } };
}

/** A Graph GET with the session's token: status and body. */
async function graph(session: PlatformSession, path: string, query: Record<string, string> = {}) {
  const res = await session.http.request({
    method: 'GET',
    path: `/v1.0${path}`,
    query: { ...query, access_token: session.credentials.accessToken },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Graph bodies, read field by field in assertions
  return { status: res.status, body: res.json<any>() };
}

/** The page at a post's URL on `sandbox` (its URL names the node it was published through). */
async function page(sandbox: RunningSandbox, url: string): Promise<{ status: number; html: string }> {
  const res = await fetch(`${sandbox.url}${new URL(url).pathname}`);
  return { status: res.status, html: await res.text() };
}

const imageUrls = (html: string) => [...html.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1]!);

const connect = (sandbox: RunningSandbox, username: string) =>
  sandboxSession(
    adapter,
    createPlatformHttp({ baseUrl: sandbox.baseUrl('threads'), timeoutMs: 5000 }),
    username,
    `conn_${username}`,
  );

describe('the Threads simulator on PostgreSQL', () => {
  let nodes: SandboxNodes;
  const start = async () => nodes.start({ settings: await mediaFetchSettings() });
  const close = (sandbox: RunningSandbox) => nodes.stop(sandbox);

  before(async () => {
    nodes = await sandboxNodes(['threads'], FIXED);
  });
  after(() => nodes.close());

  test('a restart keeps the token, the thread, its media, metrics, quotas and pages; ids are never reused', async () => {
    const first = await start();
    const session = await connect(first, 'th_restart');
    const image = png(40, 30, 300);
    const media = await adapter.prepareMedia(
      session,
      [mediaSource(image, 'image/png', { altText: 'a small square' })],
      {},
    );
    const [root, second, third] = await thread(
      session,
      ['Before the restart, see https://example.com/herald', 'second part', 'third part'],
      media,
    );
    const earlier = new Set([root!.id, second!.id, third!.id]);
    await close(first);

    const restarted = await start();
    const again = on(restarted, session);
    const read = await graph(again, `/${root!.id}`, { fields: 'text,media_type' });
    assert.equal(read.status, 200, 'the token issued before the restart still works');
    assert.deepEqual(read.body, {
      id: root!.id,
      text: 'Before the restart, see https://example.com/herald',
      media_type: 'IMAGE',
    });
    const replied = await graph(again, `/${third!.id}`, { fields: 'replied_to,root_post' });
    assert.deepEqual([replied.body.replied_to.id, replied.body.root_post.id], [second!.id, root!.id]);
    const replies = await graph(again, `/${root!.id}/replies`, { fields: 'text' });
    assert.deepEqual(
      replies.body.data.map((p: { text: string }) => p.text),
      ['second part'],
    );
    const metrics = await graph(again, `/${root!.id}/insights`, { metric: 'replies' });
    assert.equal(metrics.body.data[0].values[0].value, 1);
    const quotas = await graph(again, `/${session.connection.accountId}/threads_publishing_limit`, {
      fields: 'quota_usage,reply_quota_usage',
    });
    assert.deepEqual(quotas.body.data[0], { quota_usage: 1, reply_quota_usage: 2 }, 'the rolling quotas remember');

    const shown = await page(restarted, root!.url);
    assert.equal(shown.status, 200);
    for (const text of ['Before the restart', 'second part', 'third part', '@th_restart'])
      assert.ok(shown.html.includes(text), `the page shows ${text}`);
    assert.ok(shown.html.includes('href="https://example.com/herald"'), 'the link is live');
    const [src] = imageUrls(shown.html);
    assert.ok(src && shown.html.includes(`<img src="${src}" alt="a small square"`), 'the image is shown');
    const served = await fetch(`${restarted.url}${src}`);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image, 'the image bytes fetched before the restart');

    const next = await adapter.publish(again, part('after the restart'));
    assert.ok(!earlier.has(next.id), `${next.id} is new`);
    assert.ok(BigInt(next.id) > BigInt(third!.id), 'ids keep growing across the restart');
    // Deleted after the restart: gone from reads and its page, the thread's page unchanged.
    await adapter.deletePost(again, next);
    assert.equal((await page(restarted, next.url)).status, 404);
    assert.equal((await restarted.simulator('threads').posts()).filter((p) => !p.deleted).length, 3);
    await close(restarted);
  });

  test('two sandboxes on one database (two API nodes) serve the same posts', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const session = await connect(a, 'th_two_nodes');
    const viaB = on(b, session);
    const [root] = await thread(session, ['posted through node A'], []);
    const reply = await adapter.publish(viaB, part('replied through node B', { index: 1, parent: root!, root: root! }));
    assert.equal((await graph(viaB, `/${root!.id}`, { fields: 'text' })).body.text, 'posted through node A');
    const listed = await graph(session, '/me/replies', { fields: 'id' });
    assert.deepEqual(
      listed.body.data.map((p: { id: string }) => p.id),
      [reply.id],
    );
    const shown = await page(b, root!.url);
    assert.ok(shown.html.includes('posted through node A') && shown.html.includes('replied through node B'));
    await Promise.all([close(a), close(b)]);
  });
});

describe('the page of a Threads post', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['threads'], settings: await mediaFetchSettings() });
  });
  after(() => sandbox.close());

  test('shows the text with its link, the images and every part of the thread, from any part', async () => {
    const session = await connect(sandbox, 'th_page');
    const other = await connect(sandbox, 'th_someone_else');
    const media = await adapter.prepareMedia(
      session,
      [mediaSource(jpeg(40, 40), 'image/jpeg', { altText: 'alt words' }), mediaSource(png(20, 20), 'image/png')],
      {},
    );
    const parts = await thread(
      session,
      ['Read https://example.org/a?b=1 & <more>', 'and the second part', 'the end'],
      media,
    );
    // Someone else's reply is the audience's, not a part of the thread.
    await adapter.publish(other, part('a stranger replies', { index: 1, parent: parts[0]!, root: parts[0]! }));
    for (const p of parts) {
      const shown = await page(sandbox, p.url);
      assert.equal(shown.status, 200);
      const html = shown.html;
      assert.ok(html.includes('<a style="color:#000000" href="https://example.org/a?b=1"'), 'the link');
      assert.ok(html.includes('&amp; &lt;more&gt;'), 'the text escaped');
      assert.equal(imageUrls(html).length, 2, 'both images');
      assert.ok(html.includes(`alt="alt words"`));
      assert.ok(
        html.indexOf('Read ') < html.indexOf('and the second part') &&
          html.indexOf('and the second part') < html.indexOf('the end'),
        'the parts in order',
      );
      assert.ok(!html.includes('a stranger replies'));
      assert.ok(html.includes('@th_page') && html.includes('1/3'), 'the account and the part count');
    }
    assert.equal((await fetch(`${sandbox.baseUrl('threads')}/web/@th_page/post/B`)).status, 404);
  });
});

describe('what a Threads request reads of the store', () => {
  const spy = spyStore();
  let sandbox: RunningSandbox;
  let session: PlatformSession;
  before(async () => {
    sandbox = await startSandbox({
      platforms: ['threads'],
      settings: await mediaFetchSettings(),
      store: () => spy.store,
    });
    session = await connect(sandbox, 'th_busy');
    for (let i = 0; i < 30; i++) await adapter.publish(session, part(`history ${i}`));
  });
  after(() => sandbox.close());

  test('each page of the threads edge reads one page, and the cursor pages through every post', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      spy.takeScanned();
      const res = await graph(session, `/${session.connection.accountId}/threads`, {
        fields: 'id,text',
        limit: '5',
        ...(after ? { after } : {}),
      });
      assert.ok(spy.takeScanned() <= 6, `page ${page} reads one page and one more`);
      seen.push(...(res.body.data as Array<{ text: string }>).map((p) => p.text));
      if (!res.body.paging?.next) break;
      after = res.body.paging.cursors.after;
    }
    assert.equal(seen.length, 30);
    assert.equal(new Set(seen).size, 30, 'no post twice');
    assert.equal(seen[0], 'history 29', 'newest first');
    const bad = await graph(session, `/${session.connection.accountId}/threads`, { after: 'not-a-cursor' });
    assert.equal(bad.status, 400);
  });

  test("a post's replies and its page read that post's replies and thread, not every post", async () => {
    const other = await connect(sandbox, 'th_replier');
    const parts = await thread(session, ['thread root', 'thread second', 'thread third'], []);
    await adapter.publish(other, part('a stranger replies', { index: 1, parent: parts[0]!, root: parts[0]! }));
    spy.takeScanned();
    const comments = await adapter.listComments!(session, parts[0]!);
    assert.deepEqual(comments.map((c) => c.text).sort(), ['a stranger replies', 'thread second']);
    assert.ok(spy.takeScanned() <= 2, 'only the two direct replies are read');
    const html = (await page(sandbox, parts[1]!.url)).html;
    assert.ok(
      ['thread root', 'thread second', 'thread third'].every((t) => html.includes(t)),
      'every part shown',
    );
    assert.ok(!html.includes('a stranger replies'));
    assert.ok(spy.takeScanned() <= 2, "only the account's two replies are read");
  });

  test('served media files are not sniffed by browsers and run in a sandbox', async () => {
    const media = await adapter.prepareMedia(session, [mediaSource(png(8, 8), 'image/png')], {});
    const [root] = await thread(session, ['with an image'], media);
    const [src] = imageUrls((await page(sandbox, root!.url)).html);
    const served = await fetch(src!.startsWith('http') ? src! : `${sandbox.url}${src}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
  });
});
