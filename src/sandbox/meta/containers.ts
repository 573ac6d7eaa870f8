// Media containers of the container-publishing Meta simulators (Instagram, Threads), kept in the simulator's store:
// the IN_PROGRESS → FINISHED | ERROR → PUBLISHED | EXPIRED life computed from the clock at each read, with
// configurable delays; the media fetched for each one (kept as blobs, media-files.ts); the atomic claim that makes
// a container publish once even when two nodes are asked at the same time; and the Graph-style ids of containers,
// media and comments, from a counter that never hands out a value twice.
import type { SimulatorKit } from '../framework/simulator.ts';
import { fetchMedia } from './fetch.ts';
import { keepMedia, type MediaFile } from './media-files.ts';

export type ContainerStatusName = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';

/** The store kind of containers (owner: the account that made them). */
const CONTAINER = 'container';

export interface SimContainer<T> {
  id: string;
  owner: string;
  createdAt: number;
  /** When processing ends (FINISHED or ERROR). */
  readyAt: number;
  /** Set when processing is to end in ERROR: Meta's detail text (with its subcode). */
  failure: string | null;
  publishedAs: string | null;
  /**
   * When it was published. With `publishedAs` and `data` it is all that the published object is made of, so a
   * node that stopped between the claim and writing that object leaves what another can finish (the platform's
   * `ensure…` of a PUBLISHED container).
   */
  publishedAt: number | null;
  /** The media fetched for it, in order (a carousel: its children's). */
  media: MediaFile[];
  data: T;
}

export interface ContainerTimings {
  /** Processing time of an image container (ms). */
  imageMs: number;
  /** Processing time of a video container (ms). */
  videoMs: number;
  /** Processing time of a text-only or carousel container (ms). */
  otherMs: number;
  /** A container not published by then is EXPIRED (Meta: 24 hours). */
  expiryMs: number;
}

/**
 * Container timings from the simulator's settings (`containerImageMs`, `containerVideoMs`, `containerOtherMs`,
 * `containerExpiryMs`), so tests can shorten or stretch them; the defaults are realistic orders of magnitude
 * scaled down (⚠ Meta publishes no processing times; "wait ~30 s on average" for Threads video).
 */
export function containerTimings(
  settings: Record<string, unknown>,
  defaults: Partial<ContainerTimings> = {},
): ContainerTimings {
  const pick = (name: string, fallback: number) =>
    typeof settings[name] === 'number' && (settings[name] as number) >= 0 ? (settings[name] as number) : fallback;
  return {
    imageMs: pick('containerImageMs', defaults.imageMs ?? 400),
    videoMs: pick('containerVideoMs', defaults.videoMs ?? 1500),
    otherMs: pick('containerOtherMs', defaults.otherMs ?? 100),
    expiryMs: pick('containerExpiryMs', defaults.expiryMs ?? 24 * 3600_000),
  };
}

/** A Graph-style numeric id (17 digits, growing) for a container, a media object or a comment. */
export async function nextGraphId(kit: SimulatorKit): Promise<string> {
  // Where a fresh store starts: apart from one rig to the next (a test that restarts an in-memory sandbox gets
  // new ids); a PostgreSQL store uses it once and counts on from there forever.
  const first = 17841400000000000n + BigInt(Math.floor(kit.now() / 1000) % 1_000_000) * 1000n;
  return (await kit.store.next('graph-id', first)).toString();
}

/** The container's status now. */
export function containerStatus(kit: SimulatorKit, c: SimContainer<unknown>): ContainerStatusName {
  if (c.publishedAs) return 'PUBLISHED';
  const t = kit.now();
  if (t >= c.createdAt + containerTimings(kit.settings).expiryMs) return 'EXPIRED';
  if (t < c.readyAt) return 'IN_PROGRESS';
  return c.failure ? 'ERROR' : 'FINISHED';
}

export interface NewContainer<T> {
  owner: string;
  data: T;
  processingMs: number;
  failure?: string | null;
  media?: MediaFile[];
}

/** Makes a container and keeps it. */
export async function createContainer<T>(kit: SimulatorKit, spec: NewContainer<T>): Promise<SimContainer<T>> {
  const t = kit.now();
  const container: SimContainer<T> = {
    id: await nextGraphId(kit),
    owner: spec.owner,
    createdAt: t,
    readyAt: t + spec.processingMs,
    failure: spec.failure ?? null,
    publishedAs: null,
    publishedAt: null,
    media: spec.media ?? [],
    data: spec.data,
  };
  await kit.store.put(CONTAINER, container.id, container, container.owner);
  return container;
}

export function readContainer<T>(kit: SimulatorKit, id: string): Promise<SimContainer<T> | undefined> {
  return kit.store.get<SimContainer<T>>(CONTAINER, id);
}

/**
 * Marks the container published as `mediaId` if `publishable` says it may be, in one atomic step: of two calls
 * publishing one container at once (two nodes), one wins. Resolves to the container as it is afterwards: its
 * `publishedAs` is `mediaId` when this call won; undefined when there is no such container.
 */
export function claimContainer<T>(
  kit: SimulatorKit,
  id: string,
  mediaId: string,
  publishable: (c: SimContainer<T>) => boolean,
): Promise<SimContainer<T> | undefined> {
  return kit.store.update<SimContainer<T>>(CONTAINER, id, (c) =>
    publishable(c) ? { ...c, publishedAs: mediaId, publishedAt: kit.now() } : undefined,
  );
}

/**
 * The status a publish answers for a container it tried to claim: FINISHED when this call claimed it; otherwise
 * what kept it from the claim. A container that finished processing just after the claim was declined answers as
 * still in progress (the caller tries again), never as publishable without a claim.
 */
export function statusAfterClaim(kit: SimulatorKit, c: SimContainer<unknown>, mediaId: string): ContainerStatusName {
  if (c.publishedAs === mediaId) return 'FINISHED';
  const status = containerStatus(kit, c);
  return status === 'FINISHED' ? 'IN_PROGRESS' : status;
}

/** Gives a claimed container back (the publish was refused after the claim, e.g. past the quota). */
export async function releaseContainer(kit: SimulatorKit, id: string, mediaId: string): Promise<void> {
  await kit.store.update<SimContainer<unknown>>(CONTAINER, id, (c) =>
    c.publishedAs === mediaId ? { ...c, publishedAs: null, publishedAt: null } : undefined,
  );
}

export interface VideoFailures {
  /** The failure of a URL that could not be fetched. */
  download(reason: string): string;
  format: string;
  tooLarge: string;
  /** The failure the `media_failed` fault gives. */
  failed: string;
}

/** How long a video's fetch may take before its container is given up (the fetch's own deadline is 10 s). */
const FETCH_GRACE_MS = 30_000;

/**
 * A video container whose media is fetched and processed after the answer: a video that cannot be fetched, is
 * not MP4/QuickTime, is over `maxBytes` or meets the `media_failed` fault shows as ERROR on the container once
 * processing (`processingMs` from now, or when the fetch ends) is over. Until the fetch ends the container is
 * kept as failing at a deadline, so one whose node stopped mid-fetch ends in ERROR instead of staying in
 * progress until it expires.
 */
export async function createVideoContainer<T>(
  kit: SimulatorKit,
  spec: { owner: string; data: T; url: string; alt?: string | null },
  options: { processingMs: number; maxBytes: number; faulted: boolean; failures: VideoFailures },
): Promise<SimContainer<T>> {
  const f = options.failures;
  const container = await createContainer(kit, {
    owner: spec.owner,
    data: spec.data,
    processingMs: options.processingMs + FETCH_GRACE_MS,
    failure: f.download('the media could not be read (interrupted)'),
  });
  const started = kit.now();
  void processVideo(kit, container.id, spec, options, started).catch(() => {
    // The store could not be written (the sandbox closing): the deadline above turns the container to ERROR.
  });
  return container;
}

async function processVideo(
  kit: SimulatorKit,
  id: string,
  spec: { url: string; alt?: string | null },
  options: { processingMs: number; maxBytes: number; faulted: boolean; failures: VideoFailures },
  started: number,
): Promise<void> {
  const f = options.failures;
  const got = await fetchMedia(spec.url, kit.settings, { keepBytes: VIDEO_KEEP_BYTES });
  let failure: string | null = null;
  if (!got.ok) failure = f.download(got.reason);
  else if (got.contentType !== 'video/mp4' && got.contentType !== 'video/quicktime') failure = f.format;
  else if (got.size > options.maxBytes) failure = f.tooLarge;
  else if (options.faulted) failure = f.failed;
  const media: MediaFile[] =
    got.ok && !failure ? [{ key: await keepMedia(kit.store, got.bytes), kind: 'video', alt: spec.alt ?? null }] : [];
  await kit.store.update<SimContainer<unknown>>(CONTAINER, id, (c) => ({
    ...c,
    failure,
    media,
    readyAt: Math.max(kit.now(), started + options.processingMs),
  }));
}

/**
 * The bytes of a video kept for its page, at most: larger videos are checked (by their declared size) and
 * published, but their page shows no playable copy. Images are kept whole (8 MB at most on both platforms).
 */
export const VIDEO_KEEP_BYTES = 32 * 1024 * 1024;
