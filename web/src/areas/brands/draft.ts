// A brand as the settings form edits it (lists as one item a line, empty text as "not set"), and back to the
// PATCH body: every setting is sent with the version read, so the brand becomes exactly what the form shows.
import type { components } from '@herald/client';

export type Brand = components['schemas']['Brand'];
export type Rules = Brand['rules'];
export type Patch = components['schemas']['UpdateBrandRequest'];
export type Platform = Rules['signature']['platforms'][number];

export interface Draft {
  name: string;
  slug: string;
  website: string;
  industry: string;
  timezone: string;
  language: string;
  colors: string;
  logo_media_id: string;
  descriptors: string;
  formality: string;
  emoji: string;
  hashtags: string;
  do: string;
  dont: string;
  examples: string[];
  audience_summary: string;
  segments: string;
  goals: string;
  offer: string;
  guidelines_md: string;
  banned_terms: string;
  required_terms: string;
  default_hashtags: string;
  signature: string;
  cta_default: string;
  memory: Array<{ id?: string; text: string; tags: string }>;
  documents: Array<{ media_id: string; title: string }>;
  rules: Rules;
}

const joined = (items: string[]) => items.join('\n');
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

export function toDraft(b: Brand): Draft {
  return {
    name: b.name,
    slug: b.slug,
    website: b.website ?? '',
    industry: b.industry ?? '',
    timezone: b.timezone ?? '',
    language: b.language ?? '',
    colors: joined(b.colors),
    logo_media_id: b.logo_media_id ?? '',
    descriptors: joined(b.voice.descriptors),
    formality: b.voice.formality === null ? '' : String(b.voice.formality),
    emoji: b.voice.emoji ?? '',
    hashtags: b.voice.hashtags ?? '',
    do: joined(b.voice.do),
    dont: joined(b.voice.dont),
    examples: b.voice.examples,
    audience_summary: b.audience.summary ?? '',
    segments: joined(b.audience.segments),
    goals: joined(b.goals),
    offer: b.offer ?? '',
    guidelines_md: b.guidelines_md ?? '',
    banned_terms: joined(b.banned_terms),
    required_terms: joined(b.required_terms),
    default_hashtags: b.default_hashtags.join(' '),
    signature: b.signature ?? '',
    cta_default: b.cta_default ?? '',
    memory: b.memory.map((m) => ({ id: m.id, text: m.text, tags: m.tags.join(', ') })),
    documents: b.documents,
    rules: b.rules,
  };
}

export function toPatch(d: Draft, version: number): Patch {
  return {
    version,
    name: d.name.trim(),
    slug: d.slug.trim(),
    website: orNull(d.website),
    industry: orNull(d.industry),
    timezone: orNull(d.timezone),
    language: orNull(d.language),
    colors: lines(d.colors),
    logo_media_id: orNull(d.logo_media_id),
    voice: {
      descriptors: lines(d.descriptors),
      formality: d.formality === '' ? null : Number(d.formality),
      emoji: d.emoji === '' ? null : (d.emoji as Brand['voice']['emoji']),
      hashtags: d.hashtags === '' ? null : (d.hashtags as Brand['voice']['hashtags']),
      do: lines(d.do),
      dont: lines(d.dont),
      examples: d.examples.map((e) => e.trim()).filter(Boolean),
    },
    audience: { summary: orNull(d.audience_summary), segments: lines(d.segments) },
    goals: lines(d.goals),
    offer: orNull(d.offer),
    // Markdown keeps its own leading spaces and blank lines; only an empty text means "none".
    guidelines_md: d.guidelines_md.trim() === '' ? null : d.guidelines_md,
    banned_terms: lines(d.banned_terms),
    required_terms: lines(d.required_terms),
    default_hashtags: d.default_hashtags.split(/[\s,]+/).filter(Boolean),
    signature: orNull(d.signature),
    cta_default: orNull(d.cta_default),
    memory: d.memory
      .filter((m) => m.text.trim())
      .map((m) => ({
        ...(m.id ? { id: m.id } : {}),
        text: m.text.trim(),
        tags: m.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      })),
    documents: d.documents
      .filter((doc) => doc.media_id.trim())
      .map((doc) => ({ media_id: doc.media_id.trim(), title: doc.title.trim() })),
    rules: d.rules,
  };
}
