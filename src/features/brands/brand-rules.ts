// A brand's rules on a post, without any model (docs/api.md "Brand rules on posts"): banned terms found in the text
// (warnings, or errors when the brand says so), required terms missing from it (warnings, errors, or appended), and
// the additions the brand asks for on each platform — call to action, missing required terms, signature, missing
// default hashtags — appended to the first part of that platform's text. Pure: no I/O. The posts feature counts
// the additions in each platform's limits, shows them in POST /posts/validate and fixes them on the post.
import type { PlatformName } from '../../platforms/limits.ts';
import type { BrandForPosts, BrandRules } from './brands.repo.ts';
import { brandRules } from './brands.view.ts';

export type BrandAdditionRule = 'cta' | 'required_terms' | 'signature' | 'default_hashtags';

export interface BrandAddition {
  rule: BrandAdditionRule;
  text: string;
}

/** What the brand added to one platform's text: `suffix` is appended to the first part as it is. */
export interface PlatformAdditions {
  suffix: string;
  additions: BrandAddition[];
  brand_version: number;
}

export type BrandAdditions = Partial<Record<PlatformName, PlatformAdditions>>;

/** One finding, in the shape of the posts rules' issues (`path` points into the request). */
export interface BrandIssue {
  platform: PlatformName | null;
  rule: 'banned_term' | 'required_term_missing';
  message: string;
  path: string;
}

export interface BrandCheck {
  additions: BrandAdditions;
  /** Findings the brand makes errors (422). */
  errors: BrandIssue[];
  /** Findings the brand makes warnings: the post is still created. */
  warnings: BrandIssue[];
}

/** One platform's text as the post gives it: the first part and its path, then the thread's further parts. */
export interface PlatformText {
  platform: PlatformName;
  first: { text: string; path: string };
  thread: Array<{ text: string; path: string }>;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const patterns = new Map<string, RegExp>();

/** The term as a whole word or phrase, ignoring case: `cheap` is not found in `cheapest`, `#ad` not in `#adore`. */
function termPattern(term: string): RegExp {
  let re = patterns.get(term);
  if (!re) {
    re = new RegExp(`(?<![\\p{L}\\p{N}_])${escape(term)}(?![\\p{L}\\p{N}_])`, 'iu');
    if (patterns.size > 5000) patterns.clear();
    patterns.set(term, re);
  }
  return re;
}

export function containsTerm(text: string, term: string): boolean {
  return termPattern(term).test(text);
}

function appliesTo(rule: { apply: BrandRules['signature']['apply']; platforms: PlatformName[] }, p: PlatformName) {
  return rule.apply === 'always' || (rule.apply === 'platforms' && rule.platforms.includes(p));
}

const ADDITION_JOINER = '\n';
const BODY_JOINER = '\n\n';

/** The text a platform publishes as its first part: what the post says, then the brand's suffix. */
export function withAdditions(text: string, additions: PlatformAdditions | undefined): string {
  return additions ? text + additions.suffix : text;
}

export function checkBrandRules(brand: BrandForPosts, texts: PlatformText[]): BrandCheck {
  const rules = brandRules(brand.rules);
  const result: BrandCheck = { additions: {}, errors: [], warnings: [] };
  const banned = rules.banned_terms.severity === 'error' ? result.errors : result.warnings;
  const missingTo = rules.required_terms.when_missing === 'error' ? result.errors : result.warnings;

  for (const { platform, first, thread } of texts) {
    for (const part of [first, ...thread]) {
      for (const term of brand.banned_terms) {
        if (containsTerm(part.text, term)) {
          banned.push({
            platform,
            rule: 'banned_term',
            message: `The brand bans the term "${term}"; the ${platform} text at ${part.path} uses it.`,
            path: part.path,
          });
        }
      }
    }
    const all = [first, ...thread].map((p) => p.text).join('\n');
    const additions: BrandAddition[] = [];
    if (appliesTo(rules.cta, platform) && brand.cta_default && !all.includes(brand.cta_default))
      additions.push({ rule: 'cta', text: brand.cta_default });
    if (appliesTo(rules.required_terms, platform)) {
      const missing = brand.required_terms.filter((t) => !containsTerm(all, t));
      if (missing.length > 0 && rules.required_terms.when_missing === 'append') {
        additions.push({ rule: 'required_terms', text: missing.join(' ') });
      } else {
        for (const term of missing)
          missingTo.push({
            platform,
            rule: 'required_term_missing',
            message: `The brand requires the term "${term}" in every post; the ${platform} text lacks it.`,
            path: first.path,
          });
      }
    }
    if (appliesTo(rules.signature, platform) && brand.signature && !all.includes(brand.signature))
      additions.push({ rule: 'signature', text: brand.signature });
    if (appliesTo(rules.default_hashtags, platform)) {
      const missing = brand.default_hashtags.filter((h) => !containsTerm(all, h));
      if (missing.length > 0) additions.push({ rule: 'default_hashtags', text: missing.join(' ') });
    }
    if (additions.length > 0) {
      const body = additions.map((a) => a.text).join(ADDITION_JOINER);
      result.additions[platform] = {
        suffix: first.text.trim() === '' ? body : `${BODY_JOINER}${body}`,
        additions,
        brand_version: brand.version,
      };
    }
  }
  return result;
}
