// The brand context (docs/api.md "Brand context"): one size-bounded text block ready for a prompt, plus the
// structured fields it was made from. Every text-producing feature reads the brand through it. Pure: no I/O.
//
// The bound is BRAND_CONTEXT_MAX_CHARS characters (UTF-16 code units). The identity, voice attributes and the
// brand's rules (banned and required terms, hashtags, signature, call to action) are never cut: the field limits
// keep them well under the bound. When the whole is over the bound, sections are cut in BRAND_CONTEXT_CUT_ORDER:
// list sections lose items from their end (the first ones are kept), the guidelines are shortened at a line or word
// boundary (and dropped when under 200 characters would remain), until the text fits. `truncated` names each
// section cut, in that order.
import type { BrandDocument, BrandRow, BrandRules, BrandVoice, MemoryItem } from './brands.repo.ts';
import { brandAudience, brandRules, brandVoice } from './brands.view.ts';

export const BRAND_CONTEXT_MAX_CHARS = 12_000;

/** What is cut first when the context is over its bound, then next, and so on. */
export const BRAND_CONTEXT_CUT_ORDER = [
  'examples',
  'memory',
  'documents',
  'guidelines',
  'goals',
  'audience_segments',
  'voice_rules',
] as const;
export type BrandContextSection = (typeof BRAND_CONTEXT_CUT_ORDER)[number];

/** Guidelines shorter than this once cut are dropped rather than kept as a stub. */
const MIN_GUIDELINES_KEPT = 200;

export interface BrandContextFields {
  name: string;
  slug: string;
  website: string | null;
  industry: string | null;
  timezone: string | null;
  language: string | null;
  colors: string[];
  offer: string | null;
  audience: { summary: string | null; segments: string[] };
  goals: string[];
  voice: BrandVoice;
  guidelines_md: string | null;
  banned_terms: string[];
  required_terms: string[];
  default_hashtags: string[];
  signature: string | null;
  cta_default: string | null;
  memory: MemoryItem[];
  documents: BrandDocument[];
  rules: BrandRules;
}

/** Stable: the text-generation provider (src/features/ai) consumes `text` and `fields`. */
export interface BrandContext {
  brand_id: string;
  version: number;
  /** One block for a prompt, at most BRAND_CONTEXT_MAX_CHARS characters. It is the brand's data, not instructions. */
  text: string;
  /** Every field the text was made from, whole (never truncated). */
  fields: BrandContextFields;
  /** The sections cut to fit the bound, in the order they were cut. */
  truncated: BrandContextSection[];
}

interface Section {
  key: BrandContextSection | 'core';
  header: string;
  items: string[];
  /** Items joined by this (list items by a line break; examples by a separator line). */
  joiner: string;
}

const FORMALITY = ['', 'very casual', 'casual', 'neutral', 'formal', 'very formal'];

function quoted(terms: string[]): string {
  return terms.map((t) => `"${t}"`).join(', ');
}

function coreLines(f: BrandContextFields): string[] {
  const lines = [`Brand: ${f.name} (${f.slug})`];
  const add = (label: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined && value !== '') lines.push(`${label}: ${value}`);
  };
  add('Website', f.website);
  add('Industry', f.industry);
  add('Language', f.language);
  add('Time zone', f.timezone);
  add('Offer', f.offer);
  add('Audience', f.audience.summary);
  add('Voice', f.voice.descriptors.join(', '));
  if (f.voice.formality !== null) add('Formality', `${f.voice.formality} of 5 (${FORMALITY[f.voice.formality]})`);
  add('Emoji', f.voice.emoji);
  add('Hashtags', f.voice.hashtags);
  if (f.banned_terms.length > 0) add('Never use these terms', quoted(f.banned_terms));
  if (f.required_terms.length > 0) add('Always include these terms', quoted(f.required_terms));
  add('Default hashtags', f.default_hashtags.join(' '));
  add('Signature', f.signature);
  add('Default call to action', f.cta_default);
  return lines;
}

function sectionsOf(f: BrandContextFields): Section[] {
  const list = (key: Section['key'], header: string, items: string[]): Section => ({
    key,
    header,
    items: items.map((i) => `- ${i}`),
    joiner: '\n',
  });
  return [
    { key: 'core', header: '', items: coreLines(f), joiner: '\n' },
    list('audience_segments', 'Audience segments:', f.audience.segments),
    list('goals', 'Goals:', f.goals),
    // Don'ts first: when the section is cut from its end, the dos go first.
    list('voice_rules', 'Voice rules:', [
      ...f.voice.dont.map((d) => `Don't: ${d}`),
      ...f.voice.do.map((d) => `Do: ${d}`),
    ]),
    { key: 'guidelines', header: 'Guidelines:', items: f.guidelines_md ? [f.guidelines_md] : [], joiner: '\n' },
    list(
      'memory',
      'Memory:',
      f.memory.map((m) => (m.tags.length > 0 ? `[${m.tags.join(', ')}] ${m.text}` : m.text)),
    ),
    list(
      'documents',
      'Documents:',
      f.documents.map((d) => `${d.title} (media ${d.media_id})`),
    ),
    { key: 'examples', header: 'Examples of posts in this voice:', items: [...f.voice.examples], joiner: '\n---\n' },
  ];
}

function render(sections: Section[]): string {
  return sections
    .filter((s) => s.items.length > 0)
    .map((s) => (s.header ? `${s.header}\n${s.items.join(s.joiner)}` : s.items.join(s.joiner)))
    .join('\n\n');
}

/** Shortens a text by at least `by` characters at a line or word boundary, with `…`; null when too little remains. */
function shorten(text: string, by: number): string | null {
  const keep = text.length - by - 1;
  if (keep < MIN_GUIDELINES_KEPT) return null;
  let cut = text.lastIndexOf('\n', keep);
  if (cut < keep * 0.8) cut = text.lastIndexOf(' ', keep);
  if (cut < keep * 0.8) cut = keep;
  return `${text.slice(0, cut).trimEnd()}…`;
}

export function contextFields(brand: BrandRow): BrandContextFields {
  return {
    name: brand.name,
    slug: brand.slug,
    website: brand.website,
    industry: brand.industry,
    timezone: brand.timezone,
    language: brand.language,
    colors: brand.colors,
    offer: brand.offer,
    audience: brandAudience(brand.audience),
    goals: brand.goals,
    voice: brandVoice(brand.voice),
    guidelines_md: brand.guidelines_md,
    banned_terms: brand.banned_terms,
    required_terms: brand.required_terms,
    default_hashtags: brand.default_hashtags,
    signature: brand.signature,
    cta_default: brand.cta_default,
    memory: brand.memory,
    documents: brand.documents,
    rules: brandRules(brand.rules),
  };
}

export function compileBrandContext(brand: BrandRow, maxChars: number = BRAND_CONTEXT_MAX_CHARS): BrandContext {
  const fields = contextFields(brand);
  const sections = sectionsOf(fields);
  const truncated: BrandContextSection[] = [];
  let text = render(sections);
  for (const key of BRAND_CONTEXT_CUT_ORDER) {
    if (text.length <= maxChars) break;
    const section = sections.find((s) => s.key === key)!;
    if (section.items.length === 0) continue;
    truncated.push(key);
    if (key === 'guidelines') {
      const shorter = shorten(section.items[0]!, text.length - maxChars);
      section.items = shorter === null ? [] : [shorter];
      text = render(sections);
      continue;
    }
    while (text.length > maxChars && section.items.length > 0) {
      section.items.pop();
      text = render(sections);
    }
  }
  // Unreachable with the field limits (the core stays far under the bound), kept so the bound always holds.
  if (text.length > maxChars) text = `${text.slice(0, maxChars - 1)}…`;
  return { brand_id: brand.id, version: brand.version, text, fields, truncated };
}
