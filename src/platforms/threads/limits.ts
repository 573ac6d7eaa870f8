// Threads post limits: Threads' emoji-as-bytes length rule, the link cap and carousel media rules.
// Numbers from docs/platforms/threads.md "Limits" and "Calls" (carousel 2–20, reply chains).

import type { LimitIssue, PlatformLimits } from '../limits.ts';
import { twitterText } from '../twitter-text.ts';

const MAX_LENGTH = 500;
const MAX_LINKS = 5; // from 2025-12-22, THREADS_API__LINK_LIMIT_EXCEEDED
const MB = 1_000_000;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const utf8 = new TextEncoder();
// An emoji is a grapheme cluster holding an Extended_Pictographic code point (covers ZWJ sequences and
// skin tones); regional-indicator flags and keycaps (U+20E3) are emoji too though not Extended_Pictographic.
const EMOJI = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u20E3]/u;

/**
 * How we read docs/platforms/threads.md "Limits" ("500 characters; emojis are counted as the number of UTF-8 bytes"):
 * each grapheme cluster counts 1, except an emoji cluster, which counts its whole UTF-8 byte length —
 * 👍 is 4, 👍🏽 is 8, 👨‍👩‍👧‍👦 is 25. Meta does not say what a "character" is for non-emoji text; graphemes
 * are our reading. ⚠ unverified
 */
export function measure(text: string): number {
  let count = 0;
  for (const { segment } of graphemes.segment(text)) {
    count += EMOJI.test(segment) ? utf8.encode(segment).length : 1;
  }
  return count;
}

/** Every text issue; empty text is not flagged (a media-only post is fine — the caller decides). */
function check(text: string): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const length = measure(text);
  if (length > MAX_LENGTH) {
    issues.push({
      rule: 'text_too_long',
      message: `Text is ${length} characters (emoji counted as UTF-8 bytes); Threads allows ${MAX_LENGTH}.`,
    });
  }
  // Every occurrence counts: Meta does not say whether a repeated link counts once, so we assume the stricter reading.
  // Link detection reuses twitter-text's URL grammar (bare domains included, as Threads links them too).
  const links = twitterText().extractUrls(text).length;
  if (links > MAX_LINKS) {
    issues.push({ rule: 'too_many_links', message: `Text has ${links} links; Threads allows ${MAX_LINKS}.` });
  }
  return issues;
}

export const limits: PlatformLimits = {
  platform: 'threads',
  displayName: 'Threads',
  text: {
    maxLength: MAX_LENGTH,
    unit: 'characters (emoji count as UTF-8 bytes)',
    measure,
    check,
    caps: { links: MAX_LINKS },
  },
  media: {
    // One image or video, or a carousel of 2–20 images and videos mixed.
    // docs/platforms/threads.md "Limits" (video rules): MOV or MP4, H.264 or HEVC, 23 to 60 fps.
    videoRules: { containers: ['mp4', 'mov'], videoCodecs: ['h264', 'hevc'], minFrameRate: 23, maxFrameRate: 60 },
    maxItems: 20,
    // docs/platforms/threads.md "Limits": JPEG or PNG, 8 MB, at most 1440 px wide, aspect at most 10:1 either way.
    imageFit: { maxBytes: 8 * MB, maxWidth: 1440, minAspect: 0.1, maxAspect: 10 },
    required: false,
    mixKinds: true,
    kinds: {
      image: { contentTypes: ['image/jpeg', 'image/png'], maxBytes: 8 * MB, maxCount: 20 },
      video: {
        contentTypes: ['video/mp4', 'video/quicktime'],
        maxBytes: 1000 * MB,
        maxCount: 20,
        maxDurationMs: 5 * 60_000,
      },
    },
  },
  // A reply chain (reply_to_id); 25 is Herald's own cap, not Threads'.
  maxThreadParts: 25,
  // First comments (docs/platforms/threads.md "First comments").
  firstComment: { via: 'reply' },
};
