// The Facebook simulator keeps its Pages in PostgreSQL (the sandbox store): a restart keeps every post, photo,
// video and spent code, tokens go on working, and ids are never handed out again; two simulators on one database
// (two API nodes) serve the same Pages, down to a video uploaded through both. Also: a feed page reads about a page
// of the store however many posts a Page has, and a video whose node stopped before writing its post gets it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { mp4, png } from '../../../test/helpers/media-sources.ts';
import { spyStore } from '../../../test/helpers/store-spy.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';
import { graphTestClient, type SignedIn } from './graph-test-client.ts';

const SECRET = 'facebook-restart-test-secret';
let nodes: SandboxNodes;

before(async () => {
  nodes = await sandboxNodes(['facebook'], SECRET);
});
after(() => nodes.close());

/** A sandbox node on the shared database: same secret, the store in PostgreSQL. */
async function node(): Promise<{ sandbox: RunningSandbox; client: ReturnType<typeof graphTestClient> }> {
  const sandbox = await nodes.start({ settings: { facebookVideoProcessingMs: 50 } });
  const base = sandbox.baseUrl('facebook');
  return { sandbox, client: graphTestClient(() => base) };
}

const stop = (sandbox: RunningSandbox): Promise<void> => nodes.stop(sandbox);

const photoForm = (data: Buffer) => {
  const form = new FormData();
  form.set('source', new Blob([data], { type: 'image/png' }), 'photo');
  return form;
};

const chunkForm = (data: Buffer) => {
  const form = new FormData();
  form.set('video_file_chunk', new Blob([data]), 'chunk');
  return form;
};

type Client = ReturnType<typeof graphTestClient>;
type Page = SignedIn['pages'][number];

/** Uploads a video through the resumable protocol, each call on the next client in turn; returns its id. */
async function uploadVideo(clients: Client[], page: Page, bytes: Buffer, chunk: number): Promise<string> {
  const on = (i: number) => clients[i % clients.length]!;
  const token = { access_token: page.access_token };
  const start = await on(0).graph('POST', `/v23.0/${page.id}/videos`, {
    ...token,
    upload_phase: 'start',
    file_size: String(bytes.length),
  });
  let call = 1;
  for (let offset = 0; offset < bytes.length; offset += chunk) {
    const sent = await on(call++).graph(
      'POST',
      `/v23.0/${page.id}/videos`,
      {
        ...token,
        upload_phase: 'transfer',
        upload_session_id: start.json.upload_session_id,
        start_offset: String(offset),
      },
      chunkForm(bytes.subarray(offset, offset + chunk)),
    );
    assert.equal(sent.json.start_offset, String(Math.min(bytes.length, offset + chunk)), JSON.stringify(sent.json));
  }
  const finish = await on(call++).graph('POST', `/v23.0/${page.id}/videos`, {
    ...token,
    upload_phase: 'finish',
    upload_session_id: start.json.upload_session_id,
    published: 'false',
  });
  assert.deepEqual(finish.json, { success: true });
  const started = Date.now();
  for (;;) {
    const status = await on(call++).graph('GET', `/v23.0/${start.json.video_id}`, { ...token, fields: 'status' });
    if (status.json.status.video_status === 'ready') break;
    assert.ok(Date.now() - started < 20_000, 'processing ends');
    await new Promise((r) => setTimeout(r, 25));
  }
  return start.json.video_id;
}

describe('the Facebook sandbox across a restart', () => {
  test('tokens, posts with photos and a video, their page and bytes, and spent codes survive; new ids are new', async () => {
    const first = await node();
    const { pages } = await first.client.signIn('restart_user');
    const page = pages[0]!;
    const token = { access_token: page.access_token };
    const photo = await first.client.graph(
      'POST',
      `/v23.0/${page.id}/photos`,
      { ...token, published: 'false', alt_text_custom: 'a red dot' },
      photoForm(png(2, 2)),
    );
    const text = `Before the restart, see https://example.com/fb-restart ${Date.now()}`;
    const withPhoto = await first.client.graph('POST', `/v23.0/${page.id}/feed`, {
      ...token,
      message: text,
      'attached_media[0]': JSON.stringify({ media_fbid: photo.json.id }),
    });
    const linkPost = await first.client.graph('POST', `/v23.0/${page.id}/feed`, {
      ...token,
      message: 'A link post',
      link: 'https://example.com/linked',
    });
    const videoBytes = mp4(300_000);
    const videoId = await uploadVideo([first.client], page, videoBytes, 128 * 1024);
    await first.client.graph('POST', `/v23.0/${videoId}`, { ...token, published: 'true', description: 'the video' });
    const video = await first.client.graph('GET', `/v23.0/${videoId}`, { ...token, fields: 'post_id' });
    // A code exchanged before the restart stays spent after it.
    const redirect = 'https://app.example/cb';
    const dialog = await fetch(
      `${first.sandbox.baseUrl('facebook')}/v23.0/dialog/oauth?client_id=a&redirect_uri=${encodeURIComponent(redirect)}&scope=pages_show_list&sandbox_username=restart_user`,
      { redirect: 'manual' },
    );
    const code = new URL(dialog.headers.get('location')!).searchParams.get('code')!;
    const exchange = { client_id: 'a', client_secret: 'b', redirect_uri: redirect, code };
    assert.ok((await first.client.graph('GET', '/v23.0/oauth/access_token', exchange)).json.access_token);
    const before = [withPhoto.json.id, linkPost.json.id, video.json.post_id, photo.json.id, videoId];
    await stop(first.sandbox);

    const second = await node();
    const base = second.sandbox.baseUrl('facebook');
    const { graph } = second.client;
    assert.equal((await graph('GET', '/v23.0/me', token)).json.id, page.id, 'the Page token still works');
    const read = await graph('GET', `/v23.0/${withPhoto.json.id}`, { ...token, fields: 'message,permalink_url' });
    assert.equal(read.json.message, text);
    const feed = await graph('GET', `/v23.0/${page.id}/feed`, { ...token, fields: 'id,message' });
    assert.deepEqual(
      feed.json.data.map((p) => p.id),
      [video.json.post_id, linkPost.json.id, withPhoto.json.id],
    );
    const html = await (await fetch(read.json.permalink_url)).text();
    assert.ok(html.includes(text.split(', see')[0]!), 'the page shows the text');
    assert.match(html, /<a [^>]*href="https:\/\/example\.com\/fb-restart/, 'with its link live');
    const imageUrl = `${base}/web/media/${photo.json.id}`;
    assert.ok(html.includes(`src="${imageUrl}"`), 'and the image');
    const image = await fetch(imageUrl);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), png(2, 2));
    const videoPage = await (await fetch(`${base}/web/${page.id}/posts/${video.json.post_id.split('_')[1]}`)).text();
    assert.ok(videoPage.includes(`<video controls preload="none" src="${base}/web/media/${videoId}"`));
    const served = await fetch(`${base}/web/media/${videoId}`);
    assert.equal(served.headers.get('content-type'), 'video/mp4');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), videoBytes);
    const used = await graph('GET', '/v23.0/oauth/access_token', exchange);
    assert.equal(used.json.error.error_subcode, 36009, 'the code is still spent');
    const again = await graph('POST', `/v23.0/${page.id}/feed`, {
      ...token,
      message: 'the photo again',
      'attached_media[0]': JSON.stringify({ media_fbid: photo.json.id }),
    });
    assert.equal(again.json.error.error_subcode, 1366051, 'an attached photo stays attached');
    const after = await graph('POST', `/v23.0/${page.id}/feed`, {
      ...token,
      message: `After the restart ${Date.now()}`,
    });
    const newPhoto = await graph('POST', `/v23.0/${page.id}/photos`, token, photoForm(png()));
    const ids = new Set(before.flatMap((id) => id.split('_')));
    for (const id of [after.json.id, newPhoto.json.id, newPhoto.json.post_id])
      for (const part of id.split('_').slice(id.includes('_') ? 1 : 0)) assert.ok(!ids.has(part), `${id} is a new id`);
    const all = await second.sandbox.simulator('facebook').posts();
    assert.equal(all.length, 5);
    await stop(second.sandbox);
  });

  test('two nodes on one database serve the same Pages: posts, duplicates, photos and a video uploaded through both', async () => {
    const [a, b] = [await node(), await node()];
    const { pages } = await a.client.signIn('two_nodes_user');
    const page = pages[0]!;
    const token = { access_token: page.access_token };
    const text = `Posted on node A ${Date.now()}`;
    const posted = await a.client.graph('POST', `/v23.0/${page.id}/feed`, { ...token, message: text });
    const seen = await b.client.graph('GET', `/v23.0/${page.id}/feed`, { ...token, fields: 'id,message' });
    assert.deepEqual(
      seen.json.data.map((p) => p.id),
      [posted.json.id],
    );
    const duplicate = await b.client.graph('POST', `/v23.0/${page.id}/feed`, { ...token, message: text });
    assert.equal(duplicate.json.error.code, 506, "node B knows node A's last post");
    const photo = await b.client.graph(
      'POST',
      `/v23.0/${page.id}/photos`,
      { ...token, published: 'false' },
      photoForm(png()),
    );
    const attach = (client: Client, message: string) =>
      client.graph('POST', `/v23.0/${page.id}/feed`, {
        ...token,
        message,
        'attached_media[0]': JSON.stringify({ media_fbid: photo.json.id }),
      });
    // Both nodes attach the same photo at once: one post gets it.
    const raced = await Promise.all([attach(a.client, 'race on A'), attach(b.client, 'race on B')]);
    assert.equal(raced.filter((r) => r.json.id).length, 1, JSON.stringify(raced.map((r) => r.json)));
    assert.equal(raced.filter((r) => r.json.error?.error_subcode === 1366051).length, 1);
    const bytes = mp4(200_000);
    const videoId = await uploadVideo([a.client, b.client], page, bytes, 64 * 1024);
    const served = await fetch(`${a.sandbox.baseUrl('facebook')}/web/media/${videoId}`);
    assert.equal(served.status, 404, 'an unpublished video is not served');
    await b.client.graph('POST', `/v23.0/${videoId}`, { ...token, published: 'true', description: 'through both' });
    const bytesOnA = await fetch(`${a.sandbox.baseUrl('facebook')}/web/media/${videoId}`);
    assert.deepEqual(Buffer.from(await bytesOnA.arrayBuffer()), bytes);
    const onA = await a.sandbox.simulator('facebook').posts();
    const onB = await b.sandbox.simulator('facebook').posts();
    assert.deepEqual(onA, onB);
    assert.ok(onA.some((p) => p.text === 'through both' && p.media === 1));
    await stop(a.sandbox);
    await stop(b.sandbox);
  });
});

describe('what the Facebook simulator reads and repairs in its store', () => {
  const spy = spyStore();
  let base: string;
  let client: Client;
  let page: Page;
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox({
      platforms: ['facebook'],
      store: () => spy.store,
      settings: { facebookVideoProcessingMs: 50 },
    });
    base = sandbox.baseUrl('facebook');
    client = graphTestClient(() => base);
    page = (await client.signIn('busy_page_user')).pages[0]!;
    for (let i = 0; i < 30; i++)
      await client.graph('POST', `/v23.0/${page.id}/feed`, {
        message: `history ${i}`,
        access_token: page.access_token,
      });
  });
  after(() => sandbox.close());

  for (const until of [undefined, String(Math.floor(Date.now() / 1000) + 3600)])
    test(`each feed page reads one page${until ? ' with until' : ''}, and the cursor pages through every post`, async () => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let n = 0; n < 20; n++) {
        spy.takeScanned();
        const res = await client.graph('GET', `/v23.0/${page.id}/feed`, {
          limit: '5',
          access_token: page.access_token,
          ...(until ? { until } : {}),
          ...(after ? { after } : {}),
        });
        assert.ok(spy.takeScanned() <= 6, `page ${n} reads one page and one more`);
        seen.push(...res.json.data.map((p) => p.message));
        if (!res.json.paging.next) break;
        after = res.json.paging.cursors.after;
      }
      const history = seen.filter((m) => m.startsWith('history'));
      assert.equal(history.length, 30);
      assert.equal(new Set(history).size, 30, 'no post twice');
      assert.equal(history[0], 'history 29', 'newest first');
    });

  test('a video published by a node that stopped before writing its post gets its post when next read', async () => {
    const videoId = await uploadVideo([client], page, mp4(3000), 1000);
    spy.failNext((w) => w.kind === 'post' && (w.op === 'put' || w.op === 'insert'));
    const published = await client.graph('POST', `/v23.0/${videoId}`, {
      published: 'true',
      description: 'the stopped video',
      access_token: page.access_token,
    });
    assert.equal(published.status, 500, 'the node stopped after claiming the video');
    const read = await client.graph('GET', `/v23.0/${videoId}`, {
      fields: 'published,post_id',
      access_token: page.access_token,
    });
    assert.equal(read.json.published, true);
    const post = await client.graph('GET', `/v23.0/${read.json.post_id}`, { access_token: page.access_token });
    assert.equal(post.json.message, 'the stopped video', JSON.stringify(post.json));
    const feed = await client.graph('GET', `/v23.0/${page.id}/feed`, { limit: '1', access_token: page.access_token });
    assert.equal(feed.json.data[0]!.id, read.json.post_id);
  });

  test('served media bytes are not sniffed by browsers and run in a sandbox', async () => {
    const photo = await client.graph(
      'POST',
      `/v23.0/${page.id}/photos`,
      { access_token: page.access_token },
      photoForm(png(4, 4)),
    );
    const served = await fetch(`${base}/web/media/${photo.json.id}`);
    assert.equal(served.status, 200, JSON.stringify(photo.json));
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
  });
});
