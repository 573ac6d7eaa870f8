// TikTok post limits: how TikTok counts a caption, and what media a Direct Post takes (docs/platforms/tiktok.md
// "Limits"). Every TikTok post carries media: one video, or a photo post of 1 to 35 images; no text-only posts, no
// threads. The simulator enforces the same values.
import type { LimitIssue, PlatformLimits } from '../limits.ts';

/**
 * The caption limit: a video's `title` takes 2,200 UTF-16 code units ("runes" in TikTok's reference). A photo
 * post's caption (`description`) takes 4,000, but Herald does not know at creation which kind a single item makes,
 * so the video's limit applies to both.
 */
export const MAX_LENGTH = 2200;
/** A photo post's own title (`platform_options.tiktok.title`). */
export const MAX_PHOTO_TITLE = 90;
export const MAX_PHOTOS = 35; // ⚠ unverified (aggregators' figure)
const MB = 1_000_000;

/** TikTok counts UTF-16 code units: an emoji outside the Basic Multilingual Plane counts 2. */
export function measure(text: string): number {
  return text.length;
}

function check(text: string): LimitIssue[] {
  const length = measure(text);
  return length > MAX_LENGTH
    ? [
        {
          rule: 'text_too_long',
          message: `Caption is ${length} UTF-16 code units; TikTok allows ${MAX_LENGTH}.`,
        },
      ]
    : [];
}

const PRIVATE_LEVEL = 'SELF_ONLY';

export const limits: PlatformLimits = {
  platform: 'tiktok',
  displayName: 'TikTok',
  text: { maxLength: MAX_LENGTH, unit: 'UTF-16 code units', measure, check },
  media: {
    maxItems: MAX_PHOTOS,
    required: true,
    mixKinds: false,
    // Video: MP4, MOV or WebM, H.264/H.265/VP8/VP9, 23–60 fps, 360 to 4096 px a side (TikTok's video restrictions).
    videoRules: {
      containers: ['mp4', 'mov', 'webm'],
      videoCodecs: ['h264', 'hevc', 'vp8', 'vp9'],
      minFrameRate: 23,
      maxFrameRate: 60,
      minSide: 360,
      maxLongSide: 4096,
    },
    // Photos: JPEG or WebP, at most 20 MB and 1080p (⚠ unverified: TikTok scales larger pictures down itself).
    imageFit: { maxBytes: 20 * MB, maxWidth: 1080, maxHeight: 1920 },
    kinds: {
      image: { contentTypes: ['image/jpeg', 'image/webp'], maxBytes: 20 * MB, maxCount: MAX_PHOTOS },
      video: {
        contentTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
        maxBytes: 4_000 * MB,
        maxCount: 1,
        minDurationMs: 3_000,
        // The creator's own cap (`max_video_post_duration_sec`, often less) is checked before each post.
        maxDurationMs: 10 * 60_000,
      },
    },
  },
  // TikTok has no reply chains; comments are not published through the Content Posting API.
  maxThreadParts: 0,
  checkOptions(options, mediaCount) {
    const issues: LimitIssue[] = [];
    // Two or more items can only be a photo post: the video-only options make no sense there.
    if (mediaCount > 1) {
      for (const name of ['disable_duet', 'disable_stitch', 'video_cover_timestamp_ms', 'video_source'])
        if (options[name] !== undefined)
          issues.push({
            rule: 'video_option_on_photo_post',
            message: `${name} applies to a TikTok video; ${mediaCount} media items make a photo post.`,
          });
    }
    if (typeof options.photo_cover_index === 'number' && options.photo_cover_index >= Math.max(1, mediaCount))
      issues.push({
        rule: 'photo_cover_index_out_of_range',
        message: `photo_cover_index ${options.photo_cover_index} names no image; the post has ${mediaCount}.`,
      });
    if (options.brand_content_toggle === true && options.privacy_level === PRIVATE_LEVEL)
      issues.push({
        rule: 'branded_content_private',
        message: 'TikTok does not allow branded content (brand_content_toggle) to be private (SELF_ONLY).',
      });
    return issues;
  },
};
