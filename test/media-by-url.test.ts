// Media by URL: `POST /v1/media` with `url` answers 202 with a `processing` media, and the `fetch_media` job brings
// the bytes from a local HTTP server through the SSRF guard — private addresses refused at once and on every
// redirect (and at connect time, after a DNS change), too large (announced or not), too slow, wrong content —
// checked as an upload is; posts may use the media at once, their targets waiting for it or failing with its reason.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { insertFetchedMedia } from '../src/features/media/media.repo.ts';
import { Media } from '../src/features/media/media.schemas.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { Value } from 'typebox/value';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, mediaRecord, send, type MediaTestApp } from './helpers/media.ts';
import { mp4, png as tinyPng } from './helpers/media-fixtures.ts';
import { png } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';
import { fakeDns } from './helpers/webhooks.ts';

const IMAGE_CAP = 100_000;
const VIDEO_CAP = 200_000;

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;
let server: http.Server;
let origin: string;
const open = new Set<http.ServerResponse>();
const gates = new Map<string, () => void>();
const hits = new Map<string, number>();
const video = mp4({ durationMs: 4_000, width: 640, height: 360, frameRate: 25 });
const dns = fakeDns({
  'media.test': ['127.0.0.1'],
  'private.example': ['10.0.0.7'],
  'public.example': ['93.184.216.34'],
});

function serve(request: http.IncomingMessage, response: http.ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://media.test');
  hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
  open.add(response);
  response.on('close', () => open.delete(response));
  const port = (server.address() as AddressInfo).port;
  switch (url.pathname) {
    case '/clips/launch%20video.mp4':
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': video.length }).end(video);
      return;
    case '/photo.png':
      response.writeHead(200, { 'content-type': 'image/png' }).end(png(64, 48, 2048));
      return;
    case '/hop':
      response.writeHead(302, { location: `http://media.test:${port}/photo.png` }).end();
      return;
    case '/to-private':
      response.writeHead(302, { location: 'https://private.example/inside' }).end();
      return;
    case '/to-loopback':
      response.writeHead(301, { location: `https://127.0.0.1:${port}/photo.png` }).end();
      return;
    case '/loop':
      response.writeHead(302, { location: '/loop' }).end();
      return;
    case '/big': // no Content-Length: the cap is enforced while streaming
      response.writeHead(200, { 'content-type': 'video/mp4' });
      response.write(video);
      for (let i = 0; i < 30; i++) response.write(Buffer.alloc(10_000));
      response.end();
      return;
    case '/big-announced':
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(VIDEO_CAP + 1) });
      response.write(video); // then never finishes: Herald stops at the header
      return;
    case '/slow':
      response.writeHead(200, { 'content-type': 'video/mp4' });
      response.write(video.subarray(0, 100)); // and then nothing, until the test ends
      return;
    case '/text':
      response.writeHead(200, { 'content-type': 'image/png' }).end('this is not a picture at all');
      return;
    case '/large-image': // under the largest cap (video), over the image cap
      response.writeHead(200).end(Buffer.concat([tinyPng(), Buffer.alloc(IMAGE_CAP)]));
      return;
    case '/gated.png': {
      response.writeHead(200, { 'content-type': 'image/png' });
      gates.set(url.searchParams.get('gate') ?? '', () => response.end(png(64, 48, 2048)));
      return;
    }
    case '/gated.webm': {
      // An EBML header naming the webm doc type: enough for the sniffer, which reads nothing else of a WebM.
      const ebml = [0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81];
      const rest = [0x04, 0x42, 0xf3, 0x81, 0x08, 0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d, 0x42, 0x87, 0x81, 0x04];
      const webm = Buffer.concat([Buffer.from([...ebml, ...rest, 0x42, 0x85, 0x81, 0x02]), Buffer.alloc(512)]);
      response.writeHead(200, { 'content-type': 'video/webm' });
      gates.set(url.searchParams.get('gate') ?? '', () => response.end(webm));
      return;
    }
    case '/gated-missing': {
      gates.set(url.searchParams.get('gate') ?? '', () => response.writeHead(404).end('gone'));
      return;
    }
    default:
      response.writeHead(404).end('not here');
  }
}

before(async () => {
  server = http.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://media.test:${(server.address() as AddressInfo).port}`;
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildMediaTestApp({
    lookup: dns,
    env: {
      HERALD_SANDBOX_URL: sandbox.url,
      HERALD_OUTBOUND_ALLOWLIST: 'media.test',
      HERALD_MEDIA_MAX_IMAGE_BYTES: String(IMAGE_CAP),
      HERALD_MEDIA_MAX_VIDEO_BYTES: String(VIDEO_CAP),
      HERALD_MEDIA_MAX_DOCUMENT_BYTES: String(IMAGE_CAP),
      HERALD_MEDIA_FETCH_TIMEOUT_SECONDS: '2',
    },
  });
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  for (const response of open) response.destroy();
  await worker.stop();
  await t.close();
  await sandbox.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const fromUrl = (body: Record<string, unknown>) => t.inject({ method: 'POST', url: '/v1/media', key, payload: body });

async function settled(id: string) {
  return pollFor(`media ${id} settled`, async () => {
    const media = await mediaRecord(t, key, id);
    return media.status === 'ready' || media.status === 'failed' ? media : undefined;
  });
}

/** Creates a media from `url` and waits for the fetch to end. */
async function fetched(url: string, extra: Record<string, unknown> = {}) {
  const res = await fromUrl({ url, ...extra });
  assert.equal(res.statusCode, 202, res.body);
  return settled(res.json().data.id);
}

async function eventsOf(id: string) {
  const { rows } = await t.container.pool.query(`SELECT type, data FROM events WHERE data->>'id' = $1`, [id]);
  return rows as { type: string; data: Record<string, unknown> }[];
}

describe('POST /v1/media with a url', () => {
  test('202 with the media processing; the job makes it ready, sniffed and probed like an upload', async () => {
    const res = await fromUrl({ url: `${origin}/clips/launch%20video.mp4` });
    assert.equal(res.statusCode, 202, res.body);
    const created = res.json().data;
    assert.equal(created.status, 'processing');
    assert.equal(created.content_type, null);
    assert.equal(created.kind, null);
    assert.equal(created.filename, 'launch video.mp4');
    assert.equal(created.source_url, `${origin}/clips/launch%20video.mp4`);
    assert.ok(Value.Check(Media, created), JSON.stringify([...Value.Errors(Media, created)].slice(0, 3)));

    const media = await settled(created.id);
    assert.equal(media.status, 'ready', media.failure_reason);
    assert.equal(media.content_type, 'video/mp4');
    assert.equal(media.kind, 'video');
    assert.equal(media.size_bytes, video.length);
    assert.deepEqual([media.width, media.height, media.duration_ms], [640, 360, 4_000]);
    assert.equal(media.video.container, 'mp4');
    assert.equal(media.video.video_codec, 'h264');
    assert.equal(media.video.audio_codec, 'aac');
    assert.equal(media.video.frame_rate, 25);
    assert.ok(Value.Check(Media, media), JSON.stringify([...Value.Errors(Media, media)].slice(0, 3)));
    const download = await send(media.url as string, { method: 'GET', origin: t.origin });
    assert.ok(download.body.equals(video));
    assert.deepEqual(
      (await eventsOf(created.id)).map((e) => e.type),
      ['media.ready'],
    );
  });

  test('a redirect is followed when its target passes the guard; filename is taken from the body', async () => {
    const media = await fetched(`${origin}/hop`, { filename: 'cover.png' });
    assert.equal(media.status, 'ready', media.failure_reason);
    assert.equal(media.content_type, 'image/png');
    assert.equal(media.filename, 'cover.png');
    assert.equal(media.video, null);
  });

  test('the upload-request body still works on the same endpoint (201 with an upload URL)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/media',
      key,
      payload: { filename: 'a.png', content_type: 'image/png', size_bytes: 10 },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.json().data.upload.signed_url, /\/uploads\//);
    const mixed = await fromUrl({ url: `${origin}/photo.png`, content_type: 'image/png' });
    assert.equal(mixed.statusCode, 400, mixed.body);
    assert.equal((await fromUrl({ url: 'not a url' })).statusCode, 400);
  });
});

describe('the SSRF guard, on the URL and on every redirect', () => {
  test('a private address, an IP literal in a private range and plain http are refused at once (422)', async () => {
    for (const [url, rule] of [
      ['https://private.example/a.png', 'url_address_blocked'],
      ['https://10.1.2.3/a.png', 'url_address_blocked'],
      ['https://[::ffff:127.0.0.1]/a.png', 'url_address_blocked'],
      ['http://public.example/a.png', 'url_scheme_blocked'],
      ['https://nowhere.example/a.png', 'url_dns_unresolved'],
    ] as const) {
      const res = await fromUrl({ url });
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      assert.equal(res.json().error.details[0].rule, rule, url);
      assert.equal(res.json().error.details[0].path, '/url');
    }
    const { rows } = await t.container.pool.query(
      `SELECT count(*)::int AS n FROM media WHERE source_url LIKE '%a.png'`,
    );
    assert.equal(rows[0].n, 0, 'nothing is written for a refused URL');
  });

  test('redirects to a private name or a loopback address fail the media, with media.failed', async () => {
    const privateHop = await fetched(`${origin}/to-private`);
    assert.equal(privateHop.status, 'failed');
    assert.match(privateHop.failure_reason, /redirect to https:\/\/private\.example\/inside was refused.*10\.0\.0\.7/);
    const loopbackHop = await fetched(`${origin}/to-loopback`);
    assert.equal(loopbackHop.status, 'failed');
    assert.match(loopbackHop.failure_reason, /redirect to https:\/\/127\.0\.0\.1:\d+\/photo\.png was refused/);
    const [event] = await eventsOf(loopbackHop.id);
    assert.equal(event?.type, 'media.failed');
    assert.equal(event?.data.failure_reason, loopbackHop.failure_reason);
    const loop = await fetched(`${origin}/loop`);
    assert.match(loop.failure_reason, /redirected more than 5 times/);
  });

  test('a name that resolves to a private address by the time of the fetch is refused then', async () => {
    const res = await fromUrl({ url: 'https://public.example/photo.png' }); // public when created …
    assert.equal(res.statusCode, 202, res.body);
    dns.table['public.example'] = ['192.168.1.20']; // … private when the job connects
    try {
      const media = await settled(res.json().data.id);
      assert.equal(media.status, 'failed');
      assert.match(media.failure_reason, /192\.168\.1\.20, a private or reserved address/);
    } finally {
      dns.table['public.example'] = ['93.184.216.34'];
    }
  });
});

describe('what the fetch refuses', () => {
  test('too large: streamed past the largest cap, or announced over it by Content-Length', async () => {
    const streamed = await fetched(`${origin}/big`);
    assert.equal(streamed.status, 'failed');
    assert.match(streamed.failure_reason, new RegExp(`larger than the ${VIDEO_CAP} bytes`));
    const announced = await fetched(`${origin}/big-announced`);
    assert.match(announced.failure_reason, new RegExp(`${VIDEO_CAP + 1} bytes \\(Content-Length\\)`));
    const overKind = await fetched(`${origin}/large-image`);
    assert.equal(overKind.content_type, 'image/png');
    assert.match(overKind.failure_reason, new RegExp(`image media are limited to ${IMAGE_CAP} bytes`));
    assert.equal(
      (await t.container.pool.query('SELECT storage_key FROM media WHERE id = $1', [overKind.id])).rows[0].storage_key,
      null,
    );
  });

  test('too slow: the whole fetch has one deadline (HERALD_MEDIA_FETCH_TIMEOUT_SECONDS)', async () => {
    const media = await fetched(`${origin}/slow`);
    assert.equal(media.status, 'failed');
    assert.match(media.failure_reason, /did not send the whole file within 2 s/);
  });

  test('wrong content, or an HTTP error, fails the media with what the bytes or the server said', async () => {
    const text = await fetched(`${origin}/text`);
    assert.match(text.failure_reason, /not a file type Herald recognises; Herald takes image\/jpeg/);
    const missing = await fetched(`${origin}/nothing-here`);
    assert.match(missing.failure_reason, /HTTP 404/);
  });
});

describe('a fetch that never ends', () => {
  test('is failed by the cleanup sweep once past its deadline, with media.failed', async () => {
    const id = `med_${'0'.repeat(20)}stall1`;
    await insertFetchedMedia(t.container.pool, {
      id,
      workspaceId: t.owner.workspaceId,
      filename: 'lost.png',
      sourceUrl: `${origin}/photo.png`,
      maxBytes: VIDEO_CAP,
      storageDriver: 'local',
      uploadKey: `${t.owner.workspaceId}/${id}`,
      deadline: new Date(Date.now() - 1000), // its job never ran (no worker had the task)
      createdBy: t.owner.userId,
    });
    const report = await t.container.media.sweep();
    assert.ok(report.stalledFetches >= 1);
    const media = await mediaRecord(t, key, id);
    assert.equal(media.status, 'failed');
    assert.match(media.failure_reason, /did not finish before its deadline/);
    assert.deepEqual(
      (await eventsOf(id)).map((e) => e.type),
      ['media.failed'],
    );
  });
});

describe('posts that use media by URL', () => {
  async function createPost(mediaId: string, extra: Record<string, unknown> = {}) {
    return t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: `By URL ${Date.now()} ${Math.random()}`,
        platforms: ['bluesky'],
        media_ids: [mediaId],
        ...extra,
      },
    });
  }

  test('a processing media may be used at once; its target waits, without an attempt, and publishes once ready', async () => {
    const gate = `ready-${Date.now()}`;
    const res = await fromUrl({ url: `${origin}/gated.png?gate=${gate}` });
    const id = res.json().data.id;
    const post = await createPost(id, { publish_now: true });
    assert.equal(post.statusCode, 201, post.body);
    const postId = post.json().data.post.id;
    await pollFor('the fetch has started', async () => gates.has(gate));
    // While the bytes are on their way, the target is deferred: no attempt is recorded.
    await new Promise((r) => setTimeout(r, 500));
    const { rows } = await t.container.pool.query('SELECT attempt_count FROM post_targets WHERE post_id = $1', [
      postId,
    ]);
    assert.equal(rows[0].attempt_count, 0);
    gates.get(gate)!();
    const done = await pollFor('the post waiting for its media is published', async () => {
      const p = (await t.inject({ url: `/v1/posts/${postId}`, key })).json().data;
      return ['published', 'failed', 'partially_published'].includes(p.status) ? p : undefined;
    });
    assert.equal(done.status, 'published', JSON.stringify(done.targets.map((x: { error: unknown }) => x.error)));
  });

  test('a target whose media then fails fails with the reason; later posts get a 422 naming it', async () => {
    const gate = `missing-${Date.now()}`;
    const id = (await fromUrl({ url: `${origin}/gated-missing?gate=${gate}` })).json().data.id;
    const post = await createPost(id, { publish_now: true });
    assert.equal(post.statusCode, 201, post.body);
    await pollFor('the fetch has started', async () => gates.has(gate));
    gates.get(gate)!();
    const done = await pollFor('the post whose media failed settles', async () => {
      const p = (await t.inject({ url: `/v1/posts/${post.json().data.post.id}`, key })).json().data;
      return ['published', 'failed', 'partially_published'].includes(p.status) ? p : undefined;
    });
    assert.equal(done.status, 'failed');
    assert.match(done.targets[0].error.message, new RegExp(`Media ${id} failed: .*HTTP 404`));

    const later = await createPost(id);
    assert.equal(later.statusCode, 422, later.body);
    const detail = later.json().error.details.find((d: { rule: string }) => d.rule === 'media_failed');
    assert.match(detail.message, /failed to be fetched from its URL: .*HTTP 404/);
  });

  test('a media the target platform does not take, known only once fetched, fails the target before anything is sent', async () => {
    const gate = `webm-${Date.now()}`;
    const id = (await fromUrl({ url: `${origin}/gated.webm?gate=${gate}` })).json().data.id;
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: `WebM on X ${Date.now()}`, platforms: ['x'], media_ids: [id], publish_now: true },
    });
    assert.equal(post.statusCode, 201, post.body);
    await pollFor('the fetch has started', async () => gates.has(gate));
    gates.get(gate)!();
    const done = await pollFor('the post whose media X does not take settles', async () => {
      const p = (await t.inject({ url: `/v1/posts/${post.json().data.post.id}`, key })).json().data;
      return ['published', 'failed', 'partially_published'].includes(p.status) ? p : undefined;
    });
    assert.equal(done.status, 'failed');
    assert.equal(done.targets[0].error.code, 'PLATFORM_MEDIA_REJECTED');
    assert.match(done.targets[0].error.message, new RegExp(`X does not take video/webm \\(media ${id}\\)`));
    assert.equal((await mediaRecord(t, key, id)).status, 'ready');
  });

  test('a video fetched by URL is checked against the video rules like an upload', async () => {
    const media = await fetched(`${origin}/clips/launch%20video.mp4`);
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key,
      payload: { content: 'video', platforms: ['instagram', 'x'], media_ids: [media.id] },
    });
    const rules = res.json().data.issues.map((i: { platform: string; rule: string }) => `${i.platform}:${i.rule}`);
    assert.ok(!rules.some((r: string) => r.startsWith('x:video_')), rules.join());
    assert.ok(!rules.some((r: string) => r.startsWith('instagram:video_')), rules.join());
  });

  test('every fetch is one request per hop: the job does not fetch twice', async () => {
    assert.equal(hits.get('/hop'), 1);
    assert.equal(hits.get('/to-private'), 1);
  });
});
