// Everything a signed URL must refuse, each refusal an envelope that leaves the media pending and stores
// nothing: wrong method or Content-Type, tampering, expiry, reuse, oversize and cut-off bodies, races; and the
// signed download URL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
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
import { mp4, png } from './helpers/media-fixtures.ts';

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

/** After a refused PUT: the error is an envelope, and the media is still waiting with nothing stored. */
async function assertRefused(res: Awaited<ReturnType<typeof send>>, status: number, code: string, mediaId: string) {
  assert.equal(res.status, status, res.body.toString());
  const body = res.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(body.request_id, res.headers['x-request-id']);
  assert.equal((await getMedia(mediaId)).status, 'pending_upload');
  assert.deepEqual(
    (await storedFiles(t)).filter((f) => f.includes(mediaId) || f.startsWith('.incoming')),
    [],
  );
}

describe('signed upload URL abuse', () => {
  test('a wrong method is a 405 with Allow, in the envelope', async () => {
    const { media_id: id, upload } = await freshUpload();
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await send(upload.signed_url, {
        method,
        origin: t.origin,
        headers: upload.headers,
        body: method === 'GET' ? undefined : png(),
      });
      assert.equal(res.headers.allow, 'PUT', method);
      await assertRefused(res, 405, 'PUBLIC_API_METHOD_NOT_ALLOWED', id);
    }
  });

  test('a wrong or missing Content-Type is a 415', async () => {
    const { media_id: id, upload } = await freshUpload();
    await assertRefused(
      await send(upload.signed_url, { origin: t.origin, headers: { 'content-type': 'image/jpeg' }, body: png() }),
      415,
      'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE',
      id,
    );
    await assertRefused(
      await send(upload.signed_url, { origin: t.origin, body: png() }),
      415,
      'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE',
      id,
    );
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
    const traversal = await send(a.upload.signed_url.replace(a.media_id, '../../etc/passwd'), {
      origin: t.origin,
      headers: a.upload.headers,
      body: png(),
    });
    assert.equal(traversal.status, 404); // dot segments are resolved before routing: no route, nothing read
    assert.equal((await getMedia(a.media_id)).status, 'pending_upload');
    assert.equal((await getMedia(b.media_id)).status, 'pending_upload');
    assert.deepEqual(
      await storedFiles(t),
      (await storedFiles(t)).filter((f) => !f.includes(a.media_id) && !f.includes(b.media_id)),
    );
  });

  test('an expired URL is a 403 PUBLIC_API_SIGNED_URL_EXPIRED', async () => {
    const { media_id: id, upload } = await freshUpload();
    clock.advance(3601_000);
    try {
      await assertRefused(
        await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: png() }),
        403,
        'PUBLIC_API_SIGNED_URL_EXPIRED',
        id,
      );
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
    const announced = await send(upload.signed_url, {
      origin: t.origin,
      headers: upload.headers,
      body: Buffer.alloc(IMAGE_CAP + 1),
    });
    await assertRefused(announced, 413, 'PUBLIC_API_PAYLOAD_TOO_LARGE', id);
    const streamed = Readable.from([png(), Buffer.alloc(IMAGE_CAP)]); // chunked: no Content-Length to refuse up front
    await assertRefused(
      await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: streamed }),
      413,
      'PUBLIC_API_PAYLOAD_TOO_LARGE',
      id,
    );
  });

  test('a body of another size than the announced size_bytes is a 400, and an empty one too', async () => {
    const { media_id: id, upload } = await freshUpload();
    await assertRefused(
      await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: png().subarray(0, 40) }),
      400,
      'PUBLIC_API_BODY_INVALID',
      id,
    );
    await assertRefused(
      await send(upload.signed_url, {
        origin: t.origin,
        headers: upload.headers,
        body: Readable.from([png().subarray(0, 40)]),
      }),
      400,
      'PUBLIC_API_BODY_INVALID',
      id,
    );
    const open = (await requestUpload(t, key, { filename: 'e.png', content_type: 'image/png' })).json().data;
    await assertRefused(
      await send(open.upload.signed_url, { origin: t.origin, headers: open.upload.headers, body: Buffer.alloc(0) }),
      400,
      'PUBLIC_API_BODY_INVALID',
      open.media_id,
    );
  });

  test('an upload cut off midway leaves no file and the media pending; the same URL then works', async () => {
    const res = await requestUpload(t, key, { filename: 'v.mp4', content_type: 'video/mp4' });
    const { media_id: id, upload } = res.json().data;
    const target = new URL(upload.signed_url);
    const origin = new URL(t.origin);
    await new Promise<void>((resolve) => {
      const request = http.request({
        host: origin.hostname,
        port: origin.port,
        method: 'PUT',
        path: target.pathname + target.search,
        headers: { ...upload.headers, 'content-length': '1000000' },
      });
      request.on('error', () => resolve());
      request.write(mp4().subarray(0, 200));
      request.write(Buffer.alloc(100_000), () => setTimeout(() => request.destroy(), 50));
    });
    // On a loaded machine the server may not have opened its temporary file yet when the client is gone: wait for
    // it to appear (or for 5 s to pass without it), then for it to go.
    const incoming = async () => (await storedFiles(t)).some((f) => f.startsWith('.incoming'));
    const appeared = Date.now();
    while (!(await incoming()) && Date.now() - appeared < 5_000) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    while ((await incoming()) && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
    console.log(`# temporary file gone ${Date.now() - started} ms after the client vanished`);
    assert.deepEqual(
      (await storedFiles(t)).filter((f) => f.startsWith('.incoming') || f.includes(id)),
      [],
    );
    assert.equal((await getMedia(id)).status, 'pending_upload');
    assert.deepEqual(
      t.logs.filter((line) => line.level >= 50),
      [],
      'a client going away is not logged as a server error',
    );
    const retry = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: mp4() });
    assert.equal(retry.status, 200);
    assert.equal(retry.json().data.status, 'ready');
  });

  test('two PUTs racing on one URL: one completes, the other gets 409, one file is stored', async () => {
    const { media_id: id, upload } = await freshUpload({ size_bytes: undefined });
    const bodies = [png(4, 4), png(8, 8)];
    const results = await Promise.all(
      bodies.map((body) => send(upload.signed_url, { origin: t.origin, headers: upload.headers, body })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
    const winner = results.find((r) => r.status === 200)!.json().data;
    assert.equal((await getMedia(id)).sha256, winner.sha256);
    assert.deepEqual(
      (await storedFiles(t)).filter((f) => f.includes(id)),
      [`${t.owner.workspaceId}/${id}`],
    );
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
    const tampered = await send(url.replace(/signature=[^&]+/, `signature=${'B'.repeat(43)}`), {
      method: 'GET',
      origin: t.origin,
    });
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
