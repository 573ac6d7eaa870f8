// YouTube upload limits (docs/platforms/youtube.md "Limits"): the post text is the video's description, counted in
// UTF-8 bytes as YouTube counts it; the title and tags are options with their own rules; one video per post.
import type { LimitIssue, PlatformLimits } from '../limits.ts';

/** snippet.description: at most 5,000 bytes (videos resource reference). */
export const MAX_LENGTH = 5000;
/** snippet.title: at most 100 characters, required (videos resource reference). */
export const MAX_TITLE_LENGTH = 100;
/** snippet.tags: at most 500 characters for all tags together, counted as `tagsLength` does. */
export const MAX_TAGS_LENGTH = 500;
const GB = 1024 ** 3;

/** The description's length as YouTube caps it: UTF-8 bytes. */
export function measure(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** YouTube refuses `<` and `>` in titles and descriptions (videos resource reference). */
export const ANGLE_BRACKETS = /[<>]/;

/**
 * The tags' length as YouTube counts it (videos resource reference, `snippet.tags[]`): the commas between tags count,
 * and a tag with a space counts as if quoted (`Foo Baz` is 9). Characters are Unicode code points (⚠ unverified: the
 * reference says "characters" without saying which).
 */
export function tagsLength(tags: readonly string[]): number {
  let length = Math.max(0, tags.length - 1);
  for (const tag of tags) length += [...tag].length + (/\s/.test(tag) ? 2 : 0);
  return length;
}

/** Every description issue; empty text is not flagged (the title may come from the options). */
function check(text: string): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const length = measure(text);
  if (length > MAX_LENGTH)
    issues.push({ rule: 'text_too_long', message: `Description is ${length} bytes; YouTube allows ${MAX_LENGTH}.` });
  if (ANGLE_BRACKETS.test(text))
    issues.push({ rule: 'text_angle_brackets', message: 'YouTube refuses < and > in a video description.' });
  return issues;
}

/** A title from the post text when the options give none: its first line, cut to YouTube's 100 characters. */
export function titleFrom(text: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  return [...line].slice(0, MAX_TITLE_LENGTH).join('').trim();
}

export const limits: PlatformLimits = {
  platform: 'youtube',
  displayName: 'YouTube',
  text: { maxLength: MAX_LENGTH, unit: 'bytes (UTF-8)', measure, check, caps: { tags_characters: MAX_TAGS_LENGTH } },
  media: {
    // One video per upload; YouTube takes no images through videos.insert.
    maxItems: 1,
    required: true,
    mixKinds: false,
    kinds: {
      video: {
        // videos.insert takes `video/*` and application/octet-stream; these are the types Herald's media library knows.
        contentTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
        maxBytes: 256 * GB,
        maxCount: 1,
        // 12 hours for verified accounts; unverified accounts get 15 minutes (YouTube Help; ⚠ unverified per account:
        // the API does not report which an account is, so the platform's own refusal is what Herald meets).
        maxDurationMs: 12 * 3600_000,
      },
    },
  },
  // A YouTube video has no reply chain (comments belong to the inbox).
  maxThreadParts: 0,
  // First comments (docs/platforms/youtube.md "First comments").
  firstComment: { via: 'comment', maxLength: 10_000 },
  checkOptions(options, _mediaCount, text) {
    const issues: LimitIssue[] = [];
    // The title is required: the option, else the text's first line (checked only when the text is known).
    if (text !== undefined && options.title === undefined && titleFrom(text) === '')
      issues.push({
        rule: 'youtube_title_required',
        message:
          'A YouTube video needs a title: set platform_options.youtube.title, or give the post text (its first line is used).',
      });
    const tags = Array.isArray(options.tags) ? options.tags.filter((t): t is string => typeof t === 'string') : [];
    const length = tagsLength(tags);
    if (length > MAX_TAGS_LENGTH)
      issues.push({
        rule: 'youtube_tags_too_long',
        message: `The tags count ${length} characters as YouTube counts them (commas between tags, quotes around tags with spaces); YouTube allows ${MAX_TAGS_LENGTH}.`,
      });
    return issues;
  },
};
