// Facebook Page post limits: message length and photo/video rules.
// Numbers from docs/platforms/facebook.md "Limits" and "Calls" (multi-photo via attached_media).

import type { LimitIssue, PlatformLimits } from '../limits.ts';

const MAX_LENGTH = 63_206; // Postiz maxLength
const MB = 1_000_000;

/** Unicode code points (not UTF-16 units, so an emoji outside the BMP is 1). */
export function measure(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Every text issue; empty text is not flagged (a photo-only post is fine — the caller decides). */
function check(text: string): LimitIssue[] {
  const length = measure(text);
  return length > MAX_LENGTH
    ? [{ rule: 'text_too_long', message: `Text is ${length} characters; Facebook allows ${MAX_LENGTH}.` }]
    : [];
}

export const limits: PlatformLimits = {
  platform: 'facebook',
  displayName: 'Facebook',
  text: { maxLength: MAX_LENGTH, unit: 'characters', measure, check },
  media: {
    // A photo set (unpublished photos + attached_media) or a single video; the feed post cannot combine them.
    maxItems: 10, // ⚠ unverified
    // The 10 MB of the upload check; Facebook scales large photos itself, so Herald bounds them at 4096 px too.
    imageFit: { maxBytes: 10 * MB, maxWidth: 4096, maxHeight: 4096 },
    required: false,
    mixKinds: false,
    kinds: {
      // docs/platforms/facebook.md "Limits": Meta only recommends photos under 4 MB; that is advice, not a hard cap.
      // Facebook accepts larger photos and recompresses, so Herald allows 10 MB rather than refuse ordinary phone
      // photos.
      image: { contentTypes: ['image/jpeg', 'image/png'], maxBytes: 10 * MB, maxCount: 10 }, // ⚠ unverified
      video: { contentTypes: ['video/mp4', 'video/quicktime'], maxBytes: 1000 * MB, maxCount: 1 }, // ⚠ unverified
    },
  },
  // No threads on Facebook (a "first comment" is a comment, not a chained post).
  maxThreadParts: 0,
  // Duplicate text (docs/platforms/facebook.md; docs/queues.md "Recycling").
  duplicateText: 'Facebook refuses the same message posted twice in a row on a Page (error 506).',
  // First comments (docs/platforms/facebook.md "First comments"): one photo attached to the comment.
  firstComment: { via: 'comment', maxLength: 8000, media: { maxItems: 1, kinds: ['image'] } },
};
