// X (Twitter) post limits: weighted character counting and media rules.
// Numbers from docs/platforms/x.md "Limits" and "Calls" (media per post).
// Counting is delegated to X's own library (twitter-text, v3 config) so Herald agrees with X to the character.

import type { LimitIssue, PlatformLimits } from '../limits.ts';
import { twitterText } from '../twitter-text.ts';

const MAX_WEIGHTED = 280;
const MB = 1_000_000; // "MB" in X's docs read as 10^6 bytes, the smaller (safer) reading

/**
 * X's weighted length: code points in the Latin/general-punctuation ranges weigh 1, everything else
 * (CJK, emoji, …) 2; any URL (even a bare domain like `example.com`) counts 23; NFC applied first.
 */
export function measure(text: string): number {
  // The v3 config pinned explicitly, so an upgrade that changes the library's default cannot change our counts
  // silently: 280 weighted characters, every URL 23, emoji sequences weigh 2, text NFC-normalised first.
  const library = twitterText();
  return library.parseTweet(text, library.configs.version3).weightedLength;
}

/** Every text issue; empty text is not flagged (whether text is required depends on media — the caller decides). */
function check(text: string): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const length = measure(text);
  if (length > MAX_WEIGHTED) {
    issues.push({ rule: 'text_too_long', message: `Text is ${length} weighted characters; X allows ${MAX_WEIGHTED}.` });
  }
  // twitter-text rejects U+FFFE, U+FEFF and U+FFFF; X would refuse the post.
  if (twitterText().hasInvalidCharacters(text)) {
    issues.push({
      rule: 'invalid_characters',
      message: 'Text contains characters X does not accept (U+FFFE, U+FEFF or U+FFFF).',
    });
  }
  return issues;
}

export const limits: PlatformLimits = {
  platform: 'x',
  displayName: 'X',
  text: { maxLength: MAX_WEIGHTED, unit: 'weighted characters', measure, check },
  media: {
    // "max 4 photos or 1 GIF or 1 video" (docs/platforms/x.md "Limits"; openapi CreatePostsMedia.maxItems=4).
    maxItems: 4,
    // docs/platforms/x.md "Video rules": H.264 with AAC sound, at most 60 fps, 32×32 to 1280×1024, aspect 1:3 to 3:1.
    videoRules: {
      containers: ['mp4', 'mov'],
      videoCodecs: ['h264'],
      audioCodecs: ['aac'],
      maxLongSide: 1280,
      maxShortSide: 1024,
      minSide: 32,
      maxFrameRate: 60,
      minAspect: 1 / 3,
      maxAspect: 3,
    },
    // docs/platforms/x.md "Limits": 5 MB; X scales photos down to 4096 px on the long side itself.
    imageFit: { maxBytes: 5 * MB, maxWidth: 4096, maxHeight: 4096 },
    required: false,
    mixKinds: false,
    kinds: {
      image: { contentTypes: ['image/jpeg', 'image/png', 'image/webp'], maxBytes: 5 * MB, maxCount: 4 },
      gif: { contentTypes: ['image/gif'], maxBytes: 15 * MB, maxCount: 1 },
      // Safe figures: docs/platforms/x.md "Limits" gives 8 GB / 0.5 s–20 min for default users (best-practices 2026)
      // but older pages say 512 MB / 140 s, and post-create limits vary per account (403 "not allowed to post a video
      // longer than N minutes"). Herald accepts what every account can post; raise these once the 2026 figures are
      // confirmed.
      video: {
        contentTypes: ['video/mp4', 'video/quicktime'],
        maxBytes: 512 * MB,
        maxCount: 1,
        minDurationMs: 500,
        maxDurationMs: 140_000,
      },
    },
  },
  // X has no documented cap on a reply chain; 25 is Herald's own reasonable cap on one thread.
  maxThreadParts: 25,
  // Duplicate text (docs/platforms/x.md; docs/queues.md "Recycling").
  duplicateText: 'X refuses a post whose text repeats one of the account’s recent posts (403 duplicate content).',
  // First comments (docs/platforms/x.md "First comments").
  firstComment: { via: 'reply' },
};
