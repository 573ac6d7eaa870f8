// The LinkedIn simulator keeps its state in PostgreSQL: after a restart the next post gets a new URN (the bug: the
// counter began again and a second Herald post carried the first one's id, its URL showing the other text), published
// posts, their pages and media bytes survive, spent codes and revoked tokens stay so, and two API nodes on one
// database serve the same sandbox and refuse the same duplicates, even sent at once. Driven through the adapter, as
// Herald publishes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPlatformHttp } from '../../platforms/http.ts';
import { currentVersion } from '../../platforms/linkedin/linkedin.fixture.ts';
import { partMemory } from '../../platforms/part-memory.ts';
import { createPlatformRegistry } from '../../platforms/registry.ts';
import type { OutgoingPart, PlatformSession } from '../../platforms/types.ts';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { mediaSource, mp4, png } from '../../../test/helpers/media-sources.ts';
import type { RunningSandbox } from '../server.ts';

const SECRET = 'linkedin-restart-test-secret';
// Media are available at once, and a video goes up in 1,000-byte parts (each its own blob).
const SETTINGS = {
  linkedinImageProcessingMs: 0,
  linkedinVideoProcessingMs: 0,
  linkedinDocumentProcessingMs: 0,
  linkedinVideoPartBytes: 1000,
};
const CLIENT = { client_id: 'herald-sandbox', client_secret: 'herald-sandbox-secret' };
const adapter = createPlatformRegistry({ linkedin: { apiVersion: currentVersion() } }).get('linkedin')!;

let nodes: SandboxNodes;

before(async () => {
  nodes = await sandboxNodes(['linkedin'], SECRET);
});
after(() => nodes.close());

/** A sandbox node on the test database: the same secret each time, as Herald derives it from its own. */
const node = (): Promise<RunningSandbox> => nodes.start({ settings: SETTINGS });
const stop = (sandbox: RunningSandbox): Promise<void> => nodes.stop(sandbox);

async function connect(sandbox: RunningSandbox, username: string): Promise<PlatformSession> {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('linkedin'), timeoutMs: 3000 });
  const { account, credentials } = await adapter.connectSandbox(http, { username });
  return {
    connection: {
      id: 'conn_li',
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
}

/** The same connection, reaching whichever node is given (a restarted sandbox listens on a new port). */
function sessionOn(sandbox: RunningSandbox, session: PlatformSession): PlatformSession {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('linkedin'), timeoutMs: 3000 });
  return { ...session, http, connection: { ...session.connection, baseUrl: http.baseUrl } };
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

/** A raw /rest call with the version headers and the session's token. */
function rest(sandbox: RunningSandbox, session: PlatformSession, path: string, init: RequestInit = {}) {
  return fetch(`${sandbox.baseUrl('linkedin')}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${session.credentials.accessToken}`,
      'linkedin-version': currentVersion(),
      'x-restli-protocol-version': '2.0.0',
      'content-type': 'application/json',
    },
  });
}

/** A published URL on another node: same path, that node's address. */
const on = (sandbox: RunningSandbox, url: string) => `${sandbox.url}${new URL(url).pathname}`;

async function page(url: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  return res.text();
}

/** The media a page shows, by tag. */
function mediaUrls(html: string, tag: 'img' | 'video'): string[] {
  return [...html.matchAll(new RegExp(`<${tag}[^>]* src="([^"]+)"`, 'g'))].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

async function bytesOf(url: string, type: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  assert.equal(res.headers.get('content-type'), type);
  return Buffer.from(await res.arrayBuffer());
}

/** An authorization code for `username`, approved at once (a standalone sandbox trusts its caller). */
async function code(sandbox: RunningSandbox, username: string): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT.client_id,
    redirect_uri: 'https://app.example/callback',
    scope: 'openid profile w_member_social',
    state: 'st',
    sandbox_username: username,
  });
  const res = await fetch(`${sandbox.baseUrl('linkedin')}/oauth/v2/authorization?${query}`, { redirect: 'manual' });
  const location = new URL(res.headers.get('location') ?? '');
  return location.searchParams.get('code') ?? '';
}

function exchange(sandbox: RunningSandbox, authorization: string) {
  return fetch(`${sandbox.baseUrl('linkedin')}/oauth/v2/accessToken`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...CLIENT,
      grant_type: 'authorization_code',
      code: authorization,
      redirect_uri: 'https://app.example/callback',
    }),
  });
}

describe('the LinkedIn sandbox survives a restart', () => {
  test('the next post after a restart gets a new URN; posts, pages, media bytes, spent codes and revocations survive', async () => {
    const first = await node();
    let session = await connect(first, 'restart_dana');
    const image = png(5, 4, 400);
    const video = mp4(2500);
    const [picture] = await adapter.prepareMedia(
      session,
      [mediaSource(image, 'image/png', { altText: 'A bar chart' })],
      {},
    );
    const [clip] = await adapter.prepareMedia(session, [mediaSource(video, 'video/mp4')], {});
    const withImage = await adapter.publish(
      session,
      part('Quarterly notes: https://example.com/q3', { media: [picture!] }),
    );
    const withVideo = await adapter.publish(session, part('The launch video', { media: [clip!] }));
    // A code already exchanged, and a token revoked, before the restart.
    const spent = await code(first, 'restart_spent');
    assert.equal((await exchange(first, spent)).status, 200);
    const other = await connect(first, 'restart_revoked');
    const revoked = await fetch(`${first.baseUrl('linkedin')}/oauth/v2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...CLIENT, token: other.credentials.accessToken }),
    });
    assert.equal(revoked.status, 200);
    await stop(first);

    const second = await node();
    session = sessionOn(second, session);
    // The same token works, and the next post is a new URN: not the first one again (the bug).
    assert.equal((await adapter.verifyAccount(session)).accountId, session.connection.accountId);
    const next = await adapter.publish(session, part('Posted after the restart'));
    assert.ok(![withImage.id, withVideo.id].includes(next.id), `${next.id} was handed out before the restart`);
    assert.ok(BigInt(next.id.split(':').pop()!) > BigInt(withVideo.id.split(':').pop()!));
    // The earlier posts are there, read through the API; the first one's page still shows its own text.
    const read = await rest(second, session, `/rest/posts/${encodeURIComponent(withImage.id)}`);
    assert.equal(read.status, 200);
    assert.match(((await read.json()) as { commentary: string }).commentary, /Quarterly notes/);
    const html = await page(on(second, withImage.url));
    assert.match(html, /Quarterly notes: <a [^>]*href="https:\/\/example.com\/q3"/);
    assert.doesNotMatch(html, /Posted after the restart/);
    const [src = ''] = mediaUrls(html, 'img');
    assert.ok(src.startsWith(second.baseUrl('linkedin')), src);
    assert.match(html, /alt="A bar chart"/);
    assert.deepEqual(await bytesOf(src, 'image/png'), image);
    // The video's three parts, each its own blob, come back as one file.
    const [videoSrc = ''] = mediaUrls(await page(on(second, withVideo.url)), 'video');
    assert.deepEqual(await bytesOf(videoSrc, 'video/mp4'), video);
    // The code stays spent and the revoked token stays refused.
    assert.equal((await exchange(second, spent)).status, 400);
    const userinfo = await fetch(`${second.baseUrl('linkedin')}/v2/userinfo`, {
      headers: { authorization: `Bearer ${other.credentials.accessToken}` },
    });
    assert.equal(userinfo.status, 401);
    assert.equal(((await userinfo.json()) as { code: string }).code, 'REVOKED_ACCESS_TOKEN');
    await stop(second);
  });

  test('two nodes on one database serve the same posts and media at the same time', async () => {
    const [a, b] = await Promise.all([node(), node()]);
    const onA = await connect(a, 'two_nodes_erin');
    const onB = sessionOn(b, onA);
    // An image uploaded through node A, posted through node B; the post read and found through node A.
    const [picture] = await adapter.prepareMedia(onA, [mediaSource(png(2, 2), 'image/png')], {});
    const post = await adapter.publish(onB, part('Across two nodes', { media: [picture!] }));
    const read = await rest(a, onA, `/rest/posts/${encodeURIComponent(post.id)}`);
    assert.equal(read.status, 200);
    const author = encodeURIComponent(onA.connection.accountId);
    const found = (await (await rest(a, onA, `/rest/posts?q=author&author=${author}`)).json()) as {
      elements: Array<{ id: string }>;
    };
    assert.deepEqual(
      found.elements.map((e) => e.id),
      [post.id],
    );
    // Node A's duplicate check sees node B's post.
    const again = await rest(a, onA, '/rest/posts', {
      method: 'POST',
      body: JSON.stringify({
        author: onA.connection.accountId,
        commentary: 'Across two nodes',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
        lifecycleState: 'PUBLISHED',
      }),
    });
    assert.equal(again.status, 422);
    assert.match(await again.text(), new RegExp(`DUPLICATE_POST|${post.id}`));
    assert.match(await page(on(a, post.url)), /Across two nodes/);
    await Promise.all([stop(a), stop(b)]);
  });

  test('the same commentary sent through both nodes at once is posted once; the other is a duplicate naming it', async () => {
    const [a, b] = await Promise.all([node(), node()]);
    const session = await connect(a, 'racing_gita');
    const send = (sandbox: RunningSandbox, commentary: string) =>
      rest(sandbox, session, '/rest/posts', {
        method: 'POST',
        body: JSON.stringify({
          author: session.connection.accountId,
          commentary,
          visibility: 'PUBLIC',
          distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
          lifecycleState: 'PUBLISHED',
        }),
      });
    for (let i = 0; i < 8; i++) {
      const commentary = `Sent twice at once ${i}`;
      const answers = await Promise.all([send(a, commentary), send(b, commentary)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 422], commentary);
      const urn = answers.find((r) => r.status === 201)!.headers.get('x-restli-id')!;
      assert.match(await answers.find((r) => r.status === 422)!.text(), new RegExp(`duplicate of ${urn}`));
      // Once the post is deleted, its commentary is free again.
      assert.equal(
        (await rest(b, session, `/rest/posts/${encodeURIComponent(urn)}`, { method: 'DELETE' })).status,
        204,
      );
      assert.equal((await send(a, commentary)).status, 201, 'posted again after the delete');
    }
    await Promise.all([stop(a), stop(b)]);
  });
});

describe('the page of a LinkedIn post', () => {
  test('shows the member, the audience, the text with its link and every image; a deleted post is 404', async () => {
    const sandbox = await node();
    const session = await connect(sandbox, 'page_frank');
    const media = await adapter.prepareMedia(
      session,
      [
        mediaSource(png(2, 2), 'image/png', { altText: 'First' }),
        mediaSource(png(3, 3), 'image/png', { altText: 'Second' }),
      ],
      {},
    );
    const post = await adapter.publish(session, part('Two charts #data, see https://example.org/report', { media }));
    const html = await page(post.url);
    assert.match(html, /<strong>page frank<\/strong> <span class="handle">in\/page_frank · PUBLIC<\/span>/);
    assert.match(html, /<a [^>]*href="https:\/\/example.org\/report"/);
    assert.match(html, /#data/);
    assert.equal(mediaUrls(html, 'img').length, 2);
    assert.match(html, /alt="First"[\s\S]*alt="Second"/);
    await adapter.deletePost(session, post);
    assert.equal((await fetch(post.url)).status, 404);
    await stop(sandbox);
  });
});
