// Sniffing: what the bytes are, their pixel size and (MP4/MOV) duration, read from generated files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bufferReader, type ByteReader } from './byte-reader.ts';
import { sniff } from './sniff.ts';
import { gif, jpeg, mov, mp4, pdf, png, webp } from '../../../../test/helpers/media-fixtures.ts';

/** A reader that counts the bytes it hands out, to show that the box walk does not read a whole file. */
function countingReader(data: Buffer): ByteReader & { bytesRead: number } {
  const inner = bufferReader(data);
  const reader = {
    size: data.length,
    bytesRead: 0,
    read: async (offset: number, length: number) => {
      const chunk = await inner.read(offset, length);
      reader.bytesRead += chunk.length;
      return chunk;
    },
  };
  return reader;
}

const cases: Array<[string, Buffer, Record<string, unknown>]> = [
  ['PNG', png(5, 3), { contentType: 'image/png', width: 5, height: 3 }],
  ['JPEG', jpeg(17, 9), { contentType: 'image/jpeg', width: 17, height: 9 }],
  ['GIF', gif(7, 4), { contentType: 'image/gif', width: 7, height: 4 }],
  ['WebP (lossless)', webp(6, 5), { contentType: 'image/webp', width: 6, height: 5 }],
  [
    'MP4',
    mp4({ durationMs: 4200, width: 640, height: 360 }),
    { contentType: 'video/mp4', width: 640, height: 360, durationMs: 4200 },
  ],
  [
    'MOV',
    mov({ durationMs: 3000, width: 1920, height: 1080 }),
    { contentType: 'video/quicktime', width: 1920, height: 1080, durationMs: 3000 },
  ],
  ['PDF', pdf(), { contentType: 'application/pdf', width: null, height: null, durationMs: null }],
];

for (const [name, bytes, expected] of cases) {
  test(`${name} is recognised with its metadata`, async () => {
    const result = await sniff(bufferReader(bytes));
    for (const [field, value] of Object.entries(expected))
      assert.equal(result[field as keyof typeof result], value, field);
    assert.deepEqual(result.unreadable, []);
  });
}

test('a JPEG frame header behind 150 KB of EXIF is found by walking the segments', async () => {
  const result = await sniff(bufferReader(jpeg(40, 30, 150_000)));
  assert.deepEqual([result.width, result.height], [40, 30]);
});

test('an MP4 whose moov box sits after a large mdat is read with a few small reads', async () => {
  const reader = countingReader(mp4({ moovLast: true, durationMs: 61_000, mdatBytes: 8 * 1024 * 1024 }));
  const result = await sniff(reader);
  assert.equal(result.durationMs, 61_000);
  assert.ok(reader.bytesRead < 200 * 1024, `read ${reader.bytesRead} bytes`);
});

test('portrait video (a 90° matrix) reports the displayed width and height', async () => {
  const result = await sniff(bufferReader(mov({ width: 1920, height: 1080, rotated: true })));
  assert.deepEqual([result.width, result.height], [1080, 1920]);
});

test('fragmented MP4 takes its duration from mvex/mehd, version-1 mvhd from 64-bit fields', async () => {
  assert.equal((await sniff(bufferReader(mp4({ fragmented: true, durationMs: 9_500 })))).durationMs, 9_500);
  assert.equal((await sniff(bufferReader(mp4({ mvhdVersion: 1, durationMs: 7_250 })))).durationMs, 7_250);
});

test('a video without a movie box says why its duration and size are unknown', async () => {
  const result = await sniff(bufferReader(mp4({ noMoov: true })));
  assert.equal(result.contentType, 'video/mp4');
  assert.equal(result.durationMs, null);
  assert.deepEqual(result.unreadable.map((u) => u.field).sort(), [
    'duration_ms',
    'frame_rate',
    'height',
    'video_codec',
    'width',
  ]);
  assert.match(result.unreadable[0]!.reason, /moov/);
});

test('codecs and frame rate come from the tracks: stsd sample entries, stts over mdhd', async () => {
  const h264 = await sniff(bufferReader(mp4({ frameRate: 25, durationMs: 4_000 })));
  assert.deepEqual(h264.tracks, { videoCodec: 'h264', audioCodec: 'aac', frameRate: 25 });
  const hevc = await sniff(bufferReader(mov({ videoCodec: 'hvc1', audioCodec: null, frameRate: 120 })));
  assert.deepEqual(hevc.tracks, { videoCodec: 'hevc', audioCodec: null, frameRate: 120 });
  const vp9 = await sniff(bufferReader(mp4({ videoCodec: 'vp09', audioCodec: 'Opus' })));
  assert.deepEqual([vp9.tracks?.videoCodec, vp9.tracks?.audioCodec], ['vp9', 'opus']);
  assert.deepEqual(vp9.unreadable, []);
});

test('a fragmented MP4 says why its frame rate is unknown', async () => {
  const result = await sniff(bufferReader(mp4({ fragmented: true })));
  assert.equal(result.tracks?.frameRate, null);
  assert.deepEqual(
    result.unreadable.map((u) => u.field),
    ['frame_rate'],
  );
  assert.match(result.unreadable[0]!.reason, /fragment/);
});

test('bytes of no known format have no content type', async () => {
  const result = await sniff(bufferReader(Buffer.from('just some text, not an image')));
  assert.equal(result.contentType, null);
  assert.equal((await sniff(bufferReader(Buffer.alloc(0)))).contentType, null);
});

test('a truncated PNG reports unreadable dimensions instead of throwing', async () => {
  const result = await sniff(bufferReader(png().subarray(0, 20)));
  assert.equal(result.contentType, 'image/png');
  assert.deepEqual([result.width, result.height], [null, null]);
  assert.deepEqual(
    result.unreadable.map((u) => u.field),
    ['width', 'height'],
  );
});
