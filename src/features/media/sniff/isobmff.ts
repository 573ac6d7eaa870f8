// Duration and picture size of MP4/MOV files (ISO base media / QuickTime), read from the box tree without a
// native toolchain: `moov/mvhd` gives timescale and duration (or `moov/mvex/mehd` for fragmented files), and
// the first track whose `tkhd` has a picture size gives width and height, turned by its matrix (phones record
// portrait video as landscape plus a 90° rotation). Each track's `mdia` gives its kind (`hdlr`), codec (the first
// `stsd` sample entry) and, for video, the frame rate (samples in `stts` over the `mdhd` duration). Only box headers
// and these small tables are read on the way, so a `moov` at the end of a multi-gigabyte file costs a few reads.
import type { ByteReader } from './byte-reader.ts';

export interface VideoInfo {
  durationMs: number | null;
  width: number | null;
  height: number | null;
  /** From the first video track's sample description (`stsd`): h264, hevc, av1, vp9 …; null when there is none. */
  videoCodec: string | null;
  /** From the first sound track's sample description: aac, mp3, opus …; null when the file has no sound track. */
  audioCodec: string | null;
  /** Frames per second of the first video track: its sample count over its media duration (`stts`, `mdhd`). */
  frameRate: number | null;
  /** Why a value is null. */
  unreadable: { field: 'duration_ms' | 'width' | 'height' | 'video_codec' | 'frame_rate'; reason: string }[];
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

// Sample entry types (ISO/IEC 14496-12 `stsd` entries, QuickTime's too) in the names ffprobe uses.
const VIDEO_CODECS: Record<string, string> = {
  avc1: 'h264',
  avc3: 'h264',
  hvc1: 'hevc',
  hev1: 'hevc',
  av01: 'av1',
  vp09: 'vp9',
  vp08: 'vp8',
  mp4v: 'mpeg4',
  apch: 'prores',
  apcn: 'prores',
  apcs: 'prores',
  apco: 'prores',
  ap4h: 'prores',
  jpeg: 'mjpeg',
};
const AUDIO_CODECS: Record<string, string> = {
  mp4a: 'aac',
  Opus: 'opus',
  'ac-3': 'ac3',
  'ec-3': 'eac3',
  alac: 'alac',
  fLaC: 'flac',
  '.mp3': 'mp3',
  lpcm: 'pcm',
  sowt: 'pcm',
  twos: 'pcm',
};

interface Track {
  handler: string;
  sampleEntry: string | null;
  /** For `mp4a`: the object type of its decoder configuration (0x40 AAC, 0x69/0x6b MP3). */
  objectType: number | null;
  timescale: number;
  duration: number;
  samples: number;
}

async function child(reader: ByteReader, box: Box | undefined, type: string): Promise<Box | undefined> {
  return box ? (await children(reader, box.start, box.end)).find((b) => b.type === type) : undefined;
}

/** The object type indication inside an `esds` box (ES_Descriptor → DecoderConfigDescriptor), or null. */
function esdsObjectType(data: Buffer): number | null {
  let at = 4; // version and flags
  const descriptor = (tag: number): boolean => {
    if (data[at] !== tag) return false;
    at++;
    for (let i = 0; i < 4 && at < data.length; i++) if ((data[at++]! & 0x80) === 0) break; // expandable length
    return true;
  };
  if (!descriptor(0x03)) return null;
  const flags = data[at + 2] ?? 0;
  at += 3; // ES_ID, flags
  if (flags & 0x80) at += 2; // dependsOn_ES_ID
  if (flags & 0x40) at += 1 + (data[at] ?? 0); // URL
  if (flags & 0x20) at += 2; // OCR_ES_Id
  if (!descriptor(0x04)) return null;
  return data[at] ?? null;
}

async function readTrack(reader: ByteReader, trak: Box): Promise<Track | undefined> {
  const mdia = await child(reader, trak, 'mdia');
  if (!mdia) return undefined;
  const inMdia = await children(reader, mdia.start, mdia.end);
  const hdlr = inMdia.find((b) => b.type === 'hdlr');
  const mdhd = inMdia.find((b) => b.type === 'mdhd');
  if (!hdlr || !mdhd) return undefined;
  const handler = (await payload(reader, hdlr, 12)).toString('latin1', 8, 12);
  const m = await payload(reader, mdhd, 32);
  const [timescale, duration] =
    m[0] === 1 && m.length >= 32
      ? [m.readUInt32BE(20), Number(m.readBigUInt64BE(24))]
      : m.length >= 20
        ? [m.readUInt32BE(12), m.readUInt32BE(16)]
        : [0, 0];
  const table = await child(
    reader,
    inMdia.find((b) => b.type === 'minf'),
    'stbl',
  );
  const inStbl = table ? await children(reader, table.start, table.end) : [];
  let sampleEntry: string | null = null;
  let objectType: number | null = null;
  const stsd = inStbl.find((b) => b.type === 'stsd');
  if (stsd) {
    const entries = await children(reader, stsd.start + 8, stsd.end); // after version, flags and entry count
    const first = entries[0];
    if (first) {
      sampleEntry = first.type;
      if (first.type === 'mp4a') {
        // AudioSampleEntry: 8 bytes of SampleEntry, 20 of audio fields (v0), then its boxes (esds).
        const esds = (await children(reader, first.start + 28, first.end)).find((b) => b.type === 'esds');
        if (esds) objectType = esdsObjectType(await payload(reader, esds, 64));
      }
    }
  }
  let samples = 0;
  const stts = inStbl.find((b) => b.type === 'stts');
  if (stts) {
    const head = await payload(reader, stts, 8);
    const count = head.length >= 8 ? Math.min(head.readUInt32BE(4), MAX_BOXES * 10) : 0;
    const entries = await reader.read(stts.start + 8, Math.min(count * 8, stts.end - stts.start - 8));
    for (let i = 0; i + 8 <= entries.length; i += 8) samples += entries.readUInt32BE(i);
  }
  return { handler, sampleEntry, objectType, timescale, duration, samples };
}

function codecName(track: Track): string | null {
  if (!track.sampleEntry) return null;
  if (track.sampleEntry === 'mp4a' && (track.objectType === 0x69 || track.objectType === 0x6b)) return 'mp3';
  const known = (track.handler === 'soun' ? AUDIO_CODECS : VIDEO_CODECS)[track.sampleEntry];
  return known ?? track.sampleEntry.trim().toLowerCase();
}

async function tracksInfo(
  reader: ByteReader,
  moov: Box[],
): Promise<Pick<VideoInfo, 'videoCodec' | 'audioCodec' | 'frameRate'> & { unreadable: VideoInfo['unreadable'] }> {
  const tracks: Track[] = [];
  for (const trak of moov.filter((b) => b.type === 'trak')) {
    const track = await readTrack(reader, trak);
    if (track) tracks.push(track);
  }
  const video = tracks.find((t) => t.handler === 'vide');
  const audio = tracks.find((t) => t.handler === 'soun');
  const unreadable: VideoInfo['unreadable'] = [];
  const videoCodec = video ? codecName(video) : null;
  if (!videoCodec)
    unreadable.push({
      field: 'video_codec',
      reason: video ? 'the video track has no sample description (stsd)' : 'no video track (hdlr vide) was found',
    });
  let frameRate: number | null = null;
  if (video && video.samples > 0 && video.duration > 0 && video.timescale > 0)
    frameRate = Math.round((video.samples * video.timescale * 1000) / video.duration) / 1000;
  else
    unreadable.push({
      field: 'frame_rate',
      reason: video
        ? 'the video track gives no sample count (stts) or no duration (mdhd); a fragmented file keeps them in its fragments'
        : 'no video track (hdlr vide) was found',
    });
  return { videoCodec, audioCodec: audio ? codecName(audio) : null, frameRate, unreadable };
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
      videoCodec: null,
      audioCodec: null,
      frameRate: null,
      unreadable: (['duration_ms', 'width', 'height', 'video_codec', 'frame_rate'] as const).map((field) => ({
        field,
        reason,
      })),
    };
  }
  const moov = await children(reader, moovBox.start, moovBox.end);
  const tracks = await tracksInfo(reader, moov);
  const info: VideoInfo = {
    durationMs: null,
    width: null,
    height: null,
    videoCodec: tracks.videoCodec,
    audioCodec: tracks.audioCodec,
    frameRate: tracks.frameRate,
    unreadable: [],
  };
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
  info.unreadable.push(...tracks.unreadable);
  return info;
}
