// The upload flow of docs/api.md "Media" with the local storage driver: upload URL → PUT → the media record,
// sniffed, with a URL that serves its bytes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { sha256 } from '../src/lib/crypto.ts';
import {
  buildMediaTestApp,
  mediaRecord,
  movableClock,
  requestUpload,
  send,
  storedFiles,
  uploadBytes,
  type MediaTestApp,
} from './helpers/media.ts';
import { gif, jpeg, mov, mp4, pdf, png, webp } from './helpers/media-fixtures.ts';

let t: MediaTestApp;
let key: string;
const clock = movableClock();

// A small image cap (configurable, HERALD_MEDIA_MAX_IMAGE_BYTES) so oversize bodies stay small.
const IMAGE_CAP = 200_000;

before(async () => {
  t = await buildMediaTestApp({ clock, env: { HERALD_MEDIA_MAX_IMAGE_BYTES: String(IMAGE_CAP) } });
  key = await t.key();
});
after(() => t.close());

const getMedia = (id: string) => mediaRecord(t, key, id);

async function freshUpload(body: Record<string, unknown> = {}) {
  const res = await requestUpload(t, key, {
    filename: 'pic.png',
    content_type: 'image/png',
    size_bytes: png().length,
    ...body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as {
    media_id: string;
    upload: { signed_url: string; headers: Record<string, string>; max_bytes: number; expires_at: string };
  };
}

describe('POST /v1/media/upload-url', () => {
  test('answers media_id and a single-use PUT URL, and the media waits for its upload', async () => {
    const data = await freshUpload({ filename: 'launch.png' });
    assert.match(data.media_id, /^med_[0-9a-z]{26}$/);
    assert.match(
      data.upload.signed_url,
      new RegExp(`^http://herald\\.test/uploads/${t.owner.workspaceId}/${data.media_id}\\?expires=\\d+&signature=`),
    );
    assert.deepEqual(data.upload.headers, { 'Content-Type': 'image/png' });
    assert.equal((data.upload as unknown as { method: string }).method, 'PUT');
    assert.equal(data.upload.max_bytes, png().length);
    const ttl = Date.parse(data.upload.expires_at) - clock.now().getTime();
    assert.ok(ttl > 3500_000 && ttl <= 3600_000, `expires in ${ttl} ms`);
    const media = await getMedia(data.media_id);
    assert.equal(media.status, 'pending_upload');
    assert.equal(media.filename, 'launch.png');
    assert.equal(media.url, null);
    assert.equal(media.upload_expires_at, data.upload.expires_at);
  });

  test('max_bytes is the cap for the kind when no size_bytes is given (configured, or the defaults)', async () => {
    const image = await requestUpload(t, key, { filename: 'a.jpg', content_type: 'image/jpeg' });
    assert.equal(image.json().data.upload.max_bytes, IMAGE_CAP);
    const video = await requestUpload(t, key, { filename: 'a.mp4', content_type: 'video/mp4' });
    assert.equal(video.json().data.upload.max_bytes, 4 * 1024 * 1024 * 1024);
    const doc = await requestUpload(t, key, { filename: 'a.pdf', content_type: 'application/pdf' });
    assert.equal(doc.json().data.upload.max_bytes, 100 * 1024 * 1024);
  });

  test('a size_bytes over the cap of its kind is a 413 and creates nothing', async () => {
    const before = (await t.inject({ url: '/v1/media?limit=100', key })).json().data.items.length;
    const res = await requestUpload(t, key, {
      filename: 'huge.png',
      content_type: 'image/png',
      size_bytes: IMAGE_CAP + 1,
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error.code, 'PUBLIC_API_PAYLOAD_TOO_LARGE');
    assert.equal(res.json().error.details[0].path, '/size_bytes');
    assert.equal((await t.inject({ url: '/v1/media?limit=100', key })).json().data.items.length, before);
  });

  test('content types are compared as lower-case type/subtype; unsupported ones are a 422, malformed ones a 400', async () => {
    const mixed = await requestUpload(t, key, { filename: 'a.png', content_type: 'Image/PNG; charset=binary' });
    assert.deepEqual(mixed.json().data.upload.headers, { 'Content-Type': 'image/png' });
    const unsupported = await requestUpload(t, key, { filename: 'a.bmp', content_type: 'image/bmp' });
    assert.equal(unsupported.statusCode, 422);
    assert.equal(unsupported.json().error.details[0].rule, 'content_type_unsupported');
    const malformed = await requestUpload(t, key, { filename: 'a', content_type: 'png please' });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error.details[0].path, '/content_type');
    const extra = await requestUpload(t, key, { filename: 'a.png', content_type: 'image/png', colour: 'red' });
    assert.equal(extra.statusCode, 400);
  });

  test('needs media:write and an Idempotency-Key', async () => {
    const reader = await t.key({ scopes: ['posts:read'] });
    const res = await requestUpload(t, reader, { filename: 'a.png', content_type: 'image/png' });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().error.message, /media:write/);
    const noKey = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      idem: false,
      payload: { filename: 'a.png', content_type: 'image/png' },
    });
    assert.equal(noKey.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
  });
});

describe('the local signed PUT', () => {
  const fixtures: Array<[string, Buffer, string, Record<string, unknown>]> = [
    ['PNG', png(5, 3), 'image/png', { width: 5, height: 3, duration_ms: null }],
    ['JPEG', jpeg(24, 16), 'image/jpeg', { width: 24, height: 16 }],
    ['GIF', gif(7, 4), 'image/gif', { width: 7, height: 4 }],
    ['WebP', webp(6, 5), 'image/webp', { width: 6, height: 5 }],
    [
      'MP4',
      mp4({ durationMs: 12_345, width: 1080, height: 1920 }),
      'video/mp4',
      { width: 1080, height: 1920, duration_ms: 12_345, kind: 'video' },
    ],
    ['MOV', mov({ durationMs: 3_000 }), 'video/quicktime', { width: 1280, height: 720, duration_ms: 3_000 }],
    ['PDF', pdf(), 'application/pdf', { width: null, height: null, kind: 'document' }],
  ];
  for (const [name, bytes, contentType, expected] of fixtures) {
    test(`a ${name} upload answers the ready media with its metadata, and its URL serves the bytes`, async () => {
      const { mediaId, put } = await uploadBytes(t, key, bytes, contentType, {
        filename: `file.${name.toLowerCase()}`,
      });
      assert.equal(put.status, 200, put.body.toString());
      const media = put.json().data;
      assert.equal(media.id, mediaId);
      assert.equal(media.status, 'ready');
      assert.equal(media.content_type, contentType);
      assert.equal(media.size_bytes, bytes.length);
      assert.equal(media.sha256, sha256(bytes).toString('hex'));
      for (const [field, value] of Object.entries(expected)) assert.equal(media[field], value, field);
      const download = await send(media.url, { method: 'GET', origin: t.origin });
      assert.equal(download.status, 200);
      assert.equal(download.headers['content-type'], contentType);
      assert.ok(download.body.equals(bytes));
    });
  }

  test('a ready upload records media.ready in the outbox, with the media record', async () => {
    const { mediaId } = await uploadBytes(t, key, png(), 'image/png');
    const { rows } = await t.container.pool.query(`SELECT type, data FROM events WHERE data->>'id' = $1`, [mediaId]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['media.ready'],
    );
    assert.equal(rows[0].data.status, 'ready');
  });

  test('bytes that are not the declared type: 422 with the reason, the media failed, a media.failed event', async () => {
    const { mediaId, put } = await uploadBytes(t, key, png(), 'video/mp4');
    assert.equal(put.status, 422, put.body.toString());
    const error = put.json();
    assert.equal(error.success, false);
    assert.equal(error.error.code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.match(error.error.message, new RegExp(`upload of media ${mediaId} was refused`));
    assert.equal(error.error.details[0].rule, 'upload_refused');
    assert.match(error.error.details[0].message, /image\/png, not the declared video\/mp4/);
    const media = await mediaRecord(t, key, mediaId);
    assert.equal(media.status, 'failed');
    assert.match(media.failure_reason, /image\/png, not the declared video\/mp4/);
    assert.equal(media.url, null);
    assert.deepEqual(
      (await storedFiles(t)).filter((f) => f.includes(mediaId)),
      [],
    );
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [mediaId]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['media.failed'],
    );
  });

  test('bytes of no known type fail with a reason too', async () => {
    const { mediaId, put } = await uploadBytes(t, key, Buffer.from('definitely not a picture'), 'image/jpeg');
    assert.equal(put.status, 422);
    assert.match(put.json().error.message, /not a file type Herald recognises/);
    assert.equal((await mediaRecord(t, key, mediaId)).status, 'failed');
  });

  test('the PUT Content-Type is compared as lower-case type/subtype, parameters ignored', async () => {
    const data = await freshUpload();
    const res = await send(data.upload.signed_url, {
      origin: t.origin,
      headers: { 'content-type': 'IMAGE/png; name=x' },
      body: png(),
    });
    assert.equal(res.status, 200, res.body.toString());
  });

  test('an upload without size_bytes may be chunked, and is taken up to max_bytes', async () => {
    const res = await requestUpload(t, key, { filename: 'v.mp4', content_type: 'video/mp4' });
    const { upload } = res.json().data;
    const put = await send(upload.signed_url, {
      origin: t.origin,
      headers: upload.headers,
      body: Readable.from([mp4().subarray(0, 100), mp4().subarray(100)]),
    });
    assert.equal(put.status, 200, put.body.toString());
    assert.equal(put.json().data.duration_ms, 5_000);
  });
});
