// The upload flow of API.md "Media" with the local storage driver: upload URL → PUT → media record, and
// everything a signed URL must refuse (each refusal leaves the media pending and stores nothing).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sha256 } from '../src/lib/crypto.ts';
import { buildMediaTestApp, movableClock, requestUpload, send, uploadBytes, type MediaTestApp } from './helpers/media.ts';
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

async function getMedia(id: string) {
  return (await t.inject({ url: `/v1/media/${id}`, key })).json().data;
}

/** Files under the media directory (temporary ones included), relative to it. */
async function storedFiles(): Promise<string[]> {
  const dir = path.join(t.dataDir, 'media');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

async function freshUpload(body: Record<string, unknown> = {}) {
  const res = await requestUpload(t, key, { filename: 'pic.png', content_type: 'image/png', size_bytes: png().length, ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { media_id: string; upload: { signed_url: string; headers: Record<string, string>; max_bytes: number; expires_at: string } };
}

/** After a refused PUT: the error is an envelope, and the media is still waiting with nothing stored. */
async function assertRefused(res: Awaited<ReturnType<typeof send>>, status: number, code: string, mediaId: string) {
  assert.equal(res.status, status, res.body.toString());
  const body = res.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(body.request_id, res.headers['x-request-id']);
  assert.equal((await getMedia(mediaId)).status, 'pending_upload');
  assert.deepEqual((await storedFiles()).filter((f) => f.includes(mediaId) || f.startsWith('.incoming')), []);
}

describe('POST /v1/media/upload-url', () => {
  test('answers media_id and a single-use PUT URL, and the media waits for its upload', async () => {
    const data = await freshUpload({ filename: 'launch.png' });
    assert.match(data.media_id, /^med_[0-9a-z]{26}$/);
    assert.match(data.upload.signed_url, new RegExp(`^http://herald\\.test/uploads/${t.owner.workspaceId}/${data.media_id}\\?expires=\\d+&signature=`));
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
    const res = await requestUpload(t, key, { filename: 'huge.png', content_type: 'image/png', size_bytes: IMAGE_CAP + 1 });
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
    const noKey = await t.inject({ method: 'POST', url: '/v1/media/upload-url', key, idem: false, payload: { filename: 'a.png', content_type: 'image/png' } });
    assert.equal(noKey.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
  });
});

describe('the local signed PUT', () => {
  const fixtures: Array<[string, Buffer, string, Record<string, unknown>]> = [
    ['PNG', png(5, 3), 'image/png', { width: 5, height: 3, duration_ms: null }],
    ['JPEG', jpeg(24, 16), 'image/jpeg', { width: 24, height: 16 }],
    ['GIF', gif(7, 4), 'image/gif', { width: 7, height: 4 }],
    ['WebP', webp(6, 5), 'image/webp', { width: 6, height: 5 }],
    ['MP4', mp4({ durationMs: 12_345, width: 1080, height: 1920 }), 'video/mp4', { width: 1080, height: 1920, duration_ms: 12_345, kind: 'video' }],
    ['MOV', mov({ durationMs: 3_000 }), 'video/quicktime', { width: 1280, height: 720, duration_ms: 3_000 }],
    ['PDF', pdf(), 'application/pdf', { width: null, height: null, kind: 'document' }],
  ];
  for (const [name, bytes, contentType, expected] of fixtures) {
    test(`a ${name} upload answers the ready media with its metadata, and its URL serves the bytes`, async () => {
      const { mediaId, put } = await uploadBytes(t, key, bytes, contentType, { filename: `file.${name.toLowerCase()}` });
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
    assert.deepEqual(rows.map((r) => r.type), ['media.ready']);
    assert.equal(rows[0].data.status, 'ready');
  });

  test('bytes that are not the declared type make the media failed, with a reason and a media.failed event', async () => {
    const { mediaId, put } = await uploadBytes(t, key, png(), 'video/mp4');
    assert.equal(put.status, 200);
    const media = put.json().data;
    assert.equal(media.status, 'failed');
    assert.match(media.failure_reason, /image\/png, not the declared video\/mp4/);
    assert.equal(media.url, null);
    assert.deepEqual((await storedFiles()).filter((f) => f.includes(mediaId)), []);
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [mediaId]);
    assert.deepEqual(rows.map((r) => r.type), ['media.failed']);
  });

  test('bytes of no known type fail with a reason too', async () => {
    const { put } = await uploadBytes(t, key, Buffer.from('definitely not a picture'), 'image/jpeg');
    assert.equal(put.json().data.status, 'failed');
    assert.match(put.json().data.failure_reason, /not a file type Herald recognises/);
  });

  test('the PUT Content-Type is compared as lower-case type/subtype, parameters ignored', async () => {
    const data = await freshUpload();
    const res = await send(data.upload.signed_url, { origin: t.origin, headers: { 'content-type': 'IMAGE/png; name=x' }, body: png() });
    assert.equal(res.status, 200, res.body.toString());
  });

  test('an upload without size_bytes may be chunked, and is taken up to max_bytes', async () => {
    const res = await requestUpload(t, key, { filename: 'v.mp4', content_type: 'video/mp4' });
    const { upload } = res.json().data;
    const put = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: Readable.from([mp4().subarray(0, 100), mp4().subarray(100)]) });
    assert.equal(put.status, 200, put.body.toString());
    assert.equal(put.json().data.duration_ms, 5_000);
  });
});

describe('signed upload URL abuse', () => {
  test('a wrong method is a 405 with Allow, in the envelope', async () => {
    const { media_id: id, upload } = await freshUpload();
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await send(upload.signed_url, { method, origin: t.origin, headers: upload.headers, body: method === 'GET' ? undefined : png() });
      assert.equal(res.headers.allow, 'PUT', method);
      await assertRefused(res, 405, 'PUBLIC_API_METHOD_NOT_ALLOWED', id);
    }
  });

  test('a wrong or missing Content-Type is a 415', async () => {
    const { media_id: id, upload } = await freshUpload();
    await assertRefused(await send(upload.signed_url, { origin: t.origin, headers: { 'content-type': 'image/jpeg' }, body: png() }), 415, 'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE', id);
    await assertRefused(await send(upload.signed_url, { origin: t.origin, body: png() }), 415, 'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE', id);
  });

  test('an altered media id, workspace, signature or expiry is a 403 PUBLIC_API_SIGNED_URL_INVALID', async () => {
    const a = await freshUpload();
    const b = await freshUpload();
    const url = new URL(a.upload.signed_url);
    const tampered = [
      a.upload.signed_url.replace(a.media_id, b.media_id),
      a.upload.signed_url.replace(t.owner.workspaceId, '00000000-0000-4000-8000-000000000000'),
      a.upload.signed_url.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`),
      a.upload.signed_url.replace(/expires=\d+/, `expires=${Number(url.searchParams.get('expires')) + 3600}`),
      a.upload.signed_url.replace(/&signature=[^&]+/, ''),
      a.upload.signed_url.replace(a.media_id, 'med_..%2F..%2Fetc%2Fpasswd'),
    ];
    for (const bad of tampered) {
      const res = await send(bad, { origin: t.origin, headers: a.upload.headers, body: png() });
      assert.equal(res.status, 403, `${bad}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_SIGNED_URL_INVALID');
    }
    const traversal = await send(a.upload.signed_url.replace(a.media_id, '../../etc/passwd'), { origin: t.origin, headers: a.upload.headers, body: png() });
    assert.equal(traversal.status, 404); // dot segments are resolved before routing: no route, nothing read
    assert.equal((await getMedia(a.media_id)).status, 'pending_upload');
    assert.equal((await getMedia(b.media_id)).status, 'pending_upload');
    assert.deepEqual(await storedFiles(), (await storedFiles()).filter((f) => !f.includes(a.media_id) && !f.includes(b.media_id)));
  });

  test('an expired URL is a 403 PUBLIC_API_SIGNED_URL_EXPIRED', async () => {
    const { media_id: id, upload } = await freshUpload();
    clock.advance(3601_000);
    try {
      await assertRefused(await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: png() }), 403, 'PUBLIC_API_SIGNED_URL_EXPIRED', id);
    } finally {
      clock.advance(-3601_000);
    }
  });

  test('a URL used once is refused afterwards with 409, and the first bytes stay', async () => {
    const { media_id: id, upload } = await freshUpload();
    const first = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: png() });
    assert.equal(first.status, 200);
    const again = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: png(9, 9) });
    assert.equal(again.status, 409);
    assert.equal(again.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
    const media = await getMedia(id);
    assert.equal(media.sha256, sha256(png()).toString('hex'));
  });

  test('a body over max_bytes is a 413, whether announced by Content-Length or only seen while streaming', async () => {
    const res = await requestUpload(t, key, { filename: 'v.png', content_type: 'image/png' });
    const { media_id: id, upload } = res.json().data;
    assert.equal(upload.max_bytes, IMAGE_CAP);
    const announced = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: Buffer.alloc(IMAGE_CAP + 1) });
    await assertRefused(announced, 413, 'PUBLIC_API_PAYLOAD_TOO_LARGE', id);
    const streamed = Readable.from([png(), Buffer.alloc(IMAGE_CAP)]); // chunked: no Content-Length to refuse up front
    await assertRefused(await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: streamed }), 413, 'PUBLIC_API_PAYLOAD_TOO_LARGE', id);
  });

  test('a body of another size than the announced size_bytes is a 400, and an empty one too', async () => {
    const { media_id: id, upload } = await freshUpload();
    await assertRefused(await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: png().subarray(0, 40) }), 400, 'PUBLIC_API_BODY_INVALID', id);
    await assertRefused(await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: Readable.from([png().subarray(0, 40)]) }), 400, 'PUBLIC_API_BODY_INVALID', id);
    const open = (await requestUpload(t, key, { filename: 'e.png', content_type: 'image/png' })).json().data;
    await assertRefused(await send(open.upload.signed_url, { origin: t.origin, headers: open.upload.headers, body: Buffer.alloc(0) }), 400, 'PUBLIC_API_BODY_INVALID', open.media_id);
  });

  test('an upload cut off midway leaves no file and the media pending; the same URL then works', async () => {
    const res = await requestUpload(t, key, { filename: 'v.mp4', content_type: 'video/mp4' });
    const { media_id: id, upload } = res.json().data;
    const target = new URL(upload.signed_url);
    const origin = new URL(t.origin);
    const http = await import('node:http');
    await new Promise<void>((resolve) => {
      const request = http.request({ host: origin.hostname, port: origin.port, method: 'PUT', path: target.pathname + target.search, headers: { ...upload.headers, 'content-length': '1000000' } });
      request.on('error', () => resolve());
      request.write(mp4().subarray(0, 200));
      request.write(Buffer.alloc(100_000), () => setTimeout(() => request.destroy(), 50));
    });
    const started = Date.now();
    while ((await storedFiles()).some((f) => f.startsWith('.incoming')) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
    console.log(`# temporary file gone ${Date.now() - started} ms after the client vanished`);
    assert.deepEqual((await storedFiles()).filter((f) => f.startsWith('.incoming') || f.includes(id)), []);
    assert.equal((await getMedia(id)).status, 'pending_upload');
    const retry = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: mp4() });
    assert.equal(retry.status, 200);
    assert.equal(retry.json().data.status, 'ready');
  });

  test('two PUTs racing on one URL: one completes, the other gets 409, one file is stored', async () => {
    const { media_id: id, upload } = await freshUpload({ size_bytes: undefined });
    const bodies = [png(4, 4), png(8, 8)];
    const results = await Promise.all(bodies.map((body) => send(upload.signed_url, { origin: t.origin, headers: upload.headers, body })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
    const winner = results.find((r) => r.status === 200)!.json().data;
    assert.equal((await getMedia(id)).sha256, winner.sha256);
    assert.deepEqual((await storedFiles()).filter((f) => f.includes(id)), [`${t.owner.workspaceId}/${id}`]);
  });
});

describe('the signed download URL', () => {
  test('serves one byte range with 206 and Content-Range, and HEAD without a body', async () => {
    const bytes = mp4({ mdatBytes: 5000 });
    const { put } = await uploadBytes(t, key, bytes, 'video/mp4');
    const url = put.json().data.url;
    const part = await send(url, { method: 'GET', origin: t.origin, headers: { range: 'bytes=10-19' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers['content-range'], `bytes 10-19/${bytes.length}`);
    assert.ok(part.body.equals(bytes.subarray(10, 20)));
    const tail = await send(url, { method: 'GET', origin: t.origin, headers: { range: 'bytes=-5' } });
    assert.ok(tail.body.equals(bytes.subarray(-5)));
    const head = await send(url, { method: 'HEAD', origin: t.origin });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(bytes.length));
    assert.equal(head.body.length, 0);
  });

  test('a tampered or expired download URL is refused; an upload signature does not work for reading', async () => {
    const { put, upload } = await uploadBytes(t, key, png(), 'image/png');
    const url: string = put.json().data.url;
    const tampered = await send(url.replace(/signature=[^&]+/, `signature=${'B'.repeat(43)}`), { method: 'GET', origin: t.origin });
    assert.equal(tampered.json().error.code, 'PUBLIC_API_SIGNED_URL_INVALID');
    const crossed = await send(upload.signed_url.replace('/uploads/', '/files/'), { method: 'GET', origin: t.origin });
    assert.equal(crossed.json().error.code, 'PUBLIC_API_SIGNED_URL_INVALID');
    clock.advance(3600_000);
    try {
      const expired = await send(url, { method: 'GET', origin: t.origin });
      assert.equal(expired.status, 403);
      assert.equal(expired.json().error.code, 'PUBLIC_API_SIGNED_URL_EXPIRED');
    } finally {
      clock.advance(-3600_000);
    }
  });
});
