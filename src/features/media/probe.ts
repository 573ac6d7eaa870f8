// What a video is, read when its bytes are checked (docs/api.md "Media": video facts): duration, container,
// codecs, picture size and frame rate. With `ffprobe` on the PATH (FFmpeg, an optional system dependency) Herald
// asks it, and it reads every container FFmpeg knows, WebM included. Without it, or where it cannot run, Herald
// keeps what its own MP4/MOV box reader found (sniff/isobmff.ts): the same facts for MP4 and MOV, nothing for WebM.
import { execFile } from 'node:child_process';
import type { VideoFacts } from './media.repo.ts';
import type { SniffResult, Unreadable } from './sniff/sniff.ts';

/** The container a sniffed video type is. */
const CONTAINERS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/x-m4v': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
};

const PROBE_TIMEOUT_MS = 30_000;

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { duration?: string };
}

function ratio(text: string | undefined): number | null {
  if (!text) return null;
  const [num, den] = text.split('/').map(Number) as [number, number | undefined];
  const value = den === undefined ? num : den === 0 ? NaN : num / den;
  return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) / 1000 : null;
}

function runFfprobe(ffprobe: string, source: string): Promise<FfprobeOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      ffprobe,
      // Local files only: a container that names another resource (a reference, a playlist) is not followed.
      ['-v', 'error', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_format', '-show_streams', source],
      { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout) => {
        if (error) return reject(error);
        try {
          resolve(JSON.parse(stdout) as FfprobeOutput);
        } catch (parseError) {
          reject(parseError as Error);
        }
      },
    );
  });
}

/** The sniff result of a video, with what ffprobe adds to it. */
export interface ProbedVideo {
  width: number | null;
  height: number | null;
  durationMs: number | null;
  unreadable: Unreadable[];
  video: VideoFacts;
}

/**
 * Facts about a video whose bytes sniffed as `sniffed`. `source` is a local file ffprobe may read (null when the
 * bytes are elsewhere), `ffprobe` its path (null when absent): the box reader's facts are then kept as they are.
 */
export async function probeVideo(
  sniffed: SniffResult,
  source: string | null,
  ffprobe: string | null,
): Promise<ProbedVideo> {
  const container = CONTAINERS[sniffed.contentType ?? ''] ?? null;
  const own: ProbedVideo = {
    width: sniffed.width,
    height: sniffed.height,
    durationMs: sniffed.durationMs,
    unreadable: sniffed.unreadable,
    video: {
      container,
      videoCodec: sniffed.tracks?.videoCodec ?? null,
      audioCodec: sniffed.tracks?.audioCodec ?? null,
      frameRate: sniffed.tracks?.frameRate ?? null,
      probedWith: 'isobmff',
    },
  };
  if (!ffprobe || !source) return own;
  let out: FfprobeOutput;
  try {
    out = await runFfprobe(ffprobe, source);
  } catch {
    return own; // bytes ffprobe cannot read: the box reader's facts (and their reasons) stand
  }
  const video = out.streams?.find((s) => s.codec_type === 'video');
  const audio = out.streams?.find((s) => s.codec_type === 'audio');
  const rotation = Number(
    video?.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? video?.tags?.rotate,
  );
  const turned = Number.isFinite(rotation) && Math.abs(rotation) % 180 === 90;
  const width = video?.width ? (turned ? video.height! : video.width) : null;
  const height = video?.height ? (turned ? video.width! : video.height) : null;
  const seconds = Number(out.format?.duration);
  const durationMs = Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : null;
  const frameRate = ratio(video?.avg_frame_rate) ?? ratio(video?.r_frame_rate);
  const facts: ProbedVideo = {
    // The box reader's values win where it read them (it applies the track matrix exactly); ffprobe fills the gaps.
    width: sniffed.width ?? width,
    height: sniffed.height ?? height,
    durationMs: sniffed.durationMs ?? durationMs,
    unreadable: [],
    video: {
      container,
      videoCodec: video?.codec_name ?? null,
      audioCodec: audio?.codec_name ?? null,
      frameRate,
      probedWith: 'ffprobe',
    },
  };
  const reason = 'ffprobe found no value for it';
  const missing: [Unreadable['field'], unknown][] = [
    ['width', facts.width],
    ['height', facts.height],
    ['duration_ms', facts.durationMs],
    ['video_codec', facts.video.videoCodec],
    ['frame_rate', facts.video.frameRate],
  ];
  for (const [field, value] of missing) if (value === null) facts.unreadable.push({ field, reason });
  return facts;
}
