// First comments (`platform_options.<p>.first_comment`, docs/api.md "First comments"): the text a post's options give,
// in either of its forms, its media, and the rules it meets at creation (those the media items' own facts decide are
// posts.first-comment-media.ts's). Pure. The engine publishes it as the target's last part
// (src/features/publishing/parts.ts); each platform says whether and how it takes one (`limits.firstComment`).
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';

/** One broken rule (posts.rules.ts `RuleIssue`, which this file's caller adds them to). */
interface Issue {
  platform: PlatformName;
  rule: string;
  message: string;
  path: string;
}

/**
 * The first comment's text in one platform's options, or undefined when there is none. Instagram's earlier form, a
 * string, is read as the text.
 */
export function firstCommentText(options: Record<string, unknown> | undefined): string | undefined {
  const value = options?.first_comment;
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { text?: unknown }).text === 'string')
    return (value as { text: string }).text;
  return undefined;
}

/** The media ids of the first comment in one platform's options (`first_comment.media_ids`), [] when none. */
export function firstCommentMediaIds(options: Record<string, unknown> | undefined): string[] {
  const value = options?.first_comment as { media_ids?: unknown } | undefined;
  return value && typeof value === 'object' && Array.isArray(value.media_ids)
    ? value.media_ids.filter((id): id is string => typeof id === 'string')
    : [];
}

/**
 * The issues of a first comment's media that its count alone shows: media on a platform whose comments take none,
 * more than its comments take. A reply's media are checked with the items (the platform's post rules).
 */
function mediaCountIssues(platform: PlatformName, limits: PlatformLimits, options: Record<string, unknown>): Issue[] {
  const count = firstCommentMediaIds(options).length;
  const rules = limits.firstComment;
  if (count === 0 || rules?.via !== 'comment') return [];
  const path = `/platform_options/${platform}/first_comment/media_ids`;
  if (!rules.media)
    return [
      {
        platform,
        rule: 'first_comment_media_unsupported',
        message: `${limits.displayName}'s API makes comments with text only; remove first_comment.media_ids for ${platform}.`,
        path,
      },
    ];
  return count > rules.media.maxItems
    ? [
        {
          platform,
          rule: 'first_comment_too_many_media',
          message: `A ${limits.displayName} comment may carry at most ${rules.media.maxItems} media item${rules.media.maxItems === 1 ? '' : 's'}; this one has ${count}.`,
          path,
        },
      ]
    : [];
}

/** The issues of a first comment on one platform: one it cannot take, an empty text, one over its limits. */
export function checkFirstComment(
  platform: PlatformName,
  limits: PlatformLimits,
  options: Record<string, unknown>,
): Issue[] {
  const text = firstCommentText(options);
  if (text === undefined) return [];
  const path = `/platform_options/${platform}/first_comment`;
  const rules = limits.firstComment;
  if (!rules)
    return [
      {
        platform,
        rule: 'first_comment_unsupported',
        message: `${limits.displayName}'s API cannot comment on a post; remove first_comment for ${platform}.`,
        path,
      },
    ];
  if (text.trim() === '')
    return [{ platform, rule: 'first_comment_empty', message: 'The first comment is empty.', path }];
  if (rules.via === 'reply')
    // A reply post: the platform's own text rules, as a thread's next part.
    return limits.text
      .check(text)
      .map((issue) => ({ platform, rule: issue.rule, message: `First comment: ${issue.message}`, path }));
  const media = mediaCountIssues(platform, limits, options);
  const length = [...text].length;
  return length > rules.maxLength
    ? [
        ...media,
        {
          platform,
          rule: 'first_comment_too_long',
          message: `A ${limits.displayName} comment may have at most ${rules.maxLength} characters; this one has ${length}.`,
          path,
        },
      ]
    : media;
}
