// HEIC/HEIF photos (what iPhones take): made here with `heif-enc` (Debian's libheif-examples, installed by .ci/run),
// uploaded and sniffed (type and size from the file's own boxes), reported by validation, and converted to JPEG by
// the WebAssembly decoder (prebuilt sharp cannot decode HEVC).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PLATFORM_LIMITS } from '../../src/platforms/catalogue.ts';
import { convertImage } from '../../src/features/media/fit/convert.ts';
import { planImage } from '../../src/features/media/fit/plan.ts';
import { bufferReader } from '../../src/features/media/sniff/byte-reader.ts';
import { sniff } from '../../src/features/media/sniff/sniff.ts';
import { buildMediaTestApp, uploadBytes, type MediaTestApp } from '../helpers/media.ts';
import { inspectImage, meanOf, photo } from '../helpers/photos.ts';

const run = promisify(execFile);
let dir: string;
let t: MediaTestApp;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'herald-heic-'));
  t = await buildMediaTestApp();
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** A HEIC of the picture (`heif-enc`, HEVC-coded). */
async function heic(width: number, height: number): Promise<Buffer> {
  const png = path.join(dir, `${width}x${height}.png`);
  const out = path.join(dir, `${width}x${height}.heic`);
  await writeFile(png, await photo(width, height, { format: 'png', detail: 0.2 }));
  await run('heif-enc', ['-q', '80', '-o', out, png]);
  return readFile(out);
}

test('a HEIC photo is sniffed, then converted to JPEG for Instagram by the WebAssembly decoder', async () => {
  const data = await heic(1200, 800);
  const found = await sniff(bufferReader(data));
  assert.equal(found.contentType, 'image/heic');
  assert.deepEqual([found.width, found.height], [1200, 800], 'the size from its ispe box');
  const plan = planImage(
    'instagram',
    PLATFORM_LIMITS.instagram,
    { id: 'med_heic', contentType: 'image/heic', sizeBytes: data.length, width: 1200, height: 800 },
    { fit: 'reject', keepMetadata: false },
  );
  assert.equal(plan?.kind, 'variant');
  if (plan?.kind !== 'variant') return;
  assert.deepEqual(plan.actions, ['converted from image/heic to image/jpeg', 'metadata stripped']);
  const made = await convertImage(data, 'image/heic', plan.spec);
  const out = await inspectImage(made.data);
  assert.deepEqual([out.format, out.width, out.height, out.exif], ['jpeg', 1200, 800, false]);
  // The picture survived the trip: the gradient still runs from dark (left) to bright red (right).
  const [left] = await meanOf(made.data, { left: 0, top: 0, width: 100, height: 800 });
  const [right] = await meanOf(made.data, { left: 1100, top: 0, width: 100, height: 800 });
  assert.ok(right! - left! > 100, `${left} → ${right}`);
});

test('a HEIC upload is accepted, and validation says it will be converted for every platform', async () => {
  const key = await t.key();
  const { mediaId, put } = await uploadBytes(t, key, await heic(640, 480), 'image/heic', { filename: 'IMG_0001.HEIC' });
  assert.equal(put.status, 200, put.body.toString());
  const media = (await t.inject({ url: `/v1/media/${mediaId}`, key })).json().data;
  assert.deepEqual([media.status, media.content_type, media.width, media.height], ['ready', 'image/heic', 640, 480]);
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts/validate',
    key,
    payload: { content: 'from a phone', platforms: ['x', 'bluesky', 'instagram'], media_ids: [mediaId] },
  });
  const body = res.json().data;
  assert.equal(body.valid, true, JSON.stringify(body.issues));
  assert.equal(body.media.length, 3);
  for (const plan of body.media) {
    assert.equal(plan.result, 'variant', plan.platform);
    assert.equal(plan.content_type, 'image/jpeg');
    assert.equal(plan.actions[0], 'converted from image/heic to image/jpeg');
  }
});
