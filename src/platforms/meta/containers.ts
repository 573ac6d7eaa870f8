// What the container-based Meta adapters (Instagram, Threads) share on the publishing side: the container made
// for each part key, remembered so that a re-send after an unknown outcome publishes (or looks up) that same
// container instead of making a second post; how published text is compared in look-ups; and the pulled media
// URL of a media item; the media preparation, the remembered-container step of publishing and the reconciliation
// check both adapters run around it.
import { PlatformError, type MediaSource, type PreparedMedia, type PublishedPart } from '../types.ts';
import { waitForContainer, type ContainerPollOptions, type ContainerState } from './graph.ts';

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
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `${platform} fetches media from a public URL, and media ${source.id} has none (the media store cannot sign one).`,
    );
  }
  const url = await source.signedUrl();
  if (!/^https?:\/\//.test(url))
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `${platform} needs an absolute http(s) URL for media ${source.id}; got "${url.slice(0, 100)}".`,
    );
  return url;
}

/** How far before a part's first send a look-up searches (clocks differ). */
export const LOOKUP_SLACK_MS = 2 * 60_000;

/** Graph's `+0000` timestamps as ISO strings (the epoch when missing). */
export function graphTime(timestamp: string | undefined): string {
  return timestamp ? new Date(Date.parse(timestamp.replace(/\+0000$/, 'Z'))).toISOString() : new Date(0).toISOString();
}

/** Images and videos by their pulled URLs; anything else is refused. */
export async function prepareUrlMedia(platform: string, sources: readonly MediaSource[]): Promise<PreparedMedia[]> {
  const out: PreparedMedia[] = [];
  for (const source of sources) {
    if (source.kind !== 'image' && source.kind !== 'video')
      throw new PlatformError(
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
        `${platform} takes images and videos, not ${source.kind} (media ${source.id}).`,
      );
    out.push({
      platformRef: await pullUrl(platform, source),
      kind: source.kind,
      altText: source.altText,
      width: source.width,
      height: source.height,
    });
  }
  return out;
}

/** A part's container flow: where its container is remembered, how it is read, made and looked up once published. */
export interface PartContainers {
  platform: string;
  remembered: RememberedContainers;
  key: string;
  read(containerId: string): Promise<ContainerState>;
  create(): Promise<string>;
  lookUp(): Promise<PublishedPart | null>;
  pollOptions: ContainerPollOptions;
}

/**
 * The part's FINISHED container to publish: the remembered one while it is usable (a PUBLISHED one is looked up
 * first, and what is found returned instead), else a new one; the remembered container is forgotten when it fails.
 */
export async function readyContainer(flow: PartContainers): Promise<{ found: PublishedPart } | { id: string }> {
  let containerId = flow.remembered.get(flow.key);
  if (containerId) {
    const state = await flow.read(containerId).catch(() => undefined);
    if (state?.status === 'PUBLISHED') {
      const found = await flow.lookUp();
      if (found) return { found };
    }
    // An unusable or unreadable container is replaced by a new one.
    if (!state || (state.status !== 'FINISHED' && state.status !== 'IN_PROGRESS')) containerId = undefined;
  }
  if (!containerId) {
    containerId = await flow.create();
    flow.remembered.set(flow.key, containerId);
  }
  const id = containerId;
  try {
    await waitForContainer(flow.platform, id, () => flow.read(id), flow.pollOptions);
  } catch (error) {
    flow.remembered.forget(flow.key);
    throw error;
  }
  return { id };
}

/** Reconciliation: a remembered container not PUBLISHED means media_publish did not take effect; else look up. */
export async function findPublishedPart(
  flow: Pick<PartContainers, 'remembered' | 'key' | 'read' | 'lookUp'>,
): Promise<PublishedPart | null> {
  const containerId = flow.remembered.get(flow.key);
  if (containerId) {
    const state = await flow.read(containerId).catch(() => undefined);
    // The container is the part's own record: anything but PUBLISHED means media_publish did not take effect.
    if (state && state.status !== 'PUBLISHED') return null;
  }
  return flow.lookUp();
}
