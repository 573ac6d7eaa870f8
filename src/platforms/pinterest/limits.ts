// Pinterest Pin limits (docs/platforms/pinterest.md "Limits"): the post's text is the Pin's description, counted in
// Unicode code points; every Pin has media: one image, a carousel of 2–5 images, or one video; a Pin goes to a board
// (`platform_options.pinterest.board_id`, or `boards`: one per connection). No threads.
import type { LimitIssue, PlatformLimits } from '../limits.ts';

/**
 * The description Herald publishes: 500 characters, Pinterest's own figure for Pin descriptions (its help centre);
 * the API's schema takes 800 (docs/decisions.md). ⚠ unverified: how Pinterest counts (code points here).
 */
export const MAX_LENGTH = 500;
export const MAX_TITLE = 100;
export const MAX_ALT_TEXT = 500;
/** Images of a carousel Pin (`multiple_image_urls`: 2–5 items, the OpenAPI). */
export const MAX_IMAGES = 5;
const MB = 1_000_000;

/** Unicode code points (an emoji outside the BMP is 1). */
export function measure(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function check(text: string): LimitIssue[] {
  const length = measure(text);
  return length > MAX_LENGTH
    ? [
        {
          rule: 'text_too_long',
          message: `The description is ${length} characters; Pinterest allows ${MAX_LENGTH}.`,
        },
      ]
    : [];
}

export const limits: PlatformLimits = {
  platform: 'pinterest',
  displayName: 'Pinterest',
  text: { maxLength: MAX_LENGTH, unit: 'characters', measure, check },
  media: {
    maxItems: MAX_IMAGES,
    required: true,
    mixKinds: false,
    // ⚠ unverified (Pinterest's help centre, not the API reference): images up to 20 MB; a 2:3 aspect is recommended,
    // not required, so Herald fits the size only.
    imageFit: { maxBytes: 20 * MB },
    // ⚠ unverified: MP4, MOV or M4V, H.264 or H.265 (Pinterest's video specifications).
    videoRules: { containers: ['mp4', 'mov'], videoCodecs: ['h264', 'hevc'] },
    kinds: {
      image: { contentTypes: ['image/jpeg', 'image/png', 'image/webp'], maxBytes: 20 * MB, maxCount: MAX_IMAGES },
      video: {
        contentTypes: ['video/mp4', 'video/quicktime'],
        maxBytes: 2_000 * MB, // ⚠ unverified: 2 GB
        maxCount: 1,
        minDurationMs: 4_000, // ⚠ unverified: 4 s to 15 min
        maxDurationMs: 15 * 60_000,
      },
    },
  },
  maxThreadParts: 0,
  checkOptions(options, mediaCount) {
    const issues: LimitIssue[] = [];
    // Whether `boards` covers each Pinterest connection of the post is checked with its targets (posts.rules.ts).
    const perConnection = typeof options.boards === 'object' && options.boards !== null;
    if ((typeof options.board_id !== 'string' || options.board_id === '') && !perConnection)
      issues.push({
        rule: 'board_required',
        message:
          'A Pin goes to a board: set platform_options.pinterest.board_id to one of the account’s boards ' +
          '(GET /v1/connections/{id}, options.boards), or boards to a board per connection.',
      });
    if (options.cover_time_seconds !== undefined && mediaCount !== 1)
      issues.push({
        rule: 'cover_time_single_video',
        message:
          'cover_time_seconds picks the cover frame of a video Pin, which is one video; ' +
          `the post has ${mediaCount} media items.`,
      });
    return issues;
  },
};
