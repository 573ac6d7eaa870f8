// The Facebook simulator on its own, over raw HTTP: Graph's shapes and refusals, the things the adapter never
// sends on purpose (bad tokens, another Page's photos, wrong upload offsets, scheduled posts), and the video
// processing timeline shortened through `settings.facebookVideoProcessingMs`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../server.ts';
import { png, mp4 } from '../../../test/helpers/media-sources.ts';
import { graphTestClient } from './graph-test-client.ts';

let sandbox: RunningSandbox;
let base: string;
const { graph, signIn } = graphTestClient(() => base);

const photoForm = (data: Buffer, type = 'image/png') => {
  const form = new FormData();
  form.set('source', new Blob([data], { type }), 'photo');
  return form;
};

before(async () => {
  sandbox = await startSandbox({ platforms: ['facebook'], settings: { facebookVideoProcessingMs: 300 } });
  base = sandbox.baseUrl('facebook');
});
after(() => sandbox.close());

describe('the Facebook simulator over raw HTTP', () => {
  test('errors are the Graph envelope: a missing, malformed or foreign token, an unknown object, a bad version', async () => {
    const none = await graph('GET', '/v23.0/me');
    assert.equal(none.status, 400);
    assert.deepEqual(Object.keys(none.json.error).sort(), ['code', 'fbtrace_id', 'is_transient', 'message', 'type']);
    const bad = await graph('GET', '/v23.0/me', { access_token: 'nonsense' });
    assert.equal(bad.json.error.code, 190);
    assert.match(bad.headers.get('www-authenticate') ?? '', /invalid_token/);
    const { pages } = await signIn('shape_user');
    const other = await signIn('other_user');
    const foreign = await graph('POST', `/v23.0/${other.pages[0]!.id}/feed`, {
      message: 'not mine',
      access_token: pages[0]!.access_token,
    });
    assert.equal(foreign.json.error.code, 200);
    const missing = await graph('GET', '/v23.0/123_456', { access_token: pages[0]!.access_token });
    assert.deepEqual(
      [missing.json.error.code, missing.json.error.error_subcode, missing.json.error.type],
      [100, 33, 'GraphMethodException'],
    );
    const version = await graph('POST', `/v99/${pages[0]!.id}/feed`, {
      message: 'x',
      access_token: pages[0]!.access_token,
    });
    assert.equal(version.status, 400);
  });

  test('feed posts: empty, scheduled, over-long, bad link and link with photos are refused with (#100)', async () => {
    const { pages } = await signIn('feed_user');
    const page = pages[0]!;
    const cases: Array<Record<string, string>> = [
      {},
      { message: 'later', published: 'false', scheduled_publish_time: '1900000000' },
      { message: 'x'.repeat(63_207) },
      { message: 'bad link', link: 'ftp:/nope' },
    ];
    for (const params of cases) {
      const res = await graph('POST', `/v23.0/${page.id}/feed`, { ...params, access_token: page.access_token });
      assert.equal(res.status, 400, JSON.stringify(params).slice(0, 80));
      assert.equal(res.json.error.code, 100);
    }
    const photo = await graph(
      'POST',
      `/v23.0/${page.id}/photos`,
      { published: 'false', access_token: page.access_token },
      photoForm(png()),
    );
    const both = await graph('POST', `/v23.0/${page.id}/feed`, {
      message: 'both',
      link: 'https://a.example/x',
      'attached_media[0]': JSON.stringify({ media_fbid: photo.json.id }),
      access_token: page.access_token,
    });
    assert.equal(both.json.error.code, 100);
  });

  test("a photo must be an image, and attached_media only takes this Page's unpublished photos, once", async () => {
    const { pages } = await signIn('photo_user');
    const [mine, shop] = pages;
    const notImage = await graph(
      'POST',
      `/v23.0/${mine!.id}/photos`,
      { access_token: mine!.access_token },
      photoForm(mp4(2048), 'image/png'),
    );
    assert.equal(notImage.json.error.code, 324);
    const published = await graph(
      'POST',
      `/v23.0/${mine!.id}/photos`,
      { message: 'a photo post', access_token: mine!.access_token },
      photoForm(png()),
    );
    assert.match(published.json.post_id, new RegExp(`^${mine!.id}_`));
    const shopPhoto = await graph(
      'POST',
      `/v23.0/${shop!.id}/photos`,
      { published: 'false', access_token: shop!.access_token },
      photoForm(png()),
    );
    const foreign = await graph('POST', `/v23.0/${mine!.id}/feed`, {
      message: 'borrowed',
      'attached_media[0]': JSON.stringify({ media_fbid: shopPhoto.json.id }),
      access_token: mine!.access_token,
    });
    assert.equal(foreign.json.error.code, 100);
    const already = await graph('POST', `/v23.0/${mine!.id}/feed`, {
      message: 'again',
      'attached_media[0]': JSON.stringify({ media_fbid: published.json.id }),
      access_token: mine!.access_token,
    });
    assert.equal(already.json.error.error_subcode, 1366051);
    const garbled = await graph('POST', `/v23.0/${mine!.id}/feed`, {
      message: 'garbled',
      'attached_media[0]': '{not json',
      access_token: mine!.access_token,
    });
    assert.equal(garbled.json.error.code, 100);
  });

  test('resumable video: offsets are enforced, finish needs every byte, processing runs processing → ready on the configured clock', async () => {
    const { pages } = await signIn('video_user');
    const page = pages[0]!;
    const bytes = mp4(100_000);
    const start = await graph('POST', `/v23.0/${page.id}/videos`, {
      upload_phase: 'start',
      file_size: String(bytes.length),
      access_token: page.access_token,
    });
    assert.deepEqual([start.json.start_offset, start.json.end_offset], ['0', String(bytes.length)]);
    const chunk = (from: number, to: number) => {
      const form = new FormData();
      form.set('video_file_chunk', new Blob([bytes.subarray(from, to)]), 'chunk');
      return form;
    };
    const early = await graph('POST', `/v23.0/${page.id}/videos`, {
      upload_phase: 'finish',
      upload_session_id: start.json.upload_session_id,
      access_token: page.access_token,
    });
    assert.equal(early.json.error.code, 6001);
    const wrong = await graph(
      'POST',
      `/v23.0/${page.id}/videos`,
      {
        upload_phase: 'transfer',
        upload_session_id: start.json.upload_session_id,
        start_offset: '10',
        access_token: page.access_token,
      },
      chunk(10, 100),
    );
    assert.equal(wrong.json.error.code, 6001);
    const sent = await graph(
      'POST',
      `/v23.0/${page.id}/videos`,
      {
        upload_phase: 'transfer',
        upload_session_id: start.json.upload_session_id,
        start_offset: '0',
        access_token: page.access_token,
      },
      chunk(0, bytes.length),
    );
    assert.equal(sent.json.start_offset, String(bytes.length));
    const finish = await graph('POST', `/v23.0/${page.id}/videos`, {
      upload_phase: 'finish',
      upload_session_id: start.json.upload_session_id,
      published: 'false',
      access_token: page.access_token,
    });
    assert.deepEqual(finish.json, { success: true });
    const status = async () =>
      (await graph('GET', `/v23.0/${start.json.video_id}`, { fields: 'status', access_token: page.access_token })).json
        .status.video_status;
    assert.equal(await status(), 'processing');
    const notReady = await graph('POST', `/v23.0/${start.json.video_id}`, {
      published: 'true',
      access_token: page.access_token,
    });
    assert.equal(notReady.json.error.error_subcode, 1363047);
    const started = Date.now();
    while ((await status()) !== 'ready') {
      assert.ok(Date.now() - started < 30_000, 'processing ends');
      await new Promise((r) => setTimeout(r, 50));
    }
    const published = await graph('POST', `/v23.0/${start.json.video_id}`, {
      published: 'true',
      description: 'the video',
      access_token: page.access_token,
    });
    assert.deepEqual(published.json, { success: true });
    const read = await graph('GET', `/v23.0/${start.json.video_id}`, {
      fields: 'published,post_id',
      access_token: page.access_token,
    });
    assert.equal(read.json.published, true);
    assert.equal(
      (await sandbox.simulator('facebook').posts()).find((p) => p.id === read.json.post_id)?.text,
      'the video',
    );
  });

  test('the feed pages newest first with cursors and a next URL, and filters by since', async () => {
    const { pages } = await signIn('paging_user');
    const page = pages[0]!;
    for (let i = 0; i < 5; i++)
      await graph('POST', `/v23.0/${page.id}/feed`, { message: `paged ${i}`, access_token: page.access_token });
    const first = await graph('GET', `/v23.0/${page.id}/feed`, {
      limit: '2',
      fields: 'id,message,created_time,permalink_url',
      access_token: page.access_token,
    });
    assert.deepEqual(
      first.json.data.map((p: { message: string }) => p.message),
      ['paged 4', 'paged 3'],
    );
    assert.match(first.json.data[0]!.created_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
    assert.match(first.json.data[0]!.permalink_url, /\/web\/\d+\/posts\/\d+$/);
    const next = new URL(first.json.paging.next);
    assert.equal(next.searchParams.get('access_token'), null, 'the next URL does not repeat the token');
    const second = await graph('GET', `/v23.0/${page.id}/feed`, {
      limit: '2',
      after: first.json.paging.cursors.after,
      access_token: page.access_token,
    });
    assert.deepEqual(
      second.json.data.map((p: { message: string }) => p.message),
      ['paged 2', 'paged 1'],
    );
    const future = await graph('GET', `/v23.0/${page.id}/feed`, {
      since: String(Math.floor(Date.now() / 1000) + 3600),
      access_token: page.access_token,
    });
    assert.deepEqual(future.json.data, []);
    for (const limit of ['0', '101', 'many'])
      assert.equal(
        (await graph('GET', `/v23.0/${page.id}/feed`, { limit, access_token: page.access_token })).json.error.code,
        100,
      );
  });

  test('the consent page is HTML with approve and cancel; a broken dialog request is an error page, not a redirect', async () => {
    const page = await fetch(
      `${base}/v23.0/dialog/oauth?client_id=a&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=s&scope=pages_show_list`,
    );
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    assert.match(html, /name="sandbox_username"/);
    assert.match(html, /name="decision" value="deny"/);
    for (const query of [
      'redirect_uri=https%3A%2F%2Fapp.example%2Fcb',
      'client_id=a',
      'client_id=a&redirect_uri=not-a-url',
    ]) {
      const res = await fetch(`${base}/v23.0/dialog/oauth?${query}`, { redirect: 'manual' });
      assert.equal(res.status, 400, query);
    }
  });

  test("a post's page shows the Page, the text with its link, every photo with its alt text and the time; a deleted post is 404", async () => {
    const { pages } = await signIn('page_view_user');
    const page = pages[0]!;
    const token = { access_token: page.access_token };
    const photos = [];
    for (const alt of ['first photo', 'second photo'])
      photos.push(
        await graph(
          'POST',
          `/v23.0/${page.id}/photos`,
          { ...token, published: 'false', alt_text_custom: alt },
          photoForm(png()),
        ),
      );
    const unposted = await graph(
      'POST',
      `/v23.0/${page.id}/photos`,
      { ...token, published: 'false' },
      photoForm(png()),
    );
    const post = await graph('POST', `/v23.0/${page.id}/feed`, {
      ...token,
      message: 'Our <new> shop opens: https://example.com/shop #opening',
      ...Object.fromEntries(photos.map((p, i) => [`attached_media[${i}]`, JSON.stringify({ media_fbid: p.json.id })])),
    });
    const read = await graph('GET', `/v23.0/${post.json.id}`, { ...token, fields: 'permalink_url,created_time' });
    const res = await fetch(read.json.permalink_url);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<strong>page view user Page<\/strong> <span class="handle">@page_view_user<\/span>/);
    assert.match(html, /Our &lt;new&gt; shop opens: <a style="color:#1877F2" href="https:\/\/example\.com\/shop"/);
    assert.match(html, /<b style="color:#1877F2">#opening<\/b>/);
    for (const [i, photo] of photos.entries()) {
      const url = `${base}/web/media/${photo.json.id}`;
      assert.ok(html.includes(`<img src="${url}" alt="${['first photo', 'second photo'][i]}"`), url);
      const image = await fetch(url);
      assert.equal(image.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await image.arrayBuffer()), png());
    }
    // Graph's created_time is to the second; the page's time is the same instant.
    assert.ok(html.includes(`<time datetime="${read.json.created_time.slice(0, 19)}.`), 'the time');
    assert.equal((await fetch(`${base}/web/media/${unposted.json.id}`)).status, 404, 'an unposted photo is private');
    const link = await graph('POST', `/v23.0/${page.id}/feed`, {
      ...token,
      message: 'Read this',
      link: 'https://example.com/a',
    });
    const linkPage = await (await fetch(`${base}/web/${page.id}/posts/${link.json.id.split('_')[1]}`)).text();
    assert.match(linkPage, /Read this<br><a [^>]*href="https:\/\/example\.com\/a"/, 'a link post shows its link');
    await graph('DELETE', `/v23.0/${post.json.id}`, token);
    const gone = await fetch(read.json.permalink_url);
    assert.equal(gone.status, 404);
    assert.match(await gone.text(), /does not exist in the Facebook sandbox/);
  });
});
