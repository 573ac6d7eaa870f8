// Small, valid media files generated in code (no binary blobs in the repository): PNG, baseline JPEG, GIF,
// lossless WebP, MP4/MOV box trees and a PDF, each with the size and duration a test asks for.
import { crc32, deflateSync } from 'node:zlib';

// ---- PNG ------------------------------------------------------------------------------------------------

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function png(width = 2, height = 2): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, adaptive filtering, no interlace
  const row = Buffer.alloc(1 + width * 3, 0x7f);
  row[0] = 0; // filter: none
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- JPEG -----------------------------------------------------------------------------------------------

function segment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/**
 * A decodable grey baseline JPEG: one component, all coefficients zero, Huffman tables with a single 1-bit code
 * (DC category 0, AC end-of-block), so every 8×8 block is the two bits `00`. `exifBytes` adds an APP1 block of
 * that size before the frame header, to push it past the first read.
 */
export function jpeg(width = 16, height = 8, exifBytes = 0): Buffer {
  const parts = [
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])),
  ];
  while (exifBytes > 0) {
    const size = Math.min(exifBytes, 65_000);
    parts.push(segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), Buffer.alloc(size)])));
    exifBytes -= size;
  }
  parts.push(segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])));
  const sof = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  parts.push(segment(0xc0, sof));
  const oneCode = [1, ...Array(15).fill(0), 0];
  parts.push(segment(0xc4, Buffer.from([0x00, ...oneCode])), segment(0xc4, Buffer.from([0x10, ...oneCode])));
  parts.push(segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])));
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = blocks * 2;
  const scan = Buffer.alloc(Math.ceil(bits / 8), 0);
  if (bits % 8 !== 0) scan[scan.length - 1] = 0xff >> (bits % 8); // pad the last byte with 1-bits
  parts.push(scan, Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

// ---- GIF ------------------------------------------------------------------------------------------------

/** A two-colour GIF whose LZW stream is "clear, 0" per pixel, so the code size never grows past 3 bits. */
export function gif(width = 3, height = 2): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  header[10] = 0x80; // global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  const codes = [...Array.from({ length: width * height }, () => [4, 0]).flat(), 5];
  const bytes: number[] = [];
  let acc = 0;
  let n = 0;
  for (const code of codes) {
    acc |= code << n;
    n += 3;
    while (n >= 8) {
      bytes.push(acc & 0xff);
      acc >>= 8;
      n -= 8;
    }
  }
  if (n > 0) bytes.push(acc & 0xff);
  const blocks: number[] = [];
  for (let i = 0; i < bytes.length; i += 255) {
    const chunk = bytes.slice(i, i + 255);
    blocks.push(chunk.length, ...chunk);
  }
  return Buffer.concat([header, palette, descriptor, Buffer.from([2, ...blocks, 0, 0x3b])]);
}

// ---- WebP -----------------------------------------------------------------------------------------------

/** A lossless (VP8L) WebP of opaque black pixels: five single-symbol prefix codes, so pixels take no bits. */
export function webp(width = 4, height = 3): Buffer {
  const header = Buffer.alloc(5);
  header[0] = 0x2f;
  header.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
  // Bits, least significant first: no transform, no colour cache, no meta codes; then green, red, blue (symbol 0),
  // alpha (symbol 255, 8-bit) and distance (symbol 0) as simple one-symbol codes.
  const bits = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0];
  const stream = Buffer.alloc(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    stream[i >> 3]! |= bit << (i & 7);
  });
  let chunk = Buffer.concat([header, stream]);
  const chunkHead = Buffer.alloc(8);
  chunkHead.write('VP8L', 0, 'latin1');
  chunkHead.writeUInt32LE(chunk.length, 4);
  chunk = Buffer.concat([chunkHead, chunk, chunk.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + chunk.length, 4);
  riff.write('WEBP', 8, 'latin1');
  return Buffer.concat([riff, chunk]);
}

// ---- MP4 / MOV ------------------------------------------------------------------------------------------

function box(type: string, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

const IDENTITY = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];
const QUARTER_TURN = [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000];

function matrix(values: number[]): Buffer {
  const out = Buffer.alloc(36);
  values.forEach((v, i) => out.writeInt32BE(v, i * 4));
  return out;
}

function mvhd(durationMs: number, version: 0 | 1): Buffer {
  const times = version === 1 ? Buffer.alloc(28) : Buffer.alloc(16);
  if (version === 1) {
    times.writeUInt32BE(1000, 16);
    times.writeBigUInt64BE(BigInt(durationMs), 20);
  } else {
    times.writeUInt32BE(1000, 8);
    times.writeUInt32BE(durationMs, 12);
  }
  const rest = Buffer.alloc(80);
  rest.writeUInt32BE(0x10000, 0); // rate 1.0
  rest.writeUInt16BE(0x100, 4); // volume 1.0
  matrix(IDENTITY).copy(rest, 16);
  rest.writeUInt32BE(3, 76); // next track id
  return box('mvhd', Buffer.from([version, 0, 0, 0]), times, rest);
}

function tkhd(trackId: number, width: number, height: number, rotated: boolean): Buffer {
  const data = Buffer.alloc(84);
  data.writeUInt32BE(0x3, 0); // version 0, enabled + in movie
  data.writeUInt32BE(trackId, 12);
  matrix(rotated ? QUARTER_TURN : IDENTITY).copy(data, 40);
  data.writeUInt32BE(width * 65536, 76);
  data.writeUInt32BE(height * 65536, 80);
  return box('tkhd', data);
}

export interface MovieOptions {
  durationMs?: number;
  width?: number;
  height?: number;
  /** `moov` after `mdat` (a file not prepared for streaming). */
  moovLast?: boolean;
  /** Recorded portrait: stored landscape with a 90° matrix. */
  rotated?: boolean;
  /** Fragmented MP4: duration 0 in mvhd, the real one in mvex/mehd. */
  fragmented?: boolean;
  mvhdVersion?: 0 | 1;
  mdatBytes?: number;
  /** No movie box at all (a truncated upload). */
  noMoov?: boolean;
  /** The video track's sample entry (`avc1` H.264, `hvc1` HEVC, `vp09` …); default avc1. */
  videoCodec?: string;
  /** The sound track's sample entry (`mp4a` AAC, `Opus` …); null: no sound track. Default mp4a. */
  audioCodec?: string | null;
  /** Frames per second of the video track (its `stts` sample count over its `mdhd` duration); default 30. */
  frameRate?: number;
}

/**
 * A track's `mdia`: handler, media header, and a sample table with one entry of `samples` samples of 1000 units
 * each (so the timescale is `samples` × 1000 per duration, and the rate exact).
 */
function mdia(handler: 'vide' | 'soun', durationMs: number, sampleEntry: Buffer, samples: number): Buffer {
  const mdhd = Buffer.alloc(24);
  mdhd.writeUInt32BE(durationMs > 0 ? Math.round((samples * 1000 * 1000) / durationMs) : 1000, 12); // timescale
  mdhd.writeUInt32BE(samples * 1000, 16); // duration, in the timescale
  const hdlr = Buffer.alloc(25);
  hdlr.write(handler, 8, 'latin1');
  const stsd = box('stsd', Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]), sampleEntry);
  const stts = Buffer.alloc(16);
  stts.writeUInt32BE(1, 4); // one entry
  stts.writeUInt32BE(samples, 8);
  stts.writeUInt32BE(1000, 12);
  return box('mdia', box('mdhd', mdhd), box('hdlr', hdlr), box('minf', box('stbl', stsd, box('stts', stts))));
}

function videoEntry(codec: string, width: number, height: number): Buffer {
  const fields = Buffer.alloc(78); // SampleEntry (8) + VisualSampleEntry (70)
  fields.writeUInt16BE(1, 6); // data reference index
  fields.writeUInt16BE(width, 24);
  fields.writeUInt16BE(height, 26);
  fields.writeUInt32BE(0x480000, 28);
  fields.writeUInt32BE(0x480000, 32);
  fields.writeUInt16BE(1, 40); // frame count
  fields.writeUInt16BE(0x18, 74); // depth
  fields.writeInt16BE(-1, 76);
  return box(codec, fields);
}

function audioEntry(codec: string): Buffer {
  const fields = Buffer.alloc(28); // SampleEntry (8) + AudioSampleEntry (20)
  fields.writeUInt16BE(1, 6);
  fields.writeUInt16BE(2, 16); // channels
  fields.writeUInt16BE(16, 18); // sample size
  fields.writeUInt32BE(48000 * 65536, 24); // sample rate, 16.16
  if (codec !== 'mp4a') return box(codec, fields);
  // esds: ES_Descriptor (tag 3) → DecoderConfigDescriptor (tag 4) with object type 0x40 (MPEG-4 AAC).
  const esds = Buffer.from([0, 0, 0, 0, 0x03, 0x0f, 0, 1, 0, 0x04, 0x0a, 0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0]);
  return box(codec, fields, box('esds', esds));
}

function movie(brand: string, compatible: string[], o: MovieOptions): Buffer {
  const duration = o.durationMs ?? 5_000;
  const ftyp = box(
    'ftyp',
    Buffer.from(brand, 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    ...compatible.map((b) => Buffer.from(b, 'latin1')),
  );
  const width = o.width ?? 1280;
  const height = o.height ?? 720;
  const audioCodec = o.audioCodec === undefined ? 'mp4a' : o.audioCodec;
  const audio = audioCodec
    ? box('trak', tkhd(1, 0, 0, false), mdia('soun', duration, audioEntry(audioCodec), Math.ceil(duration / 21)))
    : box('trak', tkhd(1, 0, 0, false));
  const frames = Math.round(((o.frameRate ?? 30) * duration) / 1000);
  const video = box(
    'trak',
    tkhd(2, width, height, o.rotated ?? false),
    mdia(
      'vide',
      o.fragmented ? 0 : duration,
      videoEntry(o.videoCodec ?? 'avc1', width, height),
      o.fragmented ? 0 : frames,
    ),
  );
  const moovParts = [mvhd(o.fragmented ? 0 : duration, o.mvhdVersion ?? 0), audio, video];
  if (o.fragmented) {
    const mehd = Buffer.alloc(8);
    mehd.writeUInt32BE(duration, 4);
    moovParts.push(box('mvex', box('mehd', mehd)));
  }
  const moov = box('moov', ...moovParts);
  const mdat = box('mdat', Buffer.alloc(o.mdatBytes ?? 64, 0x42));
  if (o.noMoov) return Buffer.concat([ftyp, mdat]);
  return Buffer.concat(o.moovLast ? [ftyp, mdat, moov] : [ftyp, moov, mdat]);
}

export function mp4(o: MovieOptions = {}): Buffer {
  return movie('isom', ['isom', 'iso2', 'avc1', 'mp41'], o);
}

export function mov(o: MovieOptions = {}): Buffer {
  return movie('qt  ', ['qt  '], o);
}

/**
 * The first bytes of an MP4 of exactly `totalBytes`: ftyp, moov, then the header of an mdat that covers the rest,
 * so a benchmark can stream gigabytes of filler after it and still upload a file that sniffs as video/mp4.
 */
export function mp4Prefix(totalBytes: number, durationMs = 60_000): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomavc1', 'latin1'));
  const moov = box('moov', mvhd(durationMs, 0), box('trak', tkhd(1, 1920, 1080, false)));
  const mdatHeader = Buffer.alloc(16);
  const mdatSize = totalBytes - ftyp.length - moov.length;
  mdatHeader.writeUInt32BE(1, 0); // 64-bit size follows
  mdatHeader.write('mdat', 4, 'latin1');
  mdatHeader.writeBigUInt64BE(BigInt(mdatSize), 8);
  return Buffer.concat([ftyp, moov, mdatHeader]);
}

// ---- PDF ------------------------------------------------------------------------------------------------

export function pdf(): Buffer {
  return Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
      '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
    'latin1',
  );
}
