// Evergreen recycling (docs/queues.md "Recycling"): a rule on a published post — `POST /v1/posts/{id}/recycle` —
// and stopping it. The rule is checked whole when it is made: its ranges, its variants against every target
// platform's text rules, and the duplicate-text rules of the platforms that refuse a repeated text. The copies
// themselves are made by the recycle_posts task (recycling.copies.ts).
import type { ServiceContext } from '../../app/context.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import { findPost, type PostRow } from '../posts/posts.repo.ts';
import { checkPlatformRules, type RuleIssue } from '../posts/posts.rules.ts';
import type { PlatformOptions } from '../posts/posts.schemas.ts';
import * as repo from './recycling.repo.ts';
import { MAX_RECYCLE_TIMES, type RecycleBody, type RecycleVary } from './recycling.schemas.ts';
import { ruleJson } from './recycling.view.ts';

export const DAY_MS = 86_400_000;

/** The post's options with every per-platform `content` override removed: a variant is the text everywhere. */
export function withoutTextOverrides(options: PlatformOptions): PlatformOptions {
  return Object.fromEntries(
    Object.entries(options).map(([platform, value]) => {
      if (!value || typeof value !== 'object') return [platform, value];
      const { content: _dropped, ...rest } = value as Record<string, unknown>;
      return [platform, rest];
    }),
  ) as PlatformOptions;
}

/** The text of copy number `index` (0-based) on a platform, as the rule makes it. */
export function copyText(
  post: Pick<PostRow, 'content' | 'platform_options'>,
  rule: { vary: RecycleVary; variants: readonly string[] },
  platform: PlatformName,
  index: number,
): string {
  if (rule.vary === 'rotate_variants') return rule.variants[index % rule.variants.length]!;
  const override = (post.platform_options[platform] as { content?: string } | undefined)?.content;
  return override ?? post.content;
}

/**
 * Platforms that refuse a repeated text, where two posts in a row of the family (the original, then each copy) would
 * carry the same text: one issue per platform, naming the rule and the platform's own refusal.
 */
export function duplicateIssues(
  post: Pick<PostRow, 'content' | 'platform_options' | 'platforms'>,
  rule: { vary: RecycleVary; variants: readonly string[]; times: number },
): RuleIssue[] {
  const issues: RuleIssue[] = [];
  for (const platform of post.platforms) {
    const refusal = PLATFORM_LIMITS[platform].duplicateText;
    if (!refusal) continue;
    let previous = copyText(post, { vary: 'none', variants: [] }, platform, 0);
    for (let i = 0; i < rule.times; i++) {
      const text = copyText(post, rule, platform, i);
      if (text === previous) {
        const which = i === 0 ? 'the first copy repeats the post' : `copy ${i + 1} repeats copy ${i}`;
        const fix =
          rule.vary === 'none'
            ? 'give `variants` (vary `rotate_variants`) so that each copy says it differently'
            : 'give variants that differ from the post and from each other, enough that no text follows itself';
        issues.push({
          platform,
          rule: 'duplicate_text',
          message: `Recycling this post on ${PLATFORM_LIMITS[platform].displayName} would post the same text twice (${which}): ${refusal} ${fix[0]!.toUpperCase()}${fix.slice(1)}.`,
          path: rule.vary === 'none' ? '/vary' : '/variants',
        });
        break;
      }
      previous = text;
    }
  }
  return issues;
}

function rangeIssues(body: RecycleBody, vary: RecycleVary, now: Date, firstAt: Date): RuleIssue[] {
  const issue = (rule: string, path: string, message: string): RuleIssue => ({ platform: null, rule, path, message });
  const issues: RuleIssue[] = [];
  if (body.every_days < 1) issues.push(issue('every_days_too_small', '/every_days', 'every_days must be at least 1.'));
  if (body.times < 1 || body.times > MAX_RECYCLE_TIMES)
    issues.push(issue('times_out_of_range', '/times', `times must be between 1 and ${MAX_RECYCLE_TIMES}.`));
  if (body.until !== undefined) {
    const until = new Date(body.until);
    if (until.getTime() <= now.getTime()) issues.push(issue('until_in_past', '/until', 'until must be in the future.'));
    else if (body.every_days >= 1 && until.getTime() < firstAt.getTime())
      issues.push(
        issue(
          'until_before_first_copy',
          '/until',
          `until is before the first copy would be made (${firstAt.toISOString()}).`,
        ),
      );
  }
  const variants = body.variants ?? [];
  if (vary === 'rotate_variants' && variants.length === 0)
    issues.push(issue('variants_required', '/variants', 'vary rotate_variants needs at least one text in variants.'));
  if (vary === 'none' && variants.length > 0)
    issues.push(issue('variants_need_rotation', '/variants', 'variants are used only with vary rotate_variants.'));
  return issues;
}

/** Each variant against every target platform's rules, as the copy carrying it will be checked. */
function variantIssues(post: PostRow, variants: readonly string[]): RuleIssue[] {
  const options = withoutTextOverrides(post.platform_options);
  return variants.flatMap((text, i) =>
    checkPlatformRules({
      content: text,
      platforms: post.platforms,
      platformOptions: options,
      mediaCount: post.media_ids.length,
      brandAdditions: post.brand_additions,
    })
      .filter((issue) => issue.path === '/content')
      .map((issue) => ({ ...issue, path: `/variants/${i}`, message: `Variant ${i}: ${issue.message}` })),
  );
}

export function createRecyclingService(deps: { clock: Clock }) {
  async function livePost(ctx: ServiceContext, id: string): Promise<PostRow> {
    const post = await findPost(ctx.db, ctx.workspaceId, id);
    if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id))) throw notFound('post');
    return post;
  }

  return {
    /** `POST /v1/posts/{id}/recycle`: the post's rule, new or replacing the one it had. */
    async start(ctx: ServiceContext, postId: string, body: RecycleBody) {
      const post = await livePost(ctx, postId);
      if (post.status !== 'published') {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `Only a published post can be recycled; this one is ${post.status}.`,
        );
      }
      const now = deps.clock.now();
      const firstAt = new Date(now.getTime() + Math.max(1, body.every_days) * DAY_MS);
      const variants = body.variants ?? [];
      const vary: RecycleVary = body.vary ?? (variants.length > 0 ? 'rotate_variants' : 'none');
      const issues = rangeIssues(body, vary, now, firstAt);
      if (issues.length === 0) {
        issues.push(...variantIssues(post, variants));
        issues.push(...duplicateIssues(post, { vary, variants, times: body.times }));
      }
      if (issues.length > 0) throw validationFailed(issues);
      const rule = await repo.upsertRule(ctx.db, ctx.workspaceId, {
        postId: post.id,
        everyDays: body.every_days,
        times: body.times,
        until: body.until !== undefined ? new Date(body.until) : null,
        vary,
        variants,
        nextAt: firstAt,
        createdBy: ctx.userId,
      });
      return { post_id: post.id, recycle: ruleJson(rule) };
    },

    /** `DELETE /v1/posts/{id}/recycle`: stops the rule; again, or without one, answers the rule as it is (or null). */
    async stop(ctx: ServiceContext, postId: string) {
      const post = await livePost(ctx, postId);
      const stopped = await repo.stopRule(ctx.db, ctx.workspaceId, post.id);
      const rule = stopped ?? (await repo.findRules(ctx.db, ctx.workspaceId, [post.id]))[0] ?? null;
      return { post_id: post.id, recycle: rule ? ruleJson(rule) : null };
    },
  };
}

export type RecyclingService = ReturnType<typeof createRecyclingService>;
