// Media end to end: uploaded through the media API (signed URL, local storage), attached to a post, and
// published on X, Bluesky and Mastodon in each platform's own media protocol — the engine reads the bytes
// through the media feature, never knowing where they live.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { png } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildMediaTestApp({ env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200' } });
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
});

test('an uploaded image is published with the post on X, Bluesky and Mastodon', async () => {
  const { mediaId, put } = await uploadBytes(t, key, png(64, 48, 2048), 'image/png', { filename: 'photo.png' });
  assert.equal(put.status, 200, put.body.toString());
  const text = `With an uploaded image ${Date.now()}`;
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: text,
      platforms: ['x', 'bluesky', 'mastodon'],
      media_ids: [mediaId],
      publish_now: true,
      platform_options: { mastodon: { alt_texts: ['a test photo'] } },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.post.id;
  const post = await pollFor('post with an uploaded image published', async () => {
    const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
    return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
  });
  assert.equal(post.status, 'published', JSON.stringify(post.targets.map((x: { error: unknown }) => x.error)));
  for (const platform of ['x', 'bluesky', 'mastodon'] as const) {
    const held = (await sandbox.simulator(platform).posts()).filter((p) => p.text === text);
    assert.equal(held.length, 1, platform);
    assert.equal(held[0]!.media, 1, `${platform} got the image`);
  }
});

test('two uploaded images go out on a Facebook Page as one post (unpublished photos + attached_media)', async () => {
  const ids: string[] = [];
  for (const [w, h] of [
    [64, 48],
    [48, 64],
  ] as const) {
    const { mediaId, put } = await uploadBytes(t, key, png(w, h, 2048), 'image/png', { filename: `photo-${w}.png` });
    assert.equal(put.status, 200, put.body.toString());
    ids.push(mediaId);
  }
  const text = `Facebook album ${Date.now()}`;
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: text,
      platforms: ['facebook'],
      media_ids: ids,
      publish_now: true,
      platform_options: { facebook: { alt_texts: ['landscape', 'portrait'] } },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.post.id;
  const post = await pollFor('Facebook album published', async () => {
    const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
    return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
  });
  assert.equal(post.status, 'published', JSON.stringify(post.targets.map((x: { error: unknown }) => x.error)));
  const held = (await sandbox.simulator('facebook').posts()).filter((p) => p.text === text);
  assert.equal(held.length, 1);
  assert.equal(held[0]!.media, 2);
  assert.equal(held[0]!.id, post.targets[0].platform_post_id);
});

test('LinkedIn: two uploaded images become a multi-image post, and an uploaded PDF a document post with its title', async () => {
  const images = [];
  for (const size of [
    [64, 48],
    [48, 64],
  ] as const) {
    const { mediaId, put } = await uploadBytes(t, key, png(size[0], size[1], 2048), 'image/png', {
      filename: 'photo.png',
    });
    assert.equal(put.status, 200, put.body.toString());
    images.push(mediaId);
  }
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
  const doc = await uploadBytes(t, key, pdf, 'application/pdf', { filename: 'report.pdf' });
  assert.equal(doc.put.status, 200, doc.put.body.toString());
  const stamp = Date.now();
  const payloads = [
    {
      content: `LinkedIn images ${stamp}`,
      platforms: ['linkedin'],
      media_ids: images,
      publish_now: true,
      platform_options: { linkedin: { alt_texts: ['first', 'second'] } },
    },
    {
      content: `LinkedIn document ${stamp}`,
      platforms: ['linkedin'],
      media_ids: [doc.mediaId],
      publish_now: true,
      platform_options: { linkedin: { document_title: 'Report' } },
    },
  ];
  for (const [i, payload] of payloads.entries()) {
    const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.post.id;
    const post = await pollFor(`LinkedIn post ${i} with media published`, async () => {
      const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
      return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
    });
    assert.equal(post.status, 'published', JSON.stringify(post.targets.map((x: { error: unknown }) => x.error)));
    const held = (await sandbox.simulator('linkedin').posts()).filter((p) => p.text === payload.content);
    assert.equal(held.length, 1);
    assert.equal(held[0]!.media, payload.media_ids.length);
    assert.equal(held[0]!.id, post.targets[0].platform_post_id);
  }
});
