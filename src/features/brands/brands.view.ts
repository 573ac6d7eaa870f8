// The public representation of a brand (docs/api.md "Brands"), with every default filled in: what GET /v1/brands/{id},
// the CLI's --json and the brand events show.
import type { BrandRow, BrandRules, BrandVoice } from './brands.repo.ts';

/** The rules of a brand with their defaults: nothing is added to posts and banned terms warn, unless it asks. */
export function brandRules(stored: BrandRow['rules']): BrandRules {
  const applies = (
    r: { apply?: BrandRules['signature']['apply']; platforms?: BrandRules['signature']['platforms'] } | undefined,
    fallback: BrandRules['signature']['apply'],
  ) => ({
    apply: r?.apply ?? fallback,
    platforms: r?.platforms ?? [],
  });
  return {
    banned_terms: { severity: stored.banned_terms?.severity ?? 'warning' },
    required_terms: {
      ...applies(stored.required_terms, 'always'),
      when_missing: stored.required_terms?.when_missing ?? 'warning',
    },
    signature: applies(stored.signature, 'never'),
    cta: applies(stored.cta, 'never'),
    default_hashtags: applies(stored.default_hashtags, 'never'),
  };
}

export function brandVoice(stored: Partial<BrandVoice>): BrandVoice {
  return {
    descriptors: stored.descriptors ?? [],
    formality: stored.formality ?? null,
    emoji: stored.emoji ?? null,
    hashtags: stored.hashtags ?? null,
    do: stored.do ?? [],
    dont: stored.dont ?? [],
    examples: stored.examples ?? [],
  };
}

export function brandAudience(stored: BrandRow['audience']): { summary: string | null; segments: string[] } {
  return { summary: stored.summary ?? null, segments: stored.segments ?? [] };
}

export function brandJson(b: BrandRow): Record<string, unknown> {
  return {
    id: b.id,
    object: 'brand',
    workspace_id: b.workspace_id,
    name: b.name,
    slug: b.slug,
    is_default: b.is_default,
    website: b.website,
    industry: b.industry,
    timezone: b.timezone,
    language: b.language,
    colors: b.colors,
    logo_media_id: b.logo_media_id,
    voice: brandVoice(b.voice),
    audience: brandAudience(b.audience),
    goals: b.goals,
    offer: b.offer,
    guidelines_md: b.guidelines_md,
    banned_terms: b.banned_terms,
    required_terms: b.required_terms,
    default_hashtags: b.default_hashtags,
    signature: b.signature,
    cta_default: b.cta_default,
    memory: b.memory,
    documents: b.documents,
    rules: brandRules(b.rules),
    version: b.version,
    created_at: b.created_at.toISOString(),
    updated_at: b.updated_at.toISOString(),
  };
}
