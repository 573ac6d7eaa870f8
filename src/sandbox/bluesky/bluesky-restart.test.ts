// The Bluesky simulator keeps its repos in PostgreSQL: published posts (a thread with an image), their pages and blobs,
// accounts and app passwords survive a restart, record keys it picks never repeat, and two API nodes on one database
// serve the same PDS. Driven through the adapter, as Herald publishes. Also: each request reads about a page of the
// store however many records a repo holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPlatformHttp } from '../../platforms/http.ts';
import { partMemory } from '../../platforms/part-memory.ts';
import { createPlatformRegistry } from '../../platforms/registry.ts';
import type { OutgoingPart, PlatformSession } from '../../platforms/types.ts';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { mediaSource, png } from '../../../test/helpers/media-sources.ts';
import { spyStore } from '../../../test/helpers/store-spy.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

const SECRET = 'bluesky-restart-test-secret';
const adapter = createPlatformRegistry().get('bluesky')!;

let nodes: SandboxNodes;

before(async () => {
  nodes = await sandboxNodes(['bluesky'], SECRET);
});
after(() => nodes.close());

/** A sandbox node on the test database: the same secret each time, as Herald derives it from its own. */
const node = (now?: () => number): Promise<RunningSandbox> => nodes.start({ now });
const stop = (sandbox: RunningSandbox): Promise<void> => nodes.stop(sandbox);

/** The same connection, reaching whichever node is given (a restarted sandbox listens on a new port). */
function sessionOn(sandbox: RunningSandbox, session: PlatformSession): PlatformSession {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('bluesky'), timeoutMs: 3000 });
  return { ...session, http, connection: { ...session.connection, baseUrl: http.baseUrl } };
}

async function connect(sandbox: RunningSandbox, username: string) {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('bluesky'), timeoutMs: 3000 });
  const { account, credentials } = await adapter.connectSandbox(http, { username });
  const session: PlatformSession = {
    connection: {
      id: 'conn_bsky',
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
  return session;
}

function part(text: string, extra: Partial<OutgoingPart> = {}): OutgoingPart {
  return {
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
  };
}

/** A published URL on another node: same path, that node's address. */
const on = (sandbox: RunningSandbox, url: string) => `${sandbox.url}${new URL(url).pathname}`;

async function page(url: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  return res.text();
}

/** A post read back through the XRPC API (getRecord by its AT URI). */
async function getRecord(sandbox: RunningSandbox, uri: string) {
  const [, , repo = '', collection = '', rkey = ''] = uri.split('/');
  const query = new URLSearchParams({ repo, collection, rkey });
  const res = await fetch(`${sandbox.baseUrl('bluesky')}/xrpc/com.atproto.repo.getRecord?${query}`);
  assert.equal(res.status, 200, `${uri}: ${await res.clone().text()}`);
  return (await res.json()) as { uri: string; value: { text: string } };
}

/** A record written with no key of the client's: the PDS picks a TID. */
async function createWithoutKey(sandbox: RunningSandbox, session: PlatformSession, text: string) {
  const res = await fetch(`${sandbox.baseUrl('bluesky')}/xrpc/com.atproto.repo.createRecord`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.credentials.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      repo: session.connection.accountId,
      collection: 'app.bsky.feed.post',
      record: { $type: 'app.bsky.feed.post', text, createdAt: new Date(0).toISOString() },
    }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { uri: string; cid: string; commit: { cid: string; rev: string } };
}

describe('the Bluesky sandbox survives a restart', () => {
  test('posts, thread, page, blob bytes, account and app password survive; new keys and commits never repeat', async () => {
    // One fixed clock for both runs: a restart within the same millisecond must still pick new keys.
    const frozen = () => Date.parse('2026-03-01T12:00:00Z');
    const first = await node(frozen);
    let session = await connect(first, 'restart_alice');
    const image = png(3, 2, 300);
    const [media] = await adapter.prepareMedia(
      session,
      [mediaSource(image, 'image/png', { altText: 'A tiny chart' })],
      {},
    );
    const rootPart = part('Launch notes: https://example.com/launch #sandbox', { media: [media!] });
    const root = await adapter.publish(session, rootPart);
    const reply = await adapter.publish(session, part('Second part of the thread', { index: 1, parent: root, root }));
    const picked = await createWithoutKey(first, session, 'keyless before');
    await stop(first);

    const second = await node(frozen);
    session = sessionOn(second, session);
    // The same token still works, and the account's app password still signs in.
    assert.equal((await adapter.verifyAccount(session)).accountId, session.connection.accountId);
    const login = await adapter.passwordLogin!.login(session.http, {
      identifier: session.connection.handle,
      password: String(session.credentials.appPassword),
    });
    assert.equal(login.account.accountId, session.connection.accountId);
    // The posts are there, read through the API.
    assert.equal((await getRecord(second, root.id)).value.text, rootPart.text);
    assert.equal((await getRecord(second, reply.id)).value.text, 'Second part of the thread');
    const held = await second.simulator('bluesky').posts();
    assert.deepEqual(
      held.map((p) => p.id),
      [root.id, reply.id, picked.uri],
    );
    // The page of the first post: its text with the link, the image, and the thread's second part.
    const html = await page(on(second, root.url));
    assert.match(html, /Launch notes: <a [^>]*href="https:\/\/example.com\/launch"/);
    assert.match(html, /Second part of the thread/);
    const src = /<img src="([^"]+)" alt="A tiny chart"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(src, 'the image is on the page');
    assert.ok(src.startsWith(second.baseUrl('bluesky')), src);
    const bytes = await fetch(src);
    assert.equal(bytes.status, 200);
    assert.equal(bytes.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), image);
    // A key the PDS picks after the restart, in the same millisecond, is new; so is the commit.
    const again = await createWithoutKey(second, session, 'keyless after');
    assert.notEqual(again.uri, picked.uri);
    assert.notEqual(again.commit.rev, picked.commit.rev);
    assert.notEqual(again.commit.cid, picked.commit.cid);
    const next = await adapter.publish(session, part('After the restart'));
    assert.ok(![root.id, reply.id, picked.uri].includes(next.id));
    await stop(second);
  });

  test('two nodes on one database serve the same repos at the same time', async () => {
    const [a, b] = await Promise.all([node(), node()]);
    const onA = await connect(a, 'two_nodes_bob');
    const onB = sessionOn(b, onA);
    const [media] = await adapter.prepareMedia(onA, [mediaSource(png(2, 2), 'image/png')], {});
    const root = await adapter.publish(onA, part('Written on node A', { media: [media!] }));
    // Node B sees A's post and its blob, and threads a reply onto it (its check reads A's record).
    const reply = await adapter.publish(onB, part('Replied on node B', { index: 1, parent: root, root }));
    assert.equal((await getRecord(a, reply.id)).value.text, 'Replied on node B');
    const html = await page(on(a, root.url));
    assert.match(html, /Written on node A/);
    assert.match(html, /Replied on node B/);
    assert.deepEqual(
      (await b.simulator('bluesky').posts()).filter((p) => p.account === onA.connection.accountId).map((p) => p.text),
      ['Written on node A', 'Replied on node B'],
    );
    await Promise.all([stop(a), stop(b)]);
  });
});

describe('the page of a Bluesky post', () => {
  test('shows the display name, the text with its link, the image, every thread part from any part; deleted is 404', async () => {
    const sandbox = await node();
    const session = await connect(sandbox, 'page_carol');
    const profile = await fetch(`${sandbox.baseUrl('bluesky')}/xrpc/com.atproto.repo.createRecord`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.credentials.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: session.connection.accountId,
        collection: 'app.bsky.actor.profile',
        rkey: 'self',
        record: { $type: 'app.bsky.actor.profile', displayName: 'Carol Example' },
      }),
    });
    assert.equal(profile.status, 200);
    const [media] = await adapter.prepareMedia(session, [mediaSource(png(4, 4), 'image/png', { altText: 'Logo' })], {});
    const one = await adapter.publish(session, part('One: read https://example.org/a', { media: [media!] }));
    const two = await adapter.publish(session, part('Two', { index: 1, parent: one, root: one }));
    const three = await adapter.publish(session, part('Three', { index: 2, parent: two, root: one }));
    for (const url of [one.url, three.url]) {
      const html = await page(url);
      assert.match(html, /<strong>Carol Example<\/strong> <span class="handle">@page-carol\.test<\/span>/);
      assert.match(html, /<a [^>]*href="https:\/\/example.org\/a"/);
      assert.match(html, /<img src="[^"]*com\.atproto\.sync\.getBlob[^"]*" alt="Logo"/);
      const order = ['One: read', 'Two', 'Three'].map((text) => html.indexOf(`<p>${text}`));
      assert.ok(
        order.every((i, n) => i > 0 && (n === 0 || i > order[n - 1]!)),
        `parts in order: ${order}`,
      );
    }
    await adapter.deletePost(session, three);
    assert.equal((await fetch(three.url)).status, 404);
    assert.doesNotMatch(await page(one.url), /Three/);
    await stop(sandbox);
  });
});

describe('what a Bluesky request reads of the store', () => {
  const spy = spyStore();
  let sandbox: RunningSandbox;
  let session: PlatformSession;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['bluesky'], store: () => spy.store });
    session = await connect(sandbox, 'busy-dora');
    for (let i = 0; i < 30; i++) await createWithoutKey(sandbox, session, `history ${i}`);
  });
  after(() => sandbox.close());

  test('each page of listRecords reads one page, and the cursor pages through every record', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      spy.takeScanned();
      const query = new URLSearchParams({
        repo: session.connection.accountId,
        collection: 'app.bsky.feed.post',
        limit: '5',
        ...(cursor ? { cursor } : {}),
      });
      const res = await fetch(`${sandbox.baseUrl('bluesky')}/xrpc/com.atproto.repo.listRecords?${query}`);
      const body = (await res.json()) as { records: Array<{ value: { text: string } }>; cursor?: string };
      assert.ok(spy.takeScanned() <= 5, `page ${page} reads one page`);
      seen.push(...body.records.map((r) => r.value.text));
      cursor = body.cursor;
      if (!cursor) break;
    }
    assert.equal(seen.length, 30);
    assert.equal(new Set(seen).size, 30, 'no record twice');
    assert.equal(seen[0], 'history 29', 'newest first');
  });

  test("a post's page reads its thread's parts, not the repo's history", async () => {
    const one = await adapter.publish(session, part('thread root'));
    const two = await adapter.publish(session, part('thread second', { index: 1, parent: one, root: one }));
    await adapter.publish(session, part('thread third', { index: 2, parent: two, root: one }));
    spy.takeScanned();
    const html = await page(two.url);
    assert.ok(
      ['thread root', 'thread second', 'thread third'].every((t) => html.includes(t)),
      'every part shown',
    );
    assert.ok(spy.takeScanned() <= 2, 'only the two replies are read');
  });
});
