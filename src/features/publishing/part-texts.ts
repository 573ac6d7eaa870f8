// What a target publishes, part by part, read from its post: the first post (the content, or the platform's own,
// with the brand's additions fixed when the post was written), each reply of its thread, then its first comment —
// a reply to the last part where the platform's replies are posts, else a comment on the post (`ownComments`) —
// and the media of each part (the post's on the first, the comment's own on it).
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import { firstCommentMediaIds, firstCommentText } from '../posts/posts.first-comment.ts';
import type { PostRow } from '../posts/posts.repo.ts';

export interface TargetTexts {
  texts: string[];
  /** The media ids of each part, by index: the post's on the first, the first comment's on it; none on a reply. */
  partMedia: string[][];
  /** Per-platform alt texts of the post's media (the first part's), by media position. */
  altTexts: string[];
  /** The options the adapter gets: the platform's own, less what is read here. */
  options: Record<string, unknown>;
  /** The last of `texts` is a comment on the post, made through the adapter's `ownComments`. */
  commentOnPost: boolean;
}

export function targetTexts(post: PostRow, platform: PlatformName, limits: PlatformLimits): TargetTexts {
  const {
    content,
    thread,
    alt_texts: altTexts,
    first_comment: _comment,
    ...options
  } = (post.platform_options[platform] ?? {}) as {
    content?: string;
    thread?: string[];
    alt_texts?: string[];
    first_comment?: unknown;
  };
  const texts = [(content ?? post.content) + (post.brand_additions?.[platform]?.suffix ?? ''), ...(thread ?? [])];
  const comment = firstCommentText(post.platform_options[platform]);
  // A comment the platform can no longer take (validated when the post was written) is the adapter's to refuse.
  if (comment !== undefined) texts.push(comment);
  const partMedia = texts.map((): string[] => []);
  partMedia[0] = post.media_ids;
  if (comment !== undefined) partMedia[texts.length - 1] = firstCommentMediaIds(post.platform_options[platform]);
  return {
    texts,
    partMedia,
    altTexts: altTexts ?? [],
    options,
    commentOnPost: comment !== undefined && limits.firstComment?.via !== 'reply',
  };
}

/** How a failure names the part it stopped at (0-based `position`): a part of the thread, or the first comment. */
export function partLabel(post: PostRow | undefined, platform: PlatformName, position: number): string {
  const options = post?.platform_options[platform] as { thread?: string[] } | undefined;
  if (firstCommentText(options) !== undefined && position === 1 + (options?.thread?.length ?? 0))
    return 'The first comment';
  return `Part ${position + 1} of the thread`;
}
