// The X simulator keeps its state in the sandbox store: posts, media (each chunked segment a blob of its own) and
// thread parts survive a restart on the same database, ids are never handed out twice, and two sandboxes on one
// database (two API nodes) serve the same posts and refuse the same duplicates, even sent at once. Also: a post's
// page shows it as X would, and each request reads about a page of the store however much an account holds.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { mp4, png } from '../../../test/helpers/media-sources.ts';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { spyStore } from '../../../test/helpers/store-spy.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

const FIXED = 'x-restart-test-secret';
const SCOPES = 'tweet.read tweet.write users.read media.write offline.access';

/** Signs in as `username` through the OAuth flow (a standalone rig may name the account) and returns the token. */
async function signIn(base: string, username: string): Promise<string> {
  const verifier = 'v'.repeat(50);
  const authorize = await fetch(
    `${base}/i/oauth2/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: 'herald-sandbox',
      redirect_uri: 'http://127.0.0.1/callback',
      scope: SCOPES,
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      sandbox_username: username,
    })}`,
    { redirect: 'manual' },
  );
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${base}/2/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: 'herald-sandbox',
      redirect_uri: 'http://127.0.0.1/callback',
      code_verifier: verifier,
    }),
  });
  assert.equal(token.status, 200, await token.clone().text());
  return ((await token.json()) as { access_token: string }).access_token;
}

function api(base: string, token: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as { data: Record<string, unknown> } };
  };
  return {
    call,
    async tweet(text: string, extra: Record<string, unknown> = {}): Promise<string> {
      const res = await call('POST', '/2/tweets', { text, ...extra });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      return String(res.json.data.id);
    },
    /** A one-shot image upload. */
    async image(bytes: Buffer, alt?: string): Promise<string> {
      const form = new FormData();
      form.set('media_category', 'tweet_image');
      form.set('media', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'image.png');
      const res = await fetch(`${base}/2/media/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      assert.equal(res.status, 200);
      const id = String(((await res.json()) as { data: { id: string } }).data.id);
      if (alt)
        assert.equal(
          (await call('POST', '/2/media/metadata', { id, metadata: { alt_text: { text: alt } } })).status,
          200,
        );
      return id;
    },
    /** The chunked protocol: initialize, one append per segment, finalize. */
    async chunked(segments: Buffer[], category: string, type: string): Promise<string> {
      const total = segments.reduce((n, s) => n + s.length, 0);
      const init = await call('POST', '/2/media/upload/initialize', {
        media_type: type,
        total_bytes: total,
        media_category: category,
      });
      const id = String(init.json.data.id);
      for (const [index, segment] of segments.entries()) {
        const form = new FormData();
        form.set('segment_index', String(index));
        form.set('media', new Blob([new Uint8Array(segment)]));
        const res = await fetch(`${base}/2/media/upload/${id}/append`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: form,
        });
        assert.equal(res.status, 200);
      }
      const done = await call('POST', `/2/media/upload/${id}/finalize`);
      assert.equal(done.status, 200, JSON.stringify(done.json));
      return id;
    },
  };
}

/** Waits (generous ceiling) until the upload has processed. */
async function processed(base: string, token: string, id: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${base}/2/media/upload?command=STATUS&media_id=${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const info = ((await res.json()) as { data: { processing_info?: { state: string } } }).data.processing_info;
    if (!info || info.state === 'succeeded') return;
    assert.ok(Date.now() < deadline && info.state !== 'failed', `media ${id}: ${info.state}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the X simulator on PostgreSQL', () => {
  let nodes: SandboxNodes;
  const start = () => nodes.start();
  const close = (sandbox: RunningSandbox) => nodes.stop(sandbox);

  before(async () => {
    nodes = await sandboxNodes(['x'], FIXED);
  });
  after(() => nodes.close());

  test('a restart keeps the token, posts, thread, media and their pages; ids are never reused', async () => {
    const first = await start();
    const base = first.baseUrl('x');
    const token = await signIn(base, 'restart_user');
    const x = api(base, token);
    const image = png(40, 30, 300);
    const imageId = await x.image(image, 'a small square');
    const video = mp4(3000);
    const videoId = await x.chunked(
      [video.subarray(0, 1000), video.subarray(1000, 2000), video.subarray(2000)],
      'tweet_video',
      'video/mp4',
    );
    // Each appended segment is a blob of its own: the document never carries the bytes.
    const { rows } = await nodes.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM sandbox.blobs WHERE simulator = 'x' AND id LIKE $1",
      [`media:${videoId}:%`],
    );
    assert.equal(Number(rows[0]!.n), 3);
    await processed(base, token, videoId);
    const rootId = await x.tweet('Before the restart, see https://example.com/herald', {
      media: { media_ids: [imageId] },
    });
    const secondId = await x.tweet('second part', { reply: { in_reply_to_tweet_id: rootId } });
    const thirdId = await x.tweet('third part', {
      reply: { in_reply_to_tweet_id: secondId },
      media: { media_ids: [videoId] },
    });
    const earlier = new Set([imageId, videoId, rootId, secondId, thirdId]);
    await close(first);

    const second = await start();
    const restarted = second.baseUrl('x');
    const again = api(restarted, token);
    const read = await again.call('GET', `/2/tweets/${rootId}?tweet.fields=attachments,conversation_id`);
    assert.equal(read.status, 200, 'the token issued before the restart still works');
    assert.match(String(read.json.data.text), /^Before the restart, see https:\/\/t\.co\//);
    assert.deepEqual(read.json.data.attachments, { media_keys: [`3_${imageId}`] });
    const thread = await again.call('GET', `/2/tweets/${thirdId}?tweet.fields=referenced_tweets,conversation_id`);
    assert.deepEqual(thread.json.data.referenced_tweets, [{ type: 'replied_to', id: secondId }]);
    assert.equal(thread.json.data.conversation_id, rootId);

    const page = await fetch(`${restarted}/web/restart_user/status/${rootId}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    for (const text of ['Before the restart', 'second part', 'third part', '@restart_user'])
      assert.ok(html.includes(text), `the page shows ${text}`);
    assert.ok(html.includes('href="https://example.com/herald"'), 'the link is live');
    assert.ok(html.includes(`/web/media/${imageId}"`) && html.includes('alt="a small square"'), 'the image is shown');
    assert.ok(html.includes(`<video controls preload="none" src="${restarted}/web/media/${videoId}"`), 'the video too');
    const served = await fetch(`${restarted}/web/media/${imageId}`);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image);
    const servedVideo = await fetch(`${restarted}/web/media/${videoId}`);
    assert.equal(servedVideo.headers.get('content-type'), 'video/mp4');
    assert.deepEqual(Buffer.from(await servedVideo.arrayBuffer()), video, 'the segments come back in order');

    // X's duplicate check remembers the text across the restart; a new post gets an id never handed out before.
    assert.equal((await again.call('POST', '/2/tweets', { text: 'second part' })).status, 403);
    const nextId = await again.tweet('after the restart');
    assert.ok(!earlier.has(nextId), `${nextId} is new`);
    const nextMedia = await again.image(png(2, 2));
    assert.ok(!earlier.has(nextMedia), `${nextMedia} is new`);

    // Deleted posts answer 404 on their page, and so does a post that never was.
    assert.equal((await again.call('DELETE', `/2/tweets/${nextId}`)).status, 200);
    assert.equal((await fetch(`${restarted}/web/restart_user/status/${nextId}`)).status, 404);
    assert.equal((await fetch(`${restarted}/web/restart_user/status/1`)).status, 404);
    assert.equal(
      (await second.simulator('x').posts()).filter((p) => !p.deleted).length,
      3,
      'the control surface reads the store',
    );
    await close(second);
  });

  test('two sandboxes on one database (two API nodes) serve the same posts', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const token = await signIn(a.baseUrl('x'), 'two_nodes');
    const onA = api(a.baseUrl('x'), token);
    const onB = api(b.baseUrl('x'), token);
    const imageId = await onA.image(png(3, 3));
    // Media uploaded through one node is attached through the other.
    const viaB = await onB.tweet('posted through node B', { media: { media_ids: [imageId] } });
    const viaA = await onA.tweet('posted through node A');
    assert.equal((await onA.call('GET', `/2/tweets/${viaB}`)).status, 200);
    assert.equal((await onB.call('GET', `/2/tweets/${viaA}`)).status, 200);
    assert.equal((await onB.call('POST', '/2/tweets', { text: 'posted through node A' })).status, 403, 'duplicate');
    const timeline = await onB.call('GET', `/2/users/${(await onA.call('GET', '/2/users/me')).json.data.id}/tweets`);
    assert.deepEqual(
      (timeline.json as unknown as { data: Array<{ id: string }> }).data.map((t) => t.id).sort(),
      [viaA, viaB].sort(),
    );
    assert.ok((await (await fetch(`${b.baseUrl('x')}/web/two_nodes/status/${viaA}`)).text()).includes('node A'));
    // Ids made on both nodes at once never collide.
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? onA : onB).tweet(`concurrent ${i}`)));
    assert.equal(new Set(ids).size, ids.length);
    await Promise.all([close(a), close(b)]);
  });

  test('the same text sent through both nodes at once is posted once and refused once as a duplicate', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const token = await signIn(a.baseUrl('x'), 'racing_user');
    const onA = api(a.baseUrl('x'), token);
    const onB = api(b.baseUrl('x'), token);
    for (let i = 0; i < 8; i++) {
      const text = `sent twice at once ${i}`;
      const answers = await Promise.all([onA, onB].map((node) => node.call('POST', '/2/tweets', { text })));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 403], `${text}: ${JSON.stringify(answers)}`);
      // Once the post is deleted, its text is free again.
      const posted = String(answers.find((r) => r.status === 201)!.json.data.id);
      assert.equal((await onB.call('DELETE', `/2/tweets/${posted}`)).status, 200);
      assert.equal((await onA.call('POST', '/2/tweets', { text })).status, 201, 'posted again after the delete');
    }
    await Promise.all([close(a), close(b)]);
  });
});

describe('what an X request reads of the store', () => {
  const spy = spyStore();
  let sandbox: RunningSandbox;
  let base: string;
  let x: ReturnType<typeof api>;
  let userId: string;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['x'], store: () => spy.store });
    base = sandbox.baseUrl('x');
    x = api(base, await signIn(base, 'busy_user'));
    userId = String((await x.call('GET', '/2/users/me')).json.data.id);
    for (let i = 0; i < 30; i++) await x.tweet(`history ${i}`);
  });
  after(() => sandbox.close());

  test('a post reads no other post of its author: the duplicate check is one claim', async () => {
    spy.takeScanned();
    await x.tweet('a new text');
    assert.equal(spy.takeScanned(), 0);
    assert.equal((await x.call('POST', '/2/tweets', { text: 'history 3' })).status, 403, 'still a duplicate');
  });

  test('each timeline page reads one page of posts, with or without end_time, and the pages cover every post', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 20; page++) {
      spy.takeScanned();
      const query = new URLSearchParams({ max_results: '5', end_time: new Date(Date.now() + 60_000).toISOString() });
      if (token) query.set('pagination_token', token);
      const res = await x.call('GET', `/2/users/${userId}/tweets?${query}`);
      assert.ok(spy.takeScanned() <= 6, `page ${page} reads one page and one more`);
      const body = res.json as unknown as { data?: Array<{ text: string }>; meta: { next_token?: string } };
      seen.push(...(body.data ?? []).map((t) => t.text));
      token = body.meta.next_token;
      if (!token) break;
    }
    assert.equal(seen.length, new Set(seen).size, 'no post twice');
    assert.ok(seen.includes('history 0') && seen.includes('history 29'), 'the oldest and the newest');
    assert.equal(seen.indexOf('history 29') < seen.indexOf('history 0'), true, 'newest first');
    assert.equal((await x.call('GET', `/2/users/${userId}/tweets?pagination_token=not-a-token`)).status, 400);
  });

  test("a post's page reads its thread's parts, not its author's history", async () => {
    const root = await x.tweet('thread root');
    const second = await x.tweet('thread second', { reply: { in_reply_to_tweet_id: root } });
    await x.tweet('thread third', { reply: { in_reply_to_tweet_id: second } });
    spy.takeScanned();
    const html = await (await fetch(`${base}/web/busy_user/status/${second}`)).text();
    assert.ok(
      ['thread root', 'thread second', 'thread third'].every((t) => html.includes(t)),
      'every part shown',
    );
    assert.ok(spy.takeScanned() <= 3, 'only the three parts are read');
  });

  test('an appended segment whose bytes were not written is not noted: finalize finds it missing', async () => {
    const token = await signIn(base, 'append_user');
    const init = await api(base, token).call('POST', '/2/media/upload/initialize', {
      media_type: 'video/mp4',
      total_bytes: 3000,
      media_category: 'tweet_video',
    });
    const id = String(init.json.data.id);
    const video = mp4(3000);
    spy.failNext((w) => w.op === 'putBytes' && w.id.startsWith(`media:${id}:`));
    const form = new FormData();
    form.set('segment_index', '0');
    form.set('media', new Blob([new Uint8Array(video)]));
    const append = await fetch(`${base}/2/media/upload/${id}/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    assert.equal(append.status, 500, 'the node stopped while writing the bytes');
    const finalize = await api(base, token).call('POST', `/2/media/upload/${id}/finalize`);
    assert.equal(finalize.status, 400, JSON.stringify(finalize.json));
  });

  test('served media bytes are not sniffed by browsers and run in a sandbox', async () => {
    const imageId = await x.image(png(4, 4));
    const served = await fetch(`${base}/web/media/${imageId}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
  });
});

describe('the page of an X post', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['x'] });
  });
  after(() => sandbox.close());

  test('shows the text with its link, the image and every thread part, from any part', async () => {
    const base = sandbox.baseUrl('x');
    const token = await signIn(base, 'page_user');
    const x = api(base, token);
    const imageId = await x.image(png(10, 10), 'alt words');
    const root = await x.tweet('Read https://example.org/a?b=1 & <more>', { media: { media_ids: [imageId] } });
    const reply = await x.tweet('and the second part', { reply: { in_reply_to_tweet_id: root } });
    for (const id of [root, reply]) {
      const html = await (await fetch(`${base}/web/page_user/status/${id}`)).text();
      assert.ok(html.includes('<a style="color:#000000" href="https://example.org/a?b=1"'), 'the link');
      assert.ok(html.includes('&amp; &lt;more&gt;'), 'the text escaped');
      assert.ok(html.includes(`<img src="${base}/web/media/${imageId}" alt="alt words"`), 'the image');
      assert.ok(html.indexOf('Read ') < html.indexOf('and the second part'), 'the parts in order');
      assert.ok(html.includes('page user') && html.includes('@page_user'), 'the account');
    }
  });
});
