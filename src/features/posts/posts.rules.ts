// The rules a post must meet on every target platform (docs/api.md "Posts", 422 PUBLIC_API_VALIDATION_FAILED):
// text limits in each platform's own counting, thread support, options only for listed platforms, schedule
// not in the past. Pure: given the post and the time, it returns the issues; no I/O.
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import type { PlatformOptions } from './posts.schemas.ts';
import { withAdditions, type BrandAdditions } from '../brands/brand-rules.ts';
import { checkFirstComment } from './posts.first-comment.ts';

export interface RuleIssue {
  platform: PlatformName | null;
  rule: string;
  message: string;
  path: string;
}

export interface PostDraft {
  content: string;
  platforms: PlatformName[];
  platformOptions: PlatformOptions;
  mediaCount: number;
  /** What the brand appends to each platform's first part: counted in its limits like the text itself. */
  brandAdditions?: BrandAdditions;
}

/** A scheduled time this far in the past is still accepted (clock skew, a slow client); older → 422. */
export const SCHEDULE_GRACE_MS = 60_000;

interface PlatformSpecific {
  content?: string;
  thread?: string[];
  alt_texts?: string[];
}

/** `limitsOf` gives the limits to apply per platform: the stock ones, or a connection's own (a Mastodon instance). */
export function checkPlatformRules(
  post: PostDraft,
  limitsOf: (platform: PlatformName) => PlatformLimits = (p) => PLATFORM_LIMITS[p],
): RuleIssue[] {
  const issues: RuleIssue[] = [];
  for (const name of Object.keys(post.platformOptions) as PlatformName[]) {
    if (post.platformOptions[name] !== undefined && !post.platforms.includes(name)) {
      issues.push({
        platform: name,
        rule: 'options_for_unlisted_platform',
        message: `platform_options.${name} is given but ${name} is not in platforms.`,
        path: `/platform_options/${name}`,
      });
    }
  }
  for (const platform of post.platforms) {
    const limits = limitsOf(platform);
    const options = (post.platformOptions[platform] ?? {}) as PlatformSpecific;
    const added = post.brandAdditions?.[platform];
    const text = withAdditions(options.content ?? post.content, added);
    const withBrand = added ? ` (with the brand's ${added.additions.map((a) => a.rule).join(', ')})` : '';
    const textPath = options.content !== undefined ? `/platform_options/${platform}/content` : '/content';
    const extraParts = options.thread ?? [];

    if (text.trim() === '' && post.mediaCount === 0) {
      issues.push({
        platform,
        rule: 'content_required',
        message: `${limits.displayName} needs text or media; both are empty.`,
        path: textPath,
      });
    }
    if (limits.media.required && post.mediaCount === 0) {
      issues.push({
        platform,
        rule: 'media_required',
        message: `${limits.displayName} posts need at least one image or video.`,
        path: '/media_ids',
      });
    }
    for (const issue of limits.text.check(text))
      issues.push({ platform, rule: issue.rule, message: issue.message + withBrand, path: textPath });
    for (const issue of limits.checkOptions?.(options as Record<string, unknown>, post.mediaCount, text) ?? [])
      issues.push({ platform, rule: issue.rule, message: issue.message, path: `/platform_options/${platform}` });
    issues.push(...checkFirstComment(platform, limits, options as Record<string, unknown>));
    if ((options.alt_texts?.length ?? 0) > post.mediaCount) {
      issues.push({
        platform,
        rule: 'alt_text_without_media',
        message: `${options.alt_texts!.length} alt texts for ${post.mediaCount} media items.`,
        path: `/platform_options/${platform}/alt_texts`,
      });
    }

    if (extraParts.length > 0) {
      if (limits.maxThreadParts === 0) {
        issues.push({
          platform,
          rule: 'thread_unsupported',
          message: `${limits.displayName} does not support threads.`,
          path: `/platform_options/${platform}/thread`,
        });
        continue;
      }
      if (extraParts.length + 1 > limits.maxThreadParts) {
        issues.push({
          platform,
          rule: 'too_many_thread_parts',
          message: `A ${limits.displayName} thread may have at most ${limits.maxThreadParts} parts; this one has ${extraParts.length + 1}.`,
          path: `/platform_options/${platform}/thread`,
        });
      }
      extraParts.forEach((part, i) => {
        const path = `/platform_options/${platform}/thread/${i}`;
        if (part.trim() === '')
          issues.push({ platform, rule: 'thread_part_empty', message: `Thread part ${i + 2} is empty.`, path });
        for (const issue of limits.text.check(part))
          issues.push({ platform, rule: issue.rule, message: `Thread part ${i + 2}: ${issue.message}`, path });
      });
    }
  }
  return issues;
}

export function checkSchedule(scheduleAt: Date | null, now: Date): RuleIssue[] {
  if (scheduleAt && scheduleAt.getTime() < now.getTime() - SCHEDULE_GRACE_MS) {
    return [
      {
        platform: null,
        rule: 'schedule_in_past',
        message: `schedule_at ${scheduleAt.toISOString()} is in the past.`,
        path: '/schedule_at',
      },
    ];
  }
  return [];
}

/**
 * Pinterest's per-connection boards (`platform_options.pinterest.boards`, docs/decisions.md): every Pinterest target
 * whose connection is known needs a board, its own or `board_id`; a board for a connection the post does not
 * publish through is a mistake worth naming rather than ignoring.
 */
export function checkConnectionBoards(
  platformOptions: PlatformOptions,
  targets: ReadonlyArray<{ platform: PlatformName; connectionId: string | null }>,
): RuleIssue[] {
  const options = platformOptions.pinterest;
  const boards = options?.boards;
  if (!boards) return [];
  const connections = targets.filter((t) => t.platform === 'pinterest' && t.connectionId !== null);
  const issues: RuleIssue[] = [];
  const path = '/platform_options/pinterest/boards';
  if (options.board_id === undefined)
    for (const { connectionId } of connections)
      if (boards[connectionId!] === undefined)
        issues.push({
          platform: 'pinterest',
          rule: 'board_required',
          message: `boards names no board for connection ${connectionId}, and there is no board_id for it to use.`,
          path,
        });
  for (const id of Object.keys(boards))
    if (!connections.some((t) => t.connectionId === id))
      issues.push({
        platform: 'pinterest',
        rule: 'board_connection_not_targeted',
        message: `boards names connection ${id}, which is not one of the post's Pinterest connections.`,
        path: `${path}/${id}`,
      });
  return issues;
}
