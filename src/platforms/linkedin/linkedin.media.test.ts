// The LinkedIn media protocols against the simulator: videos uploaded in the byte ranges LinkedIn hands out and
// their processing states, PDF documents, and multi-image posts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rejects } from '../../../test/helpers/adapter-contract.ts';
import { mediaSource, mp4, png } from '../../../test/helpers/media-sources.ts';
import { rig, SPECIFICS_SETTINGS, type Rig } from './linkedin.fixture.ts';

const pdf = () => Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe('LinkedIn adapter specifics', () => {
  let r: Rig;
  before(async () => {
    r = await rig(SPECIFICS_SETTINGS);
  });
  after(() => r.sandbox.close());
  const held = async () => await r.sandbox.simulator('linkedin').posts();

  test('a video is sent in the byte ranges LinkedIn hands out and finalized with their ETags in order', async () => {
    const size = 350_000;
    const init = await r.rest('POST', '/rest/videos', {
      query: { action: 'initializeUpload' },
      json: {
        initializeUploadRequest: {
          owner: r.session.connection.accountId,
          fileSizeBytes: size,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      },
    });
    assert.equal(init.status, 200, init.text());
    const value = init.json<{
      value: {
        video: string;
        uploadToken: string;
        uploadInstructions: Array<{ uploadUrl: string; firstByte: number; lastByte: number }>;
      };
    }>().value;
    assert.deepEqual(
      value.uploadInstructions.map((i) => [i.firstByte, i.lastByte]),
      [
        [0, 99_999],
        [100_000, 199_999],
        [200_000, 299_999],
        [300_000, 349_999],
      ],
    );
    const bytes = mp4(size);
    const etags: string[] = [];
    for (const i of value.uploadInstructions) {
      const put = await r.http.request({
        method: 'PUT',
        path: i.uploadUrl,
        body: { data: bytes.subarray(i.firstByte, i.lastByte + 1), contentType: 'application/octet-stream' },
      });
      assert.equal(put.status, 200);
      etags.push(String(put.headers.etag));
    }
    const status = async () =>
      (await r.rest('GET', `/rest/videos/${encodeURIComponent(value.video)}`)).json<{ status: string }>().status;
    assert.equal(await status(), 'WAITING_UPLOAD');
    const finalize = (ids: string[]) =>
      r.rest('POST', '/rest/videos', {
        query: { action: 'finalizeUpload' },
        json: { finalizeUploadRequest: { video: value.video, uploadToken: value.uploadToken, uploadedPartIds: ids } },
      });
    assert.equal((await finalize([...etags].reverse())).status, 400, 'ETags out of order are refused');
    assert.equal((await finalize(etags.slice(1))).status, 400, 'a missing ETag is refused');
    assert.equal((await finalize(etags)).status, 200);
    assert.equal(await status(), 'PROCESSING');
    const post = await r.rest('POST', '/rest/posts', {
      json: {
        author: r.session.connection.accountId,
        commentary: 'too early',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED' },
        lifecycleState: 'PUBLISHED',
        content: { media: { id: value.video } },
      },
    });
    assert.equal(post.status, 422, 'a video still processing cannot be posted');
    const deadline = Date.now() + 20_000;
    while ((await status()) !== 'AVAILABLE') {
      assert.ok(Date.now() < deadline, 'video processing ends');
      await new Promise((done) => setTimeout(done, 100));
    }
  });

  test('the adapter uploads a multi-part video, waits for processing and posts it', async () => {
    const media = await r.adapter.prepareMedia(r.session, [mediaSource(mp4(250_001), 'video/mp4')], {});
    assert.match(media[0]!.platformRef, /^urn:li:video:/);
    const post = await r.adapter.publish(r.session, r.part(`video ${Date.now()}`, { media }));
    assert.equal((await held()).find((p) => p.id === post.id)?.media, 1);
  });

  test("bytes that are not a video end in PROCESSING_FAILED: media_rejected with LinkedIn's reason", async () => {
    const error = await rejects(
      r.adapter.prepareMedia(r.session, [mediaSource(png(2, 2, 150_000), 'video/mp4', { kind: 'video' })], {}),
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    );
    assert.match(error.message, /not a supported video/);
  });

  test('a PDF is posted as a document with its title; other bytes are refused', async () => {
    const media = await r.adapter.prepareMedia(
      r.session,
      [mediaSource(pdf(), 'application/pdf', { kind: 'document' })],
      {},
    );
    assert.match(media[0]!.platformRef, /^urn:li:document:/);
    const post = await r.adapter.publish(
      r.session,
      r.part(`document ${Date.now()}`, { media, options: { document_title: 'Quarterly report' } }),
    );
    const stored = (await r.rest('GET', `/rest/posts/${encodeURIComponent(post.id)}`)).json<{
      content: { media: { id: string; title: string } };
    }>();
    assert.deepEqual(stored.content.media, { id: media[0]!.platformRef, title: 'Quarterly report' });
    await rejects(
      r.adapter.prepareMedia(r.session, [mediaSource(png(), 'application/pdf', { kind: 'document' })], {}),
      'media_rejected',
    );
  });

  test('several images make a multi-image post with their alt texts; more than 20 are refused', async () => {
    const media = await r.adapter.prepareMedia(
      r.session,
      [1, 2, 3].map((n) => mediaSource(png(n, n), 'image/png', { altText: `image ${n}` })),
      {},
    );
    const post = await r.adapter.publish(r.session, r.part(`three images ${Date.now()}`, { media }));
    const stored = (await r.rest('GET', `/rest/posts/${encodeURIComponent(post.id)}`)).json<{
      content: { multiImage: { images: Array<{ id: string; altText: string }> } };
    }>();
    assert.deepEqual(
      stored.content.multiImage.images.map((i) => i.altText),
      ['image 1', 'image 2', 'image 3'],
    );
    const many = Array.from({ length: 21 }, () => media[0]!);
    await rejects(r.adapter.publish(r.session, r.part(`too many ${Date.now()}`, { media: many })), 'media_rejected');
  });
});
