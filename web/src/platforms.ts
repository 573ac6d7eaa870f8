// The platforms Herald publishes to, in the order the API documents them (docs/api.md enumeration tables). Every
// schema names the same eleven, so one list serves the posts, approvals, calendar, brand and automation pickers.
import type { components } from '@herald/client';

export type PlatformId = components['schemas']['Post']['platforms'][number];

export const PLATFORMS: PlatformId[] = [
  'x',
  'linkedin',
  'instagram',
  'facebook',
  'threads',
  'bluesky',
  'mastodon',
  'tiktok',
  'youtube',
  'pinterest',
  'googlebusiness',
];
