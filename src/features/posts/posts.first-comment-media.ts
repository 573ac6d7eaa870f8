// The media of first comments (`platform_options.<p>.first_comment.media_ids`, docs/api.md "First comments"): the
// checks their items need (they exist, are ready, fit the platform; a comment takes only the kinds its platform's
// comments take), and their variants asked for when the post is written. A reply post's media meet the platform's own
// post rules, as a thread part's would; what the count alone decides is posts.first-comment.ts's.
import type { ServiceContext } from '../../app/context.ts';
import type { MediaService } from '../media/media.service.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import { firstCommentMediaIds } from './posts.first-comment.ts';
import type { RuleIssue } from './posts.rules.ts';

type CommentMedia = Pick<MediaService, 'postIssues' | 'mediaForPost' | 'prepareVariants'>;
type Context = Pick<ServiceContext, 'db' | 'workspaceId'>;

/** The platforms whose first comment names media the platform's comments or replies may take, with those ids. */
function withMedia(
  platforms: readonly PlatformName[],
  platformOptions: Record<string, unknown>,
  limitsOf: (platform: PlatformName) => PlatformLimits,
): Array<{ platform: PlatformName; ids: string[]; limits: PlatformLimits }> {
  return platforms.flatMap((platform) => {
    const ids = firstCommentMediaIds(platformOptions[platform] as Record<string, unknown> | undefined);
    const limits = limitsOf(platform);
    const rules = limits.firstComment;
    // No comment, or one whose media the platform refuses outright (posts.first-comment.ts names that rule).
    if (ids.length === 0 || !rules || (rules.via === 'comment' && !rules.media)) return [];
    return [{ platform, ids, limits }];
  });
}

/** The issues of the first comments' media items, each with its path under the comment. */
export async function firstCommentMediaIssues(
  media: CommentMedia,
  ctx: Context,
  platforms: readonly PlatformName[],
  platformOptions: Record<string, unknown>,
  limitsOf: (platform: PlatformName) => PlatformLimits,
): Promise<RuleIssue[]> {
  const issues: RuleIssue[] = [];
  for (const { platform, ids, limits } of withMedia(platforms, platformOptions, limitsOf)) {
    const base = `/platform_options/${platform}/first_comment/media_ids`;
    const found = await media.postIssues(ctx, ids, [platform], { options: platformOptions, limitsOf });
    for (const issue of found)
      issues.push({
        ...issue,
        message: `First comment: ${issue.message}`,
        path: issue.path.replace(/^\/media_ids/, base),
      });
    const rules = limits.firstComment;
    if (rules?.via !== 'comment' || !rules.media) continue;
    const kinds = rules.media.kinds;
    (await media.mediaForPost(ctx.db, ctx.workspaceId, ids)).forEach((row, position) => {
      if (row?.kind && !(kinds as string[]).includes(row.kind))
        issues.push({
          platform,
          rule: 'first_comment_media_kind',
          message: `A ${limits.displayName} comment takes ${kinds.join(' or ')} media only; media ${row.id} is a ${row.kind}.`,
          path: `${base}/${position}`,
        });
    });
  }
  return issues;
}

/** The first comments' images fitted to their platforms now, as a post's own are (jobs in the caller's transaction). */
export async function prepareFirstCommentVariants(
  media: CommentMedia,
  ctx: Context,
  platforms: readonly PlatformName[],
  platformOptions: Record<string, unknown>,
): Promise<void> {
  for (const { platform, ids } of withMedia(platforms, platformOptions, (p) => PLATFORM_LIMITS[p]))
    await media.prepareVariants(ctx, ids, [platform], { options: platformOptions });
}
