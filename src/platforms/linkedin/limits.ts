// LinkedIn post limits: commentary length and the one-kind-per-post media rules (image set, video or document).
// Numbers from docs/platforms/linkedin.md "Limits" and "Calls" (documents, multi-image).

import type { LimitIssue, PlatformLimits } from '../limits.ts';

const MAX_LENGTH = 3000; // ⚠ unverified (Postiz and other clients; no official page seen)
const MB = 1_000_000;

/**
 * Unicode code points (not UTF-16 units, so an emoji outside the BMP is 1). Counted on the text as written:
 * the adapter's little-text escaping (`\#`, `\(` …) adds backslashes on the wire; whether LinkedIn counts them
 * is unknown. ⚠ unverified
 */
export function measure(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Every text issue; empty text is not flagged (a media-only post is fine — the caller decides). */
function check(text: string): LimitIssue[] {
  const length = measure(text);
  return length > MAX_LENGTH
    ? [{ rule: 'text_too_long', message: `Text is ${length} characters; LinkedIn allows ${MAX_LENGTH}.` }]
    : [];
}

export const limits: PlatformLimits = {
  platform: 'linkedin',
  displayName: 'LinkedIn',
  text: { maxLength: MAX_LENGTH, unit: 'characters', measure, check },
  media: {
    // One image, a multi-image set of 2–20, one video or one document — only one of these per post.
    maxItems: 20,
    // docs/platforms/linkedin.md "Limits": fewer than 36,152,320 pixels; 5 MB as for the upload check.
    imageFit: { maxBytes: 5 * MB, maxPixels: 36_152_319 },
    required: false,
    mixKinds: false,
    kinds: {
      // LinkedIn takes animated GIFs as images. Size: aggregators say 5–8 MB; we keep the lower figure.
      image: { contentTypes: ['image/jpeg', 'image/png', 'image/gif'], maxBytes: 5 * MB, maxCount: 20 }, // ⚠ unverified (size)
      video: {
        contentTypes: ['video/mp4'],
        maxBytes: 500 * MB, // ⚠ unverified
        maxCount: 1,
        minDurationMs: 3_000, // ⚠ unverified
        maxDurationMs: 30 * 60_000, // ⚠ unverified
      },
      // LinkedIn also takes PPT/PPTX/DOC/DOCX; Herald offers PDF only (what a "document carousel" is in practice).
      document: { contentTypes: ['application/pdf'], maxBytes: 100 * MB, maxCount: 1 }, // ⚠ unverified
    },
  },
  // No threads on LinkedIn (comments only).
  maxThreadParts: 0,
  // Duplicate text (docs/platforms/linkedin.md; docs/queues.md "Recycling").
  duplicateText: 'LinkedIn refuses a post whose text repeats one of the author’s recent posts (422 DUPLICATE_POST).',
  // First comments (docs/platforms/linkedin.md "First comments").
  firstComment: { via: 'comment', maxLength: 1250 },
};
