// Pure translation between Herald's post and YouTube's video resource: the options of `platform_options.youtube`,
// the resource a session starts with, and the video's web address.
import { PlatformError, type OutgoingPart, type PlatformSession } from '../types.ts';
import type { VideoResource } from './client.ts';
import { titleFrom } from './limits.ts';

/** status.privacyStatus values (videos resource reference). */
export const YOUTUBE_PRIVACY_STATUSES = ['public', 'unlisted', 'private'] as const;

/** People & Blogs: YouTube's default category for uploads (videoCategories.list). */
const DEFAULT_CATEGORY = '22';

/** `platform_options.youtube` as the adapter reads it (declared in src/features/posts/posts.platform-options.ts). */
export interface YoutubeOptions {
  title?: string;
  tags?: string[];
  category_id?: string;
  privacy_status?: (typeof YOUTUBE_PRIVACY_STATUSES)[number];
  made_for_kids?: boolean;
  notify_subscribers?: boolean;
}

/** The video's page: youtube.com for real channels, the simulator's watch page for sandbox ones. */
export function watchUrl(session: PlatformSession, id: string): string {
  const base = session.connection.sandbox ? session.connection.baseUrl : 'https://www.youtube.com';
  return `${base}/watch?v=${encodeURIComponent(id)}`;
}

/** The video resource of the session start: title (the option, else the text's first line), description, status. */
export function videoResource(part: Pick<OutgoingPart, 'text' | 'options'>): VideoResource {
  const o = part.options as YoutubeOptions;
  const title = o.title ?? titleFrom(part.text);
  if (!title)
    throw new PlatformError(
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
      'A YouTube video needs a title: set platform_options.youtube.title or give the post text.',
    );
  return {
    snippet: {
      title,
      description: part.text,
      ...(o.tags && o.tags.length > 0 && { tags: o.tags }),
      categoryId: o.category_id ?? DEFAULT_CATEGORY,
    },
    status: { privacyStatus: o.privacy_status ?? 'public', selfDeclaredMadeForKids: o.made_for_kids ?? false },
  };
}
