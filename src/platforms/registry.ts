// The explicit list of platform adapters. A platform without an adapter here can be validated against (its
// limits are in catalogue.ts) but not published to. Adding a platform: its folder, one line here, one line in
// src/sandbox/server.ts (see src/platforms/README.md).
import type { PlatformName } from './limits.ts';
import { createBlueskyAdapter } from './bluesky/index.ts';
import { createMastodonAdapter } from './mastodon/index.ts';
import { createLinkedinAdapter } from './linkedin/index.ts';
import type { AdapterConfig, AdapterFactory, PlatformAdapter } from './types.ts';
import { createXAdapter } from './x/index.ts';
import { createInstagramAdapter } from './instagram/index.ts';
import { createThreadsAdapter } from './threads/index.ts';
import { createFacebookAdapter } from './facebook/index.ts';
import { createTiktokAdapter } from './tiktok/index.ts';
import { createYoutubeAdapter } from './youtube/index.ts';
import { createPinterestAdapter } from './pinterest/index.ts';
import { createGooglebusinessAdapter } from './googlebusiness/index.ts';

export const ADAPTERS: Partial<Record<PlatformName, AdapterFactory>> = {
  x: createXAdapter,
  bluesky: createBlueskyAdapter,
  mastodon: createMastodonAdapter,
  linkedin: createLinkedinAdapter,
  instagram: createInstagramAdapter,
  threads: createThreadsAdapter,
  facebook: createFacebookAdapter,
  tiktok: createTiktokAdapter,
  youtube: createYoutubeAdapter,
  pinterest: createPinterestAdapter,
  googlebusiness: createGooglebusinessAdapter,
};

export interface PlatformRegistry {
  get(platform: PlatformName): PlatformAdapter | undefined;
  /** Platforms Herald can publish to, in PLATFORM_NAMES order. */
  available(): PlatformName[];
}

export function createPlatformRegistry(
  configs: Partial<Record<PlatformName, Partial<AdapterConfig>>> = {},
): PlatformRegistry {
  const adapters = new Map<PlatformName, PlatformAdapter>();
  for (const [name, factory] of Object.entries(ADAPTERS) as Array<[PlatformName, AdapterFactory]>) {
    const c = configs[name] ?? {};
    adapters.set(
      name,
      factory({ apiUrl: c.apiUrl, clientId: c.clientId, clientSecret: c.clientSecret, apiVersion: c.apiVersion }),
    );
  }
  return {
    get: (platform) => adapters.get(platform),
    available: () => [...adapters.keys()],
  };
}
