// Pure translation between Herald and TikTok: the post options against the creator's info (privacy level,
// interactions, video length), the init bodies, the chunk plan of a FILE_UPLOAD, a failed publish's reason as a
// PlatformError, and post URLs.
import { PlatformError, type PartOptions, type PlatformSession } from '../types.ts';
import type { CreatorInfo, PublishStatus } from './client.ts';
import { FAIL_REASONS } from './errors.ts';

/** TikTok's privacy levels, most private first: the default is the first the creator allows. */
export const PRIVACY_LEVELS = [
  'SELF_ONLY',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'PUBLIC_TO_EVERYONE',
] as const;
export const VIDEO_SOURCES = ['file_upload', 'pull_from_url'] as const;

/** `platform_options.tiktok` as the adapter reads it (validated by schema at creation). */
export interface TiktokOptions {
  privacy_level?: string;
  disable_comment?: boolean;
  disable_duet?: boolean;
  disable_stitch?: boolean;
  video_cover_timestamp_ms?: number;
  video_source?: (typeof VIDEO_SOURCES)[number];
  title?: string;
  photo_cover_index?: number;
  auto_add_music?: boolean;
  brand_content_toggle?: boolean;
  brand_organic_toggle?: boolean;
  is_aigc?: boolean;
}

const refuse = (message: string) => new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', message);

/** The privacy level to post with: the option when the creator allows it, else the most private they allow. */
export function choosePrivacy(creator: CreatorInfo, options: TiktokOptions): string {
  const allowed = creator.privacy_level_options ?? [];
  if (options.privacy_level !== undefined) {
    if (!allowed.includes(options.privacy_level))
      throw refuse(
        `TikTok privacy_level ${options.privacy_level} is not one this creator may use; they may use ${allowed.join(', ') || 'none'}.`,
      );
    return options.privacy_level;
  }
  const level = PRIVACY_LEVELS.find((l) => allowed.includes(l));
  if (!level) throw refuse('TikTok lists no privacy level this creator may post with.');
  return level;
}

/** The interaction switches: what the options ask, where the creator's settings allow it; disabled ones stay off. */
export function interactions(creator: CreatorInfo, options: TiktokOptions, video: boolean) {
  const pick = (name: 'comment' | 'duet' | 'stitch', creatorDisabled: boolean) => {
    const asked = options[`disable_${name}`];
    if (creatorDisabled && asked === false)
      throw refuse(
        `The TikTok creator has turned ${name}s off in their settings; disable_${name}: false cannot be honoured.`,
      );
    return creatorDisabled || asked === true;
  };
  return {
    disable_comment: pick('comment', creator.comment_disabled),
    ...(video && {
      disable_duet: pick('duet', creator.duet_disabled),
      disable_stitch: pick('stitch', creator.stitch_disabled),
    }),
  };
}

/** The brand and AI-content flags of a post, when set. */
function disclosure(options: TiktokOptions) {
  return {
    ...(options.brand_content_toggle !== undefined && { brand_content_toggle: options.brand_content_toggle }),
    ...(options.brand_organic_toggle !== undefined && { brand_organic_toggle: options.brand_organic_toggle }),
  };
}

/** A video's `post_info`: the caption is the part's text. */
export function videoPostInfo(text: string, creator: CreatorInfo, options: TiktokOptions, durationMs: number | null) {
  const max = creator.max_video_post_duration_sec;
  if (durationMs !== null && max > 0 && durationMs > max * 1000)
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `The video is ${Math.round(durationMs / 1000)} s; this TikTok creator may post videos of at most ${max} s.`,
    );
  if (options.title !== undefined || options.photo_cover_index !== undefined || options.auto_add_music !== undefined)
    throw refuse('title, photo_cover_index and auto_add_music apply to TikTok photo posts, and this post is a video.');
  return {
    title: text,
    privacy_level: choosePrivacy(creator, options),
    ...interactions(creator, options, true),
    ...(options.video_cover_timestamp_ms !== undefined && {
      video_cover_timestamp_ms: options.video_cover_timestamp_ms,
    }),
    ...disclosure(options),
    ...(options.is_aigc !== undefined && { is_aigc: options.is_aigc }),
  };
}

/** A photo post's `content/init` body: the part's text is the caption (`description`), the title an option. */
export function photoBody(text: string, creator: CreatorInfo, options: TiktokOptions, urls: string[]) {
  if (options.video_cover_timestamp_ms !== undefined || options.video_source !== undefined)
    throw refuse('video_cover_timestamp_ms and video_source apply to TikTok videos, and this post is a photo post.');
  if ((options.photo_cover_index ?? 0) >= urls.length)
    throw refuse(`photo_cover_index ${options.photo_cover_index} names no image of the ${urls.length}.`);
  return {
    media_type: 'PHOTO',
    post_mode: 'DIRECT_POST',
    post_info: {
      ...(options.title !== undefined && { title: options.title }),
      description: text,
      privacy_level: choosePrivacy(creator, options),
      ...interactions(creator, options, false),
      ...(options.auto_add_music !== undefined && { auto_add_music: options.auto_add_music }),
      ...disclosure(options),
    },
    source_info: { source: 'PULL_FROM_URL', photo_images: urls, photo_cover_index: options.photo_cover_index ?? 0 },
  };
}

/**
 * How a video goes up in chunks (TikTok's media transfer guide): under 10 MB whole, in one chunk; larger in chunks of
 * 10 MB (10,000,000 bytes: within 5–64 MB whichever way TikTok reads "MB"), the remainder riding on the last chunk
 * (under 20 MB, within the final chunk's 128 MB), `total_chunk_count` = size / chunk, rounded down.
 */
export const CHUNK_BYTES = 10_000_000;
export function chunkPlan(size: number): { chunkSize: number; totalChunks: number } {
  if (size < CHUNK_BYTES) return { chunkSize: size, totalChunks: 1 };
  return { chunkSize: CHUNK_BYTES, totalChunks: Math.floor(size / CHUNK_BYTES) };
}

/** The byte range of chunk `index` (the last one runs to the end). */
export function chunkRange(size: number, index: number): { first: number; end: number } {
  const { chunkSize, totalChunks } = chunkPlan(size);
  const first = index * chunkSize;
  return { first, end: index === totalChunks - 1 ? size : first + chunkSize };
}

/** A FAILED publish as the error it means (its `fail_reason`); nothing was posted. */
export function failure(publishId: string, status: PublishStatus): PlatformError {
  const reason = status.fail_reason ?? 'unknown';
  const meaning = FAIL_REASONS[reason] ?? { kind: 'permanent' as const };
  return new PlatformError(
    meaning.kind,
    meaning.code ?? (meaning.kind === 'media_rejected' ? 'PLATFORM_MEDIA_REJECTED' : defaultCode(meaning.kind)),
    `TikTok did not publish ${publishId}: ${reason}.`,
    { platformBody: JSON.stringify({ status: status.status, fail_reason: reason }) },
  );
}

function defaultCode(kind: string) {
  switch (kind) {
    case 'invalid_content':
      return 'PLATFORM_CONTENT_REJECTED' as const;
    case 'transient':
      return 'PLATFORM_UNAVAILABLE' as const;
    case 'auth_expired':
      return 'PLATFORM_RECONNECT_REQUIRED' as const;
    default:
      return 'PLATFORM_REJECTED' as const;
  }
}

/** A post's web URL: TikTok's own, or the simulator's page of it for a sandbox connection. */
export function postUrl(session: PlatformSession, id: string, kind: 'video' | 'photo'): string {
  const handle = session.connection.handle.replace(/^@/, '');
  const base = session.connection.sandbox ? session.connection.baseUrl : 'https://www.tiktok.com';
  return `${base}/@${handle}/${kind}/${id}`;
}

export function readOptions(options: PartOptions): TiktokOptions {
  return options as TiktokOptions;
}
