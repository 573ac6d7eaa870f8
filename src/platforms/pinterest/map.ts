// Pure translation between Herald's parts and Pinterest's shapes: the Pin's create body (board, title, description,
// link, alt text, media source), its web URL, whether a listed Pin is a part's (look-ups), and Pin analytics in
// Herald's metric names.
import { comparable } from '../meta/containers.ts';
import { mayBeThisPart, sameMedia } from '../lookup.ts';
import { PlatformError, type OutgoingPart, type PostMetrics } from '../types.ts';
import type { Pin, PinAnalytics } from './client.ts';

/** The options Herald reads from `platform_options.pinterest` (declared in src/features/posts/posts.platform-options.ts). */
export interface PinOptions {
  board_id?: string;
  /** A board per connection id (a post to several Pinterest accounts); a connection not named uses `board_id`. */
  boards?: Record<string, string>;
  title?: string;
  link?: string;
  alt_text?: string;
  cover_time_seconds?: number;
}

/** Text a Pin field holds, as the look-up compares it (absent and empty are the same). */
const same = (a: string | null | undefined, b: string | null | undefined) => comparable(a) === comparable(b);

/**
 * A link as the look-up compares it: parsed and serialised (host case, default port, escapes), without a trailing
 * slash. ⚠ unverified: how Pinterest stores a Pin's link; a link it rewrote beyond this would make the look-up miss.
 */
function normalLink(link: string | null | undefined): string {
  const text = comparable(link);
  try {
    return new URL(text).href.replace(/\/$/, '');
  } catch {
    return text;
  }
}

/** `POST /v5/pins` for a part whose media were prepared (image URLs or one processed video id). */
export function pinBody(part: OutgoingPart, boardId: string): Record<string, unknown> {
  const o = part.options as PinOptions;
  const media = part.media;
  const first = media[0];
  if (!first)
    throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'A Pin needs an image or a video.');
  const mediaSource =
    first.kind === 'video'
      ? {
          source_type: 'video_id',
          media_id: first.platformRef,
          // ⚠ unverified: that Pinterest requires a cover; the key frame at `cover_time_seconds` (default the first).
          cover_image_key_frame_time: o.cover_time_seconds ?? 0,
        }
      : media.length === 1
        ? { source_type: 'image_url', url: first.platformRef }
        : { source_type: 'multiple_image_urls', items: media.map((m) => ({ url: m.platformRef })) };
  const altText = o.alt_text ?? first.altText ?? undefined;
  return {
    board_id: boardId,
    ...(part.text.trim() !== '' && { description: part.text }),
    ...(o.title !== undefined && { title: o.title }),
    ...(o.link !== undefined && { link: o.link }),
    ...(altText && { alt_text: altText }),
    media_source: mediaSource,
  };
}

/** https://www.pinterest.com/pin/{id}/, or the simulator's page of the Pin for a sandbox connection. */
export function pinUrl(webBase: string, id: string): string {
  return `${webBase.replace(/\/+$/, '')}/pin/${encodeURIComponent(id)}/`;
}

/** A Pin's `created_at` (UTC, no zone in Pinterest's answers) as ms since the epoch. */
export function pinTime(createdAt: string | undefined): number | undefined {
  if (!createdAt) return undefined;
  return Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(createdAt) ? createdAt : `${createdAt}Z`);
}

/** How many media a listed Pin carries, and whether it is a video Pin. */
function mediaOf(pin: Pin): { count: number; video: boolean } {
  const type = pin.media?.media_type;
  if (type === 'multiple_images') return { count: pin.media?.items?.length ?? 0, video: false };
  return { count: type === 'image' || type === 'video' ? 1 : 0, video: type === 'video' };
}

/**
 * Whether a Pin listed on the part's board is the part (lookup.ts): made since the part's first send, held by no other
 * part, with its description, title and link, and as many media of its kind.
 */
export function isThisPart(part: OutgoingPart, pin: Pin): boolean {
  if (!mayBeThisPart(part, { id: pin.id, createdAt: pinTime(pin.created_at) })) return false;
  const o = part.options as PinOptions;
  if (!same(pin.description, part.text) || !same(pin.title, o.title)) return false;
  if (normalLink(pin.link) !== normalLink(o.link)) return false;
  const listed = mediaOf(pin);
  const sentVideo = part.media[0]?.kind === 'video';
  if (part.media.length > 0 && listed.video !== sentVideo) return false;
  return sameMedia(part, { count: listed.count });
}

/** YYYY-MM-DD of a time, in UTC (the dates Pin analytics take). */
export const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The metric types Herald asks for; video views only of a video Pin (other Pins refuse video metric types). */
export function metricTypes(video: boolean): string {
  const standard = ['IMPRESSION', 'SAVE', 'OUTBOUND_CLICK', 'TOTAL_COMMENTS', 'TOTAL_REACTIONS'];
  return (video ? [...standard, 'VIDEO_MRC_VIEW'] : standard).join(',');
}

/**
 * Pin analytics in Herald's names (docs/platforms/pinterest.md "Metrics and inbox"): IMPRESSION → impressions, SAVE →
 * saves, OUTBOUND_CLICK (clicks to the Pin's link) → clicks, TOTAL_REACTIONS → likes, TOTAL_COMMENTS → comments,
 * VIDEO_MRC_VIEW → video_views. A metric Pinterest did not answer is left out.
 */
export function metricsFrom(answer: PinAnalytics): PostMetrics {
  // ⚠ unverified: that an answer without a split is keyed `all` (the OpenAPI leaves the key open); else its only entry.
  const all = answer.all ?? Object.values(answer)[0];
  const summary = all?.summary_metrics ?? {};
  const lifetime = all?.lifetime_metrics ?? {};
  const out: PostMetrics = {};
  const put = (name: keyof PostMetrics, value: unknown) => {
    if (typeof value === 'number' && Number.isFinite(value)) out[name] = Math.round(value);
  };
  put('impressions', summary.IMPRESSION);
  put('saves', summary.SAVE);
  put('clicks', summary.OUTBOUND_CLICK);
  put('video_views', summary.VIDEO_MRC_VIEW);
  put('likes', lifetime.TOTAL_REACTIONS ?? summary.TOTAL_REACTIONS);
  put('comments', lifetime.TOTAL_COMMENTS ?? summary.TOTAL_COMMENTS);
  return out;
}
