// Duration and picture size of MP4/MOV files (ISO base media / QuickTime), read from the box tree without a
// native toolchain: `moov/mvhd` gives timescale and duration (or `moov/mvex/mehd` for fragmented files), and
// the first track whose `tkhd` has a picture size gives width and height, turned by its matrix (phones record
// portrait video as landscape plus a 90° rotation). Only box headers are read on the way, so a `moov` at the
// end of a multi-gigabyte file costs a few small reads.
import type { ByteReader } from './byte-reader.ts';

export interface VideoInfo {
  durationMs: number | null;
  width: number | null;
  height: number | null;
  /** Why a value is null. */
  unreadable: { field: 'duration_ms' | 'width' | 'height'; reason: string }[];
}

interface Box {
  type: string;
  /** Offset of the payload (after the header). */
  start: number;
  /** Offset just past the box. */
  end: number;
}

const MAX_BOXES = 10_000;

/** The boxes directly inside [from, to). Stops quietly at a malformed header (the caller reports what is missing). */
async function children(reader: ByteReader, from: number, to: number): Promise<Box[]> {
  const boxes: Box[] = [];
  let offset = from;
  while (offset + 8 <= to && boxes.length < MAX_BOXES) {
    const header = await reader.read(offset, 16);
    if (header.length < 8) break;
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (size === 1) {
      if (header.length < 16) break;
      const large = header.readBigUInt64BE(8);
      if (large > BigInt(Number.MAX_SAFE_INTEGER)) break;
      size = Number(large);
      headerSize = 16;
    } else if (size === 0) {
      size = to - offset; // extends to the end of its container
    }
    if (size < headerSize || offset + size > to) break;
    boxes.push({ type, start: offset + headerSize, end: offset + size });
    offset += size;
  }
  return boxes;
}

async function payload(reader: ByteReader, box: Box, max: number): Promise<Buffer> {
  return reader.read(box.start, Math.min(max, box.end - box.start));
}

function fixed16(value: number): number {
  return value / 65536;
}

async function movieDuration(reader: ByteReader, moov: Box[]): Promise<number | string> {
  const mvhd = moov.find((b) => b.type === 'mvhd');
  if (!mvhd) return 'the movie header (mvhd) is missing';
  const data = await payload(reader, mvhd, 32);
  const version = data[0];
  let timescale: number;
  let duration: bigint;
  if (version === 1 && data.length >= 32) {
    timescale = data.readUInt32BE(20);
    duration = data.readBigUInt64BE(24);
  } else if (version === 0 && data.length >= 20) {
    timescale = data.readUInt32BE(12);
    duration = BigInt(data.readUInt32BE(16));
  } else {
    return 'the movie header (mvhd) is malformed';
  }
  if (timescale === 0) return 'the movie header (mvhd) has a timescale of 0';
  const unknown = duration === 0n || duration === 0xffffffffn || duration === 0xffffffffffffffffn;
  if (unknown) {
    // Fragmented MP4: the whole duration is in mvex/mehd, when the writer filled it in.
    const mvex = moov.find((b) => b.type === 'mvex');
    const mehd = mvex ? (await children(reader, mvex.start, mvex.end)).find((b) => b.type === 'mehd') : undefined;
    if (!mehd) return 'the movie header gives no duration and there is no fragment duration (mehd)';
    const m = await payload(reader, mehd, 12);
    duration = m[0] === 1 && m.length >= 12 ? m.readBigUInt64BE(4) : m.length >= 8 ? BigInt(m.readUInt32BE(4)) : 0n;
    if (duration === 0n) return 'the fragment duration (mehd) is 0';
  }
  return Math.round((Number(duration) * 1000) / timescale);
}

async function pictureSize(reader: ByteReader, moov: Box[]): Promise<{ width: number; height: number } | string> {
  for (const trak of moov.filter((b) => b.type === 'trak')) {
    const tkhd = (await children(reader, trak.start, trak.end)).find((b) => b.type === 'tkhd');
    if (!tkhd) continue;
    const data = await payload(reader, tkhd, 96);
    const base = data[0] === 1 ? 52 : 40; // offset of the matrix, after the version-dependent times and fields
    if (data.length < base + 44) continue;
    const width = Math.round(fixed16(data.readUInt32BE(base + 36)));
    const height = Math.round(fixed16(data.readUInt32BE(base + 40)));
    if (width === 0 || height === 0) continue; // an audio or data track
    // Matrix {a b u; c d v; x y w}: a quarter turn has a = d = 0.
    const a = data.readInt32BE(base);
    const d = data.readInt32BE(base + 16);
    return a === 0 && d === 0 ? { width: height, height: width } : { width, height };
  }
  return 'no track header (tkhd) gives a picture size';
}

export async function readVideoInfo(reader: ByteReader): Promise<VideoInfo> {
  const top = await children(reader, 0, reader.size);
  const moovBox = top.find((b) => b.type === 'moov');
  if (!moovBox) {
    const reason = 'the file has no movie box (moov); it may be truncated';
    return {
      durationMs: null,
      width: null,
      height: null,
      unreadable: (['duration_ms', 'width', 'height'] as const).map((field) => ({ field, reason })),
    };
  }
  const moov = await children(reader, moovBox.start, moovBox.end);
  const info: VideoInfo = { durationMs: null, width: null, height: null, unreadable: [] };
  const duration = await movieDuration(reader, moov);
  if (typeof duration === 'number') info.durationMs = duration;
  else info.unreadable.push({ field: 'duration_ms', reason: duration });
  const size = await pictureSize(reader, moov);
  if (typeof size === 'string') {
    info.unreadable.push({ field: 'width', reason: size }, { field: 'height', reason: size });
  } else {
    info.width = size.width;
    info.height = size.height;
  }
  return info;
}
