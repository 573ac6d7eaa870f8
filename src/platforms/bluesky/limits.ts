// Bluesky post limits: grapheme-counted text with a UTF-8 byte ceiling, and embed rules.
// Numbers from docs/platforms/bluesky.md "Limits" and "Calls" (images embed max 4).

import type { LimitIssue, PlatformLimits } from '../limits.ts';

const MAX_GRAPHEMES = 300; // app.bsky.feed.post text maxGraphemes
const MAX_BYTES = 3000; //    app.bsky.feed.post text maxLength (UTF-8 bytes)
const MB = 1_000_000;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const utf8 = new TextEncoder();

/** Bluesky counts user-perceived characters (extended grapheme clusters): 👨‍👩‍👧‍👦 is 1, é is 1 either way. */
export function measure(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count++;
  return count;
}

/** The second text limit: the record's byte length, which dense scripts and emoji hit before 300 graphemes. */
export function utf8Bytes(text: string): number {
  return utf8.encode(text).length;
}

/** Every text issue; empty text is not flagged (an images-only post is fine — the caller decides). */
function check(text: string): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const length = measure(text);
  if (length > MAX_GRAPHEMES) {
    issues.push({ rule: 'text_too_long', message: `Text is ${length} graphemes; Bluesky allows ${MAX_GRAPHEMES}.` });
  }
  const bytes = utf8Bytes(text);
  if (bytes > MAX_BYTES) {
    issues.push({ rule: 'text_too_many_bytes', message: `Text is ${bytes} UTF-8 bytes; Bluesky allows ${MAX_BYTES}.` });
  }
  return issues;
}

export const limits: PlatformLimits = {
  platform: 'bluesky',
  displayName: 'Bluesky',
  text: { maxLength: MAX_GRAPHEMES, unit: 'graphemes', measure, check, caps: { bytes: MAX_BYTES } },
  media: {
    // One embed per post: app.bsky.embed.images (≤4) or app.bsky.embed.video (1). The 2026 gallery embed
    // (≤20) is left out until client/AppView support catches up.
    maxItems: 4,
    // docs/platforms/bluesky.md "Limits": the lexicon now allows 2 MB but the docs (and older PDSs) 1 MB; Herald
    // fits images to 1,000,000 bytes and 2000 px, what the Bluesky app itself sends.
    imageFit: { maxBytes: 1_000_000, maxWidth: 2000, maxHeight: 2000 },
    required: false,
    mixKinds: false,
    kinds: {
      // The current images lexicon says blob maxSize 2,000,000 bytes ("formerly 1 MB"); the docs still say
      // 1,000,000. We follow the lexicon the PDS validates against; a self-hosted PDS may be stricter still.
      image: { contentTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'], maxBytes: 2_000_000, maxCount: 4 },
      // The video lexicon now allows 300 MB ("formerly 100 MB"); 100 MB is a safe cap any PDS/video service takes.
      // Duration: 3 min per Bluesky announcements.
      video: { contentTypes: ['video/mp4'], maxBytes: 100 * MB, maxCount: 1, maxDurationMs: 180_000 }, // ⚠ unverified (duration)
    },
  },
  // A reply chain (record.reply root/parent); 25 is Herald's own cap, not Bluesky's.
  maxThreadParts: 25,
  // First comments (docs/platforms/bluesky.md "First comments").
  firstComment: { via: 'reply' },
};
