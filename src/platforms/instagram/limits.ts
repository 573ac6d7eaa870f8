// Instagram post limits: caption length, hashtag and @mention caps, and the media-required feed/carousel rules.
// Numbers from docs/platforms/instagram.md "Limits" and "Calls" (carousel 2–10, mixed).

import type { LimitIssue, PlatformLimits } from '../limits.ts';

const MAX_LENGTH = 2200;
const MAX_HASHTAGS = 30; // error 2207040 "too many tags"
const MAX_MENTIONS = 20;
const MB = 1_000_000;

// A hashtag starts at a word boundary (so `a#b` and `&#39;` are not tags) and holds letters, marks, digits or `_`.
const HASHTAG = /(?<![\p{L}\p{M}\p{N}_&#])#[\p{L}\p{M}\p{N}_]+/gu;
// An Instagram handle: letters, digits, `.` and `_`; not preceded by a word character, so e-mail addresses don't count.
const MENTION = /(?<![\p{L}\p{M}\p{N}_.@])@[A-Za-z0-9._]+/gu;

/** Unicode code points (not UTF-16 units, so an emoji outside the BMP is 1). */
export function measure(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Hashtags in a caption. Every occurrence counts: Meta does not say repeats are free, so we take the strict reading.
 */
export function countHashtags(text: string): number {
  return text.match(HASHTAG)?.length ?? 0;
}

/** @mentions in a caption, every occurrence (same reasoning as hashtags). */
export function countMentions(text: string): number {
  return text.match(MENTION)?.length ?? 0;
}

/** Every caption issue. Empty captions are fine on Instagram; the missing-media rule belongs to media validation. */
function check(text: string): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const length = measure(text);
  if (length > MAX_LENGTH) {
    issues.push({ rule: 'text_too_long', message: `Caption is ${length} characters; Instagram allows ${MAX_LENGTH}.` });
  }
  const hashtags = countHashtags(text);
  if (hashtags > MAX_HASHTAGS) {
    issues.push({
      rule: 'too_many_hashtags',
      message: `Caption has ${hashtags} hashtags; Instagram allows ${MAX_HASHTAGS}.`,
    });
  }
  const mentions = countMentions(text);
  if (mentions > MAX_MENTIONS) {
    issues.push({
      rule: 'too_many_mentions',
      message: `Caption has ${mentions} @mentions; Instagram allows ${MAX_MENTIONS}.`,
    });
  }
  return issues;
}

export const limits: PlatformLimits = {
  platform: 'instagram',
  displayName: 'Instagram',
  text: {
    maxLength: MAX_LENGTH,
    unit: 'characters',
    measure,
    check,
    caps: { hashtags: MAX_HASHTAGS, mentions: MAX_MENTIONS },
  },
  media: {
    // Every Instagram post has media: one image, one Reel, or a carousel of 2–10 images and videos mixed.
    maxItems: 10,
    // docs/platforms/instagram.md "Limits" (video rules): MOV or MP4, H.264 or HEVC with AAC sound, 23 to 60 fps,
    // at most 1920 px on the long side.
    videoRules: {
      containers: ['mp4', 'mov'],
      videoCodecs: ['h264', 'hevc'],
      audioCodecs: ['aac'],
      maxLongSide: 1920,
      minFrameRate: 23,
      maxFrameRate: 60,
    },
    // docs/platforms/instagram.md "Limits": JPEG only, 8 MB, aspect 4:5 to 1.91:1, at most 1440 px wide (wider is
    // scaled down by Instagram anyway, so Herald sends 1440).
    imageFit: { maxBytes: 8 * MB, maxWidth: 1440, minAspect: 0.8, maxAspect: 1.91 },
    required: true,
    mixKinds: true,
    kinds: {
      // Feed images must be JPEG (no PNG, no MPO/JPS).
      image: { contentTypes: ['image/jpeg'], maxBytes: 8 * MB, maxCount: 10 },
      video: {
        contentTypes: ['video/mp4', 'video/quicktime'],
        // Sources conflict (guide 300 MB, Postman text 1 GB); we keep the lower figure.
        maxBytes: 300 * MB, // ⚠ unverified
        maxCount: 10,
        minDurationMs: 3_000,
        maxDurationMs: 15 * 60_000,
      },
    },
  },
  // Multi-post chains are not supported; replies are comments.
  maxThreadParts: 0,
  // First comments (docs/platforms/instagram.md "First comments").
  firstComment: { via: 'comment', maxLength: 2200 },
  checkOptions(options, mediaCount) {
    const issues: LimitIssue[] = [];
    // A story or a Reel is one image or video (a Reel: one video — the media kind is checked when it is published).
    if ((options.type === 'story' || options.type === 'reel') && mediaCount > 1) {
      issues.push({
        rule: `${options.type}_single_media`,
        message: `An Instagram ${options.type === 'story' ? 'story' : 'Reel'} is one ${options.type === 'story' ? 'image or video' : 'video'}; the post has ${mediaCount} media items.`,
      });
    }
    if (options.share_to_feed !== undefined && options.type === 'story') {
      issues.push({ rule: 'share_to_feed_reels_only', message: 'share_to_feed applies to Reels, not stories.' });
    }
    if (options.first_comment !== undefined && options.type === 'story') {
      issues.push({
        rule: 'first_comment_on_story',
        message: 'Stories take no comments from the API; remove first_comment or publish to the feed.',
      });
    }
    return issues;
  },
};
