// Whether a video fits a platform's video rules (`media.videoRules` of its limits: container, codecs, picture size,
// aspect and frame rate), from what the probe read at upload. Pure: no I/O. The type, byte and duration rules of
// `kinds.video` are media.rules.ts's; this adds what a platform refuses once it has the file in hand.
import type { VideoRules } from '../../platforms/limits.ts';

/** What the probe read from one video (docs/api.md "Media": the video fields). */
export interface VideoFactsForRules {
  id: string;
  width: number | null;
  height: number | null;
  container: string | null;
  videoCodec: string | null;
  audioCodec: string | null;
  frameRate: number | null;
}

/** The facts the rules need, from a media record. */
export function videoFacts(media: {
  id: string;
  width: number | null;
  height: number | null;
  container: string | null;
  video_codec: string | null;
  audio_codec: string | null;
  frame_rate: number | null;
}): VideoFactsForRules {
  return {
    id: media.id,
    width: media.width,
    height: media.height,
    container: media.container,
    videoCodec: media.video_codec,
    audioCodec: media.audio_codec,
    frameRate: media.frame_rate,
  };
}

export interface VideoRuleIssue {
  rule: string;
  message: string;
}

const list = (values: string[]) => values.join(', ');
const fps = (value: number) => `${Number(value.toFixed(3))} fps`;

export function checkVideoRules(name: string, rules: VideoRules, v: VideoFactsForRules): VideoRuleIssue[] {
  const issues: VideoRuleIssue[] = [];
  const issue = (rule: string, message: string) => issues.push({ rule, message });
  const unknown = (what: string) =>
    issue(
      'video_facts_unknown',
      `Herald could not read the ${what} of media ${v.id}, and ${name} limits it; re-encode it as H.264/AAC MP4 (or install ffprobe on the server).`,
    );

  if (rules.containers) {
    if (v.container === null) unknown('container');
    else if (!rules.containers.includes(v.container))
      issue(
        'video_container_unsupported',
        `Media ${v.id} is a ${v.container} file; ${name} takes ${list(rules.containers)}.`,
      );
  }
  if (rules.videoCodecs) {
    if (v.videoCodec === null) unknown('video codec');
    else if (!rules.videoCodecs.includes(v.videoCodec))
      issue(
        'video_codec_unsupported',
        `Media ${v.id} is coded as ${v.videoCodec}; ${name} takes ${list(rules.videoCodecs)} video.`,
      );
  }
  if (rules.audioCodecs && v.audioCodec !== null && !rules.audioCodecs.includes(v.audioCodec))
    issue(
      'audio_codec_unsupported',
      `The sound of media ${v.id} is ${v.audioCodec}; ${name} takes ${list(rules.audioCodecs)} sound.`,
    );

  const sized = rules.maxLongSide ?? rules.maxShortSide ?? rules.minSide ?? rules.minAspect ?? rules.maxAspect;
  if (sized !== undefined) {
    if (v.width === null || v.height === null) unknown('picture size');
    else {
      const long = Math.max(v.width, v.height);
      const short = Math.min(v.width, v.height);
      const box =
        rules.maxLongSide !== undefined && rules.maxShortSide !== undefined
          ? `${rules.maxLongSide}×${rules.maxShortSide}`
          : `${rules.maxLongSide ?? rules.maxShortSide} px on its ${rules.maxLongSide !== undefined ? 'long' : 'short'} side`;
      if (
        (rules.maxLongSide !== undefined && long > rules.maxLongSide) ||
        (rules.maxShortSide !== undefined && short > rules.maxShortSide)
      )
        issue(
          'video_resolution_too_high',
          `Media ${v.id} is ${v.width}×${v.height}; ${name} takes video up to ${box} (either way round).`,
        );
      if (rules.minSide !== undefined && short < rules.minSide)
        issue(
          'video_resolution_too_low',
          `Media ${v.id} is ${v.width}×${v.height}; ${name} needs at least ${rules.minSide} px on each side.`,
        );
      const aspect = v.width / v.height;
      if (
        (rules.minAspect !== undefined && aspect < rules.minAspect - 1e-6) ||
        (rules.maxAspect !== undefined && aspect > rules.maxAspect + 1e-6)
      )
        issue(
          'video_aspect_ratio_unsupported',
          `Media ${v.id} is ${v.width}×${v.height} (aspect ${aspect.toFixed(2)}); ${name} takes aspect ratios from ${(rules.minAspect ?? 0).toFixed(2)} to ${(rules.maxAspect ?? Infinity).toFixed(2)}.`,
        );
    }
  }

  if (rules.minFrameRate !== undefined || rules.maxFrameRate !== undefined) {
    if (v.frameRate === null) unknown('frame rate');
    else if (rules.minFrameRate !== undefined && v.frameRate < rules.minFrameRate)
      issue(
        'video_frame_rate_too_low',
        `Media ${v.id} runs at ${fps(v.frameRate)}; ${name} needs at least ${fps(rules.minFrameRate)}.`,
      );
    else if (rules.maxFrameRate !== undefined && v.frameRate > rules.maxFrameRate + 0.01)
      issue(
        'video_frame_rate_too_high',
        `Media ${v.id} runs at ${fps(v.frameRate)}; ${name} takes at most ${fps(rules.maxFrameRate)}.`,
      );
  }
  return issues;
}
