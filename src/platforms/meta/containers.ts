// What the container-based Meta adapters (Instagram, Threads) share on the publishing side: the container made
// for a part, recorded with the part (`remember`, on its row) before it is published, so that a re-send after an
// unknown outcome or a restart publishes (or looks up) that same container instead of making a second post; how
// published text is compared in look-ups; and the pulled media URL of a media item; the media preparation, the
// recorded-container step of publishing and the reconciliation check both adapters run around it.
import {
  isPlatformError,
  PlatformError,
  type MediaSource,
  type OutgoingPart,
  type PreparedMedia,
  type PublishedPart,
} from '../types.ts';
import { waitForContainer, type ContainerPollOptions, type ContainerState } from './graph.ts';

/** The name of a part's container among its pending references. */
export const CONTAINER_REF = 'container';

/** Text as the platforms store it, for comparing a part with what a look-up returns. */
export function comparable(text: string | null | undefined): string {
  return (text ?? '').normalize('NFC').replace(/\r\n/g, '\n').trim();
}

/**
 * Whether a listed node's `media_type` fits the part's media (look-ups): none (TEXT_POST), one (IMAGE or VIDEO, of
 * the kind sent when this attempt sent it), or a carousel (Graph lists its children apart). A node without the field
 * is not ruled out by it; a type Herald never publishes is.
 */
export function mediaTypeFits(
  part: Pick<OutgoingPart, 'media' | 'mediaCount'>,
  mediaType: string | undefined,
): boolean {
  const count = part.media.length > 0 ? part.media.length : (part.mediaCount ?? 0);
  const kind = part.media[0]?.kind;
  switch (mediaType) {
    case undefined:
      return true;
    case 'TEXT_POST':
      return count === 0;
    case 'IMAGE':
      return count === 1 && (kind === undefined || kind === 'image');
    case 'VIDEO':
      return count === 1 && (kind === undefined || kind === 'video');
    case 'CAROUSEL_ALBUM':
      return count >= 2;
    default:
      return false;
  }
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

/** A part's container flow: the part (its recorded container), how containers are read, made and looked up. */
export interface PartContainers {
  platform: string;
  part: Pick<OutgoingPart, 'pending' | 'remember'>;
  read(containerId: string): Promise<ContainerState>;
  create(): Promise<string>;
  lookUp(): Promise<PublishedPart | null>;
  pollOptions: ContainerPollOptions;
}

/**
 * The part's FINISHED container to publish: the recorded one while it is usable, else a new one, recorded before
 * anything publishes it. A recorded container already PUBLISHED is the part's post: it is looked up, and never
 * replaced by a second container (not found yet, the outcome is unknown and a later attempt looks again).
 */
export async function readyContainer(flow: PartContainers): Promise<{ found: PublishedPart } | { id: string }> {
  let containerId = flow.part.pending[CONTAINER_REF];
  if (containerId) {
    const state = await readRecorded(flow, containerId);
    if (state?.status === 'PUBLISHED') {
      const found = await flow.lookUp();
      if (found) return { found };
      throw new PlatformError(
        'unknown_outcome',
        'PLATFORM_UNKNOWN_OUTCOME',
        `${flow.platform} container ${containerId} of this part is published, but its post was not found yet; Herald looks again rather than publish twice.`,
      );
    }
    // A failed, expired or vanished container is replaced by a new one.
    if (!state || (state.status !== 'FINISHED' && state.status !== 'IN_PROGRESS')) containerId = undefined;
  }
  if (!containerId) {
    containerId = await flow.create();
    // Recorded before the wait and the publish call: a restart from here on finds this container again.
    await flow.part.remember({ ...flow.part.pending, [CONTAINER_REF]: containerId });
  }
  const id = containerId;
  await waitForContainer(flow.platform, id, () => flow.read(id), flow.pollOptions);
  return { id };
}

/**
 * A recorded container's state; undefined when the platform refuses to show it (gone). A failure that may pass
 * (network, 5xx, rate limit, an expired token the engine refreshes) is thrown: the container may be published, so
 * it must not be replaced on a guess.
 */
async function readRecorded(
  flow: Pick<PartContainers, 'read'>,
  containerId: string,
): Promise<ContainerState | undefined> {
  try {
    return await flow.read(containerId);
  } catch (error) {
    if (isPlatformError(error) && ['transient', 'unknown_outcome', 'rate_limited', 'auth_expired'].includes(error.kind))
      throw error;
    return undefined;
  }
}

/** Reconciliation: a recorded container not PUBLISHED means media_publish did not take effect; else look up. */
export async function findPublishedPart(
  flow: Pick<PartContainers, 'part' | 'read' | 'lookUp'>,
): Promise<PublishedPart | null> {
  const containerId = flow.part.pending[CONTAINER_REF];
  if (containerId) {
    const state = await flow.read(containerId).catch(() => undefined);
    // The container is the part's own record: anything but PUBLISHED means media_publish did not take effect.
    if (state && state.status !== 'PUBLISHED') return null;
  }
  return flow.lookUp();
}
