// The brand's rules on a post (src/features/brands/brand-rules.ts), fed with the post's texts per platform: the
// brand is read once per create, edit or validate (one small row), and what it adds is fixed on the post.
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import { checkBrandRules, withAdditions, type BrandAdditions, type BrandCheck } from '../brands/brand-rules.ts';
import { findBrandForPosts, type BrandForPosts } from '../brands/brands.repo.ts';
import type { RuleIssue } from './posts.rules.ts';
import type { PlatformOptions } from './posts.schemas.ts';

const NONE: BrandCheck = { additions: {}, errors: [], warnings: [] };

export async function checkPostBrand(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  post: { content: string; platforms: PlatformName[]; platformOptions: PlatformOptions },
  /** The brand when the caller has just read it (no second read); null: read, and gone. */
  known?: BrandForPosts | null,
): Promise<BrandCheck> {
  // A deleted brand's drafts keep no rules: the brand is gone.
  const brand = known === undefined ? await findBrandForPosts(db, workspaceId, brandId) : known;
  if (!brand) return NONE;
  return checkBrandRules(
    brand,
    post.platforms.map((platform) => {
      const options = (post.platformOptions[platform] ?? {}) as { content?: string; thread?: string[] };
      return {
        platform,
        first: {
          text: options.content ?? post.content,
          path: options.content !== undefined ? `/platform_options/${platform}/content` : '/content',
        },
        thread: (options.thread ?? []).map((text, i) => ({
          text,
          path: `/platform_options/${platform}/thread/${i}`,
        })),
      };
    }),
  );
}

/** Per platform, in `platforms` order: what the brand added and the first part's text as it will be published. */
export function appliedView(
  platforms: PlatformName[],
  content: string,
  platformOptions: PlatformOptions,
  additions: BrandAdditions,
): Array<{ platform: PlatformName; additions: Array<{ rule: string; text: string }>; text: string }> {
  return platforms.map((platform) => {
    const own = (platformOptions[platform] as { content?: string } | undefined)?.content ?? content;
    const added = additions[platform];
    return { platform, additions: added?.additions ?? [], text: withAdditions(own, added) };
  });
}

export function asRuleIssues(issues: BrandCheck['warnings']): RuleIssue[] {
  return issues.map((i) => ({ platform: i.platform, rule: i.rule, message: i.message, path: i.path }));
}
