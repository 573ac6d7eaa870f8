// The catalogue of stock platform limits, keyed by platform, and their public shape for `GET /v1/platforms`.
// Per-connection overrides (a Mastodon instance's own configuration) are built by the adapter, not held here.

import type { MediaKind, PlatformLimits, PlatformName, VideoRules } from './limits.ts';
import { limits as x } from './x/limits.ts';
import { limits as linkedin } from './linkedin/limits.ts';
import { limits as instagram } from './instagram/limits.ts';
import { limits as facebook } from './facebook/limits.ts';
import { limits as threads } from './threads/limits.ts';
import { limits as bluesky } from './bluesky/limits.ts';
import { limits as mastodon } from './mastodon/limits.ts';
import { limits as tiktok } from './tiktok/limits.ts';
import { limits as youtube } from './youtube/limits.ts';
import { limits as pinterest } from './pinterest/limits.ts';
import { limits as googlebusiness } from './googlebusiness/limits.ts';

/** Stock limits of every platform, in PLATFORM_NAMES order. */
export const PLATFORM_LIMITS: Record<PlatformName, PlatformLimits> = {
  x,
  linkedin,
  instagram,
  facebook,
  threads,
  bluesky,
  mastodon,
  tiktok,
  youtube,
  pinterest,
  googlebusiness,
};

/** One media kind as the capabilities document shows it. */
export interface MediaKindDescription {
  content_types: string[];
  max_bytes: number;
  max_count: number;
  min_duration_ms?: number;
  max_duration_ms?: number;
}

/** The limits part of a platform's entry in `GET /v1/platforms` (snake_case, plain JSON). */
export interface LimitsDescription {
  text: { max_length: number; unit: string; caps?: Record<string, number> };
  media: {
    max_items: number;
    required: boolean;
    mix_kinds: boolean;
    kinds: Partial<Record<MediaKind, MediaKindDescription>>;
    /** A video's container, codecs, picture and frame rate, where the platform limits them (docs/api.md "Video rules"). */
    video_rules?: Record<string, number | string[]>;
  };
  max_thread_parts: number;
}

// A fixed order so the document is stable whatever order an adapter declared its kinds in.
const KIND_ORDER: readonly MediaKind[] = ['image', 'gif', 'video', 'document'];

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Video rules in snake_case (`maxLongSide` → `max_long_side`), only those set. */
function describeVideoRules(rules: VideoRules): Record<string, number | string[]> {
  return Object.fromEntries(
    Object.entries(rules)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [snake(name), Array.isArray(value) ? [...(value as string[])] : (value as number)]),
  );
}

/** Limits as data only: the functions (measure/check) are dropped, optional fields appear only when set. */
export function describeLimits(l: PlatformLimits): LimitsDescription {
  const kinds: Partial<Record<MediaKind, MediaKindDescription>> = {};
  for (const kind of KIND_ORDER) {
    const rule = l.media.kinds[kind];
    if (!rule) continue;
    kinds[kind] = {
      content_types: [...rule.contentTypes],
      max_bytes: rule.maxBytes,
      max_count: rule.maxCount,
      ...(rule.minDurationMs !== undefined && { min_duration_ms: rule.minDurationMs }),
      ...(rule.maxDurationMs !== undefined && { max_duration_ms: rule.maxDurationMs }),
    };
  }
  return {
    text: {
      max_length: l.text.maxLength,
      unit: l.text.unit,
      ...(l.text.caps && { caps: { ...l.text.caps } }),
    },
    media: {
      max_items: l.media.maxItems,
      required: l.media.required,
      mix_kinds: l.media.mixKinds,
      kinds,
      ...(l.media.videoRules && { video_rules: describeVideoRules(l.media.videoRules) }),
    },
    max_thread_parts: l.maxThreadParts,
  };
}
