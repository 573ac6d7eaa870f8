// Whether a post's media fit each target platform (docs/api.md "Posts": 422 with per-platform details), from the
// platforms' own rules in PLATFORM_LIMITS: how many items, which types (looked up in that platform's own kinds,
// so a GIF is X's `gif` but LinkedIn's `image`), sizes, video durations and mixing. Pure: no I/O.
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { FITTABLE_IMAGE_TYPES } from './fit/plan.ts';
import type { MediaKind, MediaKindRule, PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import { checkVideoRules, type VideoFactsForRules } from './media.video-rules.ts';
import { TRANSCODABLE_RULES } from './fit/video.ts';

/** The facts about one attached media item the rules need. */
export interface AttachedMedia {
  id: string;
  /** Index in the post's `media_ids` (for the `path` of an issue). */
  position: number;
  contentType: string;
  sizeBytes: number;
  durationMs: number | null;
  /** For a video: what the probe read, checked against the platform's `videoRules`. */
  video?: Omit<VideoFactsForRules, 'id'>;
  /** This server transcodes video (FFmpeg): faults a transcode mends are not refusals. */
  transcodable?: boolean;
}

/** Same shape as the posts feature's rule issues (a 422 detail, or an item of `POST /posts/validate`). */
export interface MediaIssue {
  platform: PlatformName | null;
  rule: string;
  message: string;
  path: string;
}

const MB = 1_000_000;
const size = (bytes: number) => (bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1000)} kB`);
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** The platform's kind for a content type, from its own table; undefined when the platform does not take it. */
export function platformKind(limits: PlatformLimits, contentType: string): [MediaKind, MediaKindRule] | undefined {
  for (const [kind, rule] of Object.entries(limits.media.kinds) as [MediaKind, MediaKindRule][]) {
    if (rule.contentTypes.includes(contentType)) return [kind, rule];
  }
  return undefined;
}

export function checkMediaForPlatform(
  platform: PlatformName,
  media: AttachedMedia[],
  limits: PlatformLimits = PLATFORM_LIMITS[platform],
): MediaIssue[] {
  const issues: MediaIssue[] = [];
  const name = limits.displayName;
  const issue = (rule: string, message: string, path = '/media_ids') => issues.push({ platform, rule, message, path });
  if (media.length === 0) return issues;
  if (limits.media.maxItems === 0) {
    issue('media_unsupported', `${name} posts cannot carry media.`);
    return issues;
  }
  if (media.length > limits.media.maxItems)
    issue(
      'too_many_media',
      `${name} takes at most ${limits.media.maxItems} media items per post; this post has ${media.length}.`,
    );

  const kinds = new Map<MediaKind, number>();
  for (const item of media) {
    const path = `/media_ids/${item.position}`;
    const found = platformKind(limits, item.contentType);
    if (limits.media.imageFit && FITTABLE_IMAGE_TYPES.has(item.contentType)) {
      // Herald fits images to the platform's image rules (fit/plan.ts, media.variants.ts): type and size are not
      // refusals here; what cannot be fitted is refused by the fit plan, naming its rule.
      const kind: MediaKind = found?.[0] ?? 'image';
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      continue;
    }
    if (!found) {
      const accepted = Object.values(limits.media.kinds).flatMap((k) => k.contentTypes);
      issue(
        'media_type_unsupported',
        `${name} does not take ${item.contentType} (media ${item.id}); it takes ${accepted.join(', ')}.`,
        path,
      );
      continue;
    }
    const [kind, rule] = found;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (item.sizeBytes > rule.maxBytes)
      issue(
        'media_too_large',
        `Media ${item.id} is ${size(item.sizeBytes)}; ${name} takes ${kind} files up to ${size(rule.maxBytes)}.`,
        path,
      );
    if (rule.minDurationMs !== undefined || rule.maxDurationMs !== undefined) {
      if (item.durationMs === null) {
        issue(
          'video_duration_unknown',
          `Herald could not read the duration of media ${item.id}, and ${name} limits video duration; re-encode it as MP4 with the movie header (moov) intact.`,
          path,
        );
      } else if (rule.minDurationMs !== undefined && item.durationMs < rule.minDurationMs) {
        issue(
          'video_too_short',
          `Media ${item.id} lasts ${seconds(item.durationMs)}; ${name} needs at least ${seconds(rule.minDurationMs)}.`,
          path,
        );
      } else if (rule.maxDurationMs !== undefined && item.durationMs > rule.maxDurationMs) {
        issue(
          'video_too_long',
          `Media ${item.id} lasts ${seconds(item.durationMs)}; ${name} takes at most ${seconds(rule.maxDurationMs)}.`,
          path,
        );
      }
    }
    if (kind === 'video' && item.video && limits.media.videoRules) {
      const broken = checkVideoRules(name, limits.media.videoRules, { id: item.id, ...item.video });
      // With FFmpeg, a video whose every fault a transcode mends becomes a variant (fit/video.ts), not a refusal.
      const mended = item.transcodable === true && broken.every((found) => TRANSCODABLE_RULES.has(found.rule));
      if (!mended) for (const found of broken) issue(found.rule, found.message, path);
    }
  }
  for (const [kind, count] of kinds) {
    const max = limits.media.kinds[kind]!.maxCount;
    if (count > max)
      issue(
        'too_many_media_of_kind',
        `${name} takes at most ${max} ${kind} item${max === 1 ? '' : 's'} per post; this post has ${count}.`,
      );
  }
  if (!limits.media.mixKinds && kinds.size > 1) {
    issue('media_mix_unsupported', `${name} cannot combine ${[...kinds.keys()].join(' and ')} in one post.`);
  }
  return issues;
}

export function checkMediaRules(platforms: readonly PlatformName[], media: AttachedMedia[]): MediaIssue[] {
  return platforms.flatMap((platform) => checkMediaForPlatform(platform, media));
}
