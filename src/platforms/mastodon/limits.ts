// Mastodon post limits: Mastodon's own length rule (URLs at a fixed weight, mention domains free) and media rules,
// with the defaults of a stock instance and a builder for an instance's advertised configuration.
// Numbers from docs/platforms/mastodon.md "Limits" (per instance, read from GET /api/v2/instance).

import type { LimitIssue, PlatformLimits } from '../limits.ts';
import { twitterText } from '../twitter-text.ts';

const MiB = 1024 * 1024; // Mastodon's limits are Rails `16.megabytes`, i.e. binary megabytes

/** What `GET /api/v2/instance` → `configuration` advertises, flattened; absent fields take stock defaults. */
export interface MastodonInstanceConfig {
  maxCharacters?: number; //            configuration.statuses.max_characters
  maxMediaAttachments?: number; //      configuration.statuses.max_media_attachments
  charactersReservedPerUrl?: number; // configuration.statuses.characters_reserved_per_url
  imageSizeLimit?: number; //           configuration.media_attachments.image_size_limit (bytes)
  videoSizeLimit?: number; //           configuration.media_attachments.video_size_limit (bytes)
}

/** Mastodon's stock `image_matrix_limit`: most pixels of an image it takes. */
const IMAGE_MATRIX_LIMIT = 33_177_600;

const DEFAULTS: Required<MastodonInstanceConfig> = {
  maxCharacters: 500,
  maxMediaAttachments: 4,
  charactersReservedPerUrl: 23,
  imageSizeLimit: 16 * MiB,
  videoSizeLimit: 99 * MiB, // "~99 MiB"
};

// Account::MENTION_RE: `@user` or `@user@domain`; only `@user` is counted, the domain is free.
const MENTION =
  /(?<![=/\p{L}\p{M}\p{N}_])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)(?:@[\p{L}\p{M}\p{N}_]+(?:[.-]+[\p{L}\p{M}\p{N}_]+)*)?/giu;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Mastodon's StatusLengthValidator: every http(s) URL is replaced by a placeholder of `reservedPerUrl` characters,
 * every mention by its `@user` part, and the result is counted in grapheme clusters (so 👍🏽 is 1).
 */
export function measureWith(text: string, reservedPerUrl: number): number {
  let countable = '';
  let from = 0;
  // Mastodon finds URLs with (the Ruby port of) twitter-text's URL grammar, protocol required; the JS library
  // applies the same grammar.
  for (const { indices } of twitterText().extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false })) {
    countable += text.slice(from, indices[0]) + 'x'.repeat(reservedPerUrl);
    from = indices[1];
  }
  countable = (countable + text.slice(from)).replace(MENTION, '@$1');
  let count = 0;
  for (const _ of graphemes.segment(countable)) count++;
  return count;
}

/** Length on a stock instance (URLs 23). Per-connection limits come from `mastodonLimitsFor`. */
export function measure(text: string): number {
  return measureWith(text, DEFAULTS.charactersReservedPerUrl);
}

/** Instances report odd values at times; anything but an integer ≥ min falls back to the stock default. */
function pick(value: number | undefined, fallback: number, min = 1): number {
  return value !== undefined && Number.isInteger(value) && value >= min ? value : fallback;
}

/** Limits for one instance, from its `/api/v2/instance` configuration (the connection-level override). */
export function mastodonLimitsFor(instanceConfig: MastodonInstanceConfig): PlatformLimits {
  const maxLength = pick(instanceConfig.maxCharacters, DEFAULTS.maxCharacters);
  const perUrl = pick(instanceConfig.charactersReservedPerUrl, DEFAULTS.charactersReservedPerUrl, 0);
  const maxItems = pick(instanceConfig.maxMediaAttachments, DEFAULTS.maxMediaAttachments);
  const measureHere = (text: string): number => measureWith(text, perUrl);
  // Empty text is not flagged: a media-only status is fine, and the caller knows whether media is attached.
  const check = (text: string): LimitIssue[] => {
    const length = measureHere(text);
    return length > maxLength
      ? [{ rule: 'text_too_long', message: `Text is ${length} characters; Mastodon allows ${maxLength}.` }]
      : [];
  };
  return {
    platform: 'mastodon',
    displayName: 'Mastodon',
    text: { maxLength, unit: 'characters', measure: measureHere, check },
    media: {
      maxItems,
      // The instance's image size limit, and Mastodon's stock image_matrix_limit (33,177,600 pixels).
      imageFit: {
        maxBytes: pick(instanceConfig.imageSizeLimit, DEFAULTS.imageSizeLimit),
        maxPixels: IMAGE_MATRIX_LIMIT,
      },
      required: false,
      // Mastodon refuses a video together with any other attachment ("images_and_video"), hence one video and
      // no mixing — from Mastodon's PostStatusService, not its docs (docs/platforms/mastodon.md "Limits").
      mixKinds: false,
      kinds: {
        image: {
          contentTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
          maxBytes: pick(instanceConfig.imageSizeLimit, DEFAULTS.imageSizeLimit),
          maxCount: maxItems,
        },
        video: {
          contentTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
          maxBytes: pick(instanceConfig.videoSizeLimit, DEFAULTS.videoSizeLimit),
          maxCount: 1,
        },
      },
    },
    // A reply chain (in_reply_to_id); 25 is Herald's own cap, not the instance's.
    maxThreadParts: 25,
    // First comments (docs/platforms/mastodon.md "First comments").
    firstComment: { via: 'reply' },
  };
}

/** A stock instance; a connection's own limits replace these once its instance configuration is known. */
export const limits: PlatformLimits = mastodonLimitsFor({});
