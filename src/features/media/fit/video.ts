// Videos fitted to a platform's video rules (docs/api.md "Video rules"): where FFmpeg is available, a video whose
// only faults are ones a transcode mends — container, codecs, picture too large, frame rate — becomes an H.264/AAC
// MP4 variant (media.variants.ts makes it in the `make_media_variant` job, with its progress on the media record).
// What a transcode cannot mend (duration, bytes, aspect ratio, a picture too small, facts Herald could not read)
// stays a refusal, as it does everywhere without FFmpeg.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { PlatformLimits, PlatformName } from '../../../platforms/limits.ts';
import { checkVideoRules, type VideoFactsForRules } from '../media.video-rules.ts';
import { fileReader } from '../sniff/byte-reader.ts';
import { readVideoInfo } from '../sniff/isobmff.ts';

/** Video rules a transcode to H.264/AAC MP4 mends. */
export const TRANSCODABLE_RULES: ReadonlySet<string> = new Set([
  'video_container_unsupported',
  'video_codec_unsupported',
  'audio_codec_unsupported',
  'video_resolution_too_high',
  'video_frame_rate_too_high',
  'video_frame_rate_too_low',
]);

export interface VideoVariantSpec {
  kind: 'video';
  /** The picture, scaled to fit the platform's box (even sides, as H.264 in 4:2:0 needs). */
  width: number;
  height: number;
  /** The frame rate to write; null keeps the source's. */
  frameRate: number | null;
}

export type VideoPlan = {
  kind: 'variant';
  spec: VideoVariantSpec;
  ruleKey: string;
  actions: string[];
  contentType: string;
  width: number;
  height: number;
} | null;

const even = (value: number) => Math.max(2, Math.floor(value / 2) * 2);

/**
 * What a video needs to meet a platform's video rules: null when it meets them as it is, when a transcode would not
 * mend every broken rule (the refusal then names them), or when `transcode` is false (no FFmpeg).
 */
export function planVideo(
  platform: PlatformName,
  limits: PlatformLimits,
  facts: VideoFactsForRules,
  transcode: boolean,
): VideoPlan {
  const rules = limits.media.videoRules;
  if (!transcode || !rules) return null;
  const broken = checkVideoRules(limits.displayName, rules, facts);
  if (broken.length === 0 || broken.some((issue) => !TRANSCODABLE_RULES.has(issue.rule))) return null;
  const width = facts.width!;
  const height = facts.height!;
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const scale = Math.min(
    1,
    rules.maxLongSide !== undefined ? rules.maxLongSide / long : 1,
    rules.maxShortSide !== undefined ? rules.maxShortSide / short : 1,
  );
  const spec: VideoVariantSpec = {
    kind: 'video',
    width: even(width * scale),
    height: even(height * scale),
    frameRate:
      facts.frameRate !== null && rules.maxFrameRate !== undefined && facts.frameRate > rules.maxFrameRate + 0.01
        ? rules.maxFrameRate
        : facts.frameRate !== null && rules.minFrameRate !== undefined && facts.frameRate < rules.minFrameRate
          ? Math.ceil(rules.minFrameRate)
          : null,
  };
  const actions = [
    `transcoded from ${facts.videoCodec ?? 'unknown'}${facts.audioCodec ? `/${facts.audioCodec}` : ''} in ${facts.container ?? 'an unknown container'} to H.264/AAC MP4`,
  ];
  if (spec.width !== width || spec.height !== height) actions.push(`scaled to ${spec.width}×${spec.height}`);
  if (spec.frameRate !== null) actions.push(`frame rate set to ${spec.frameRate} fps`);
  const ruleKey = `${platform}:video:${createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16)}`;
  return { kind: 'variant', spec, ruleKey, actions, contentType: 'video/mp4', width: spec.width, height: spec.height };
}

/** Why a transcode failed, phrased for the API client. */
export class TranscodeFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscodeFailed';
  }
}

export interface TranscodedVideo {
  file: string;
  size: number;
  sha256: string;
  width: number;
  height: number;
  cleanup(): Promise<void>;
}

/** The longest one transcode may run before FFmpeg is killed (and the attempt fails). */
export const TRANSCODE_TIMEOUT_MS = 60 * 60_000;

/**
 * Transcodes `source` (the original's bytes) with `ffmpeg` to an H.264/AAC MP4 of `spec` in a temporary directory,
 * reporting progress (0 to 1, from FFmpeg's `-progress` output over `durationMs`). The caller stores the file and
 * calls `cleanup`.
 */
export async function transcodeVideo(
  ffmpeg: string,
  source: Readable,
  spec: VideoVariantSpec,
  durationMs: number | null,
  onProgress: (fraction: number) => void,
): Promise<TranscodedVideo> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-transcode-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const input = path.join(dir, 'source');
    const output = path.join(dir, 'variant.mp4');
    await pipeline(source, createWriteStream(input));
    const filters = [
      `scale=${spec.width}:${spec.height}`,
      'setsar=1',
      ...(spec.frameRate ? [`fps=${spec.frameRate}`] : []),
    ];
    const args = [
      // The input is a local file, and nothing it names elsewhere is read (-protocol_whitelist).
      ...['-nostdin', '-v', 'error', '-y', '-protocol_whitelist', 'file', '-i', input],
      ...['-map', '0:v:0', '-map', '0:a:0?'],
      ...['-vf', filters.join(',')],
      ...['-c:v', 'libx264', '-profile:v', 'high', '-pix_fmt', 'yuv420p', '-preset', 'veryfast', '-crf', '23'],
      ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000'],
      ...['-movflags', '+faststart', '-progress', 'pipe:1', '-nostats', output],
    ];
    await new Promise<void>((resolve, reject) => {
      const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let errors = '';
      let pending = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), TRANSCODE_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString('latin1');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const match = /^out_time_us=(\d+)/.exec(line);
          if (match && durationMs) onProgress(Math.min(0.99, Number(match[1]) / 1000 / durationMs));
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (errors.length < 4000) errors += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new TranscodeFailed(`FFmpeg could not be started: ${error.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) return resolve();
        const last = errors.trim().split('\n').pop() ?? '';
        reject(new TranscodeFailed(`FFmpeg could not transcode it (${signal ?? `exit ${code}`}): ${last}`.trim()));
      });
    });
    const { size } = await stat(output);
    const digest = createHash('sha256');
    for await (const chunk of createReadStream(output)) digest.update(chunk as Buffer);
    const reader = await fileReader(output);
    let info;
    try {
      info = await readVideoInfo(reader);
    } finally {
      await reader.close();
    }
    return {
      file: output,
      size,
      sha256: digest.digest('hex'),
      width: info.width ?? spec.width,
      height: info.height ?? spec.height,
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
