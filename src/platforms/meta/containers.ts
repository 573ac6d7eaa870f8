// What the container-based Meta adapters (Instagram, Threads) share on the publishing side: the container made
// for each part key, remembered so that a re-send after an unknown outcome publishes (or looks up) that same
// container instead of making a second post; how published text is compared in look-ups; and the pulled media
// URL of a media item.
import { PlatformError, type MediaSource } from '../types.ts';

/** The container made for each part key in this process, oldest dropped first past `max`. */
export class RememberedContainers {
  private readonly byKey = new Map<string, string>();
  private readonly max: number;
  constructor(max = 10_000) {
    this.max = max;
  }
  get(key: string): string | undefined {
    return this.byKey.get(key);
  }
  set(key: string, containerId: string): void {
    this.byKey.delete(key);
    this.byKey.set(key, containerId);
    while (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value!);
  }
  forget(key: string): void {
    this.byKey.delete(key);
  }
}

/** Text as the platforms store it, for comparing a part with what a look-up returns. */
export function comparable(text: string | null | undefined): string {
  return (text ?? '').normalize('NFC').replace(/\r\n/g, '\n').trim();
}

/** The short-lived public URL the platform fetches a media item from. */
export async function pullUrl(platform: string, source: MediaSource): Promise<string> {
  if (!source.signedUrl) {
    throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', `${platform} fetches media from a public URL, and media ${source.id} has none (the media store cannot sign one).`);
  }
  const url = await source.signedUrl();
  if (!/^https?:\/\//.test(url)) throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', `${platform} needs an absolute http(s) URL for media ${source.id}; got "${url.slice(0, 100)}".`);
  return url;
}

/** How far before a part's first send a look-up searches (clocks differ). */
export const LOOKUP_SLACK_MS = 2 * 60_000;
