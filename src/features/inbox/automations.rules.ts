// The pure rules of inbox automations (docs/inbox.md "Automations"): does a trigger match a message, which
// language a message is in, whether a time falls in quiet hours, and which placeholders a reply template may use.
// No I/O: the evaluation (automations.evaluate.ts) reads the rows and applies these.
import { fillTemplate } from '../ai/deterministic/text.ts';
import { containsTerm } from '../brands/brand-rules.ts';
import { canonicalZone, localIso } from '../../lib/timezone.ts';
import type { BrandInput } from '../ai/ai.types.ts';
import type { InboxItemRow } from './inbox.types.ts';

export const TRIGGER_TYPES = ['keyword', 'any', 'intent'] as const;
export const MATCH_MODES = ['exact', 'contains', 'word'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];
export const INTENTS = ['question', 'complaint', 'praise', 'purchase'] as const;
export type Intent = (typeof INTENTS)[number];
export const ACTION_TYPES = ['reply_public', 'reply_private', 'assign', 'label', 'webhook'] as const;
export const RESPONSE_MODES = ['auto', 'approval'] as const;
/** Languages the offline detector tells apart (ISO 639-1). */
export const LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl'] as const;
export type Language = (typeof LANGUAGES)[number];
/** The dedup window when none is given: 7 days, per author. */
export const DEFAULT_DEDUP_WINDOW_MINUTES = 7 * 24 * 60;

/** The values a template may name; anything else is refused when the automation is saved. */
export const TEMPLATE_PLACEHOLDERS = [
  'author',
  'author.username',
  'author.display_name',
  'keyword',
  'platform',
  'brand.name',
  'brand.website',
  'brand.signature',
  'brand.cta',
  'brand.hashtags',
] as const;

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

/** The placeholders of `template` that are not in TEMPLATE_PLACEHOLDERS. */
export function unknownPlaceholders(template: string): string[] {
  const known = new Set<string>(TEMPLATE_PLACEHOLDERS);
  const unknown = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) if (!known.has(m[1]!)) unknown.add(m[1]!);
  return [...unknown];
}

export function renderTemplate(template: string, values: Record<string, string | undefined>): string {
  return fillTemplate(template, values).text;
}

const fold = (s: string) => s.normalize('NFKC').toLocaleLowerCase('und').trim();

/** The first keyword the text matches, or null. `exact`: the whole message; `contains`: anywhere; `word`: whole words. */
export function matchKeyword(text: string, keywords: readonly string[], mode: MatchMode): string | null {
  const t = fold(text);
  for (const keyword of keywords) {
    const k = fold(keyword);
    if (k === '') continue;
    if (mode === 'exact' ? t.replace(/[\s.!?]+$/u, '') === k : mode === 'contains' ? t.includes(k) : containsTerm(t, k))
      return keyword;
  }
  return null;
}

const INTENT_WORDS: Record<Intent, readonly string[]> = {
  question: ['how', 'what', 'when', 'where', 'why', 'who', 'which', 'can you', 'could you', 'is there', 'do you'],
  complaint: ['broken', 'refund', 'terrible', 'awful', 'worst', 'not working', "doesn't work", 'disappointed', 'scam'],
  praise: ['love', 'great', 'amazing', 'awesome', 'thank you', 'thanks', 'fantastic', 'excellent', 'beautiful'],
  purchase: ['price', 'cost', 'buy', 'order', 'shipping', 'discount', 'available', 'in stock', 'how much'],
};

/**
 * The intents a message shows, by rules (no model): a question mark or a question word opening it; words of
 * complaint, praise, or purchase anywhere (whole words).
 */
export function detectIntents(text: string): Intent[] {
  const t = fold(text);
  const found: Intent[] = [];
  for (const intent of INTENTS) {
    const words = INTENT_WORDS[intent];
    const hit =
      intent === 'question'
        ? /\?/.test(t) || words.some((w) => t.startsWith(`${w} `))
        : words.some((w) => containsTerm(t, w));
    if (hit) found.push(intent);
  }
  return found;
}

const STOPWORDS: Record<Language, readonly string[]> = {
  en: ['the', 'and', 'is', 'you', 'this', 'what', 'for', 'with', 'are', 'to', 'it', 'my', 'how', 'do'],
  es: ['el', 'la', 'de', 'que', 'y', 'es', 'en', 'los', 'por', 'para', 'con', 'una', 'cómo', 'gracias'],
  fr: ['le', 'la', 'les', 'et', 'est', 'des', 'une', 'pour', 'que', 'pas', 'vous', 'avec', 'merci', 'je'],
  de: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'ich', 'sie', 'mit', 'ein', 'eine', 'danke', 'wie', 'für'],
  pt: ['o', 'os', 'de', 'que', 'e', 'não', 'um', 'uma', 'para', 'com', 'obrigado', 'você', 'como', 'é'],
  it: ['il', 'lo', 'di', 'che', 'e', 'non', 'un', 'una', 'per', 'con', 'grazie', 'sono', 'come', 'è'],
  nl: ['de', 'het', 'een', 'en', 'is', 'niet', 'ik', 'je', 'van', 'met', 'voor', 'dank', 'hoe', 'wat'],
};

/**
 * The message's language among LANGUAGES, by counting common words of each; null when no language has at least
 * two of its words in the message, or two languages tie (too short or mixed to tell).
 */
export function detectLanguage(text: string): Language | null {
  const words = fold(text)
    .split(/[^\p{L}']+/u)
    .filter(Boolean);
  let best: Language | null = null;
  let bestScore = 0;
  let tie = false;
  for (const lang of LANGUAGES) {
    const set = new Set(STOPWORDS[lang]);
    const score = words.filter((w) => set.has(w)).length;
    if (score > bestScore) [best, bestScore, tie] = [lang, score, false];
    else if (score === bestScore && score > 0) tie = true;
  }
  return bestScore >= 2 && !tie ? best : null;
}

export interface QuietHours {
  start: string;
  end: string;
  timezone: string;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The problem with a quiet-hours window, or null. */
export function quietHoursProblem(q: QuietHours): string | null {
  if (!HHMM.test(q.start) || !HHMM.test(q.end)) return 'start and end are HH:MM (24-hour).';
  if (q.start === q.end) return 'start and end must differ.';
  if (canonicalZone(q.timezone) === null) return `${q.timezone} is not an IANA time zone.`;
  return null;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When the quiet hours holding `at` end, or null when `at` is outside them. A window may cross midnight
 * (22:00–07:00). Found by stepping minute marks forward in the zone, so daylight-saving changes are honoured.
 */
export function quietUntil(q: QuietHours, at: Date): Date | null {
  const zone = canonicalZone(q.timezone) ?? 'UTC';
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  const inside = (instant: number) => {
    const local = localIso(instant, zone);
    const m = Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16));
    return start < end ? m >= start && m < end : m >= start || m < end;
  };
  if (!inside(at.getTime())) return null;
  const step = 60_000;
  let t = Math.floor(at.getTime() / step) * step;
  for (let i = 0; i < 24 * 60 + 120 && inside(t); i++) t += step;
  return new Date(t);
}

/** The values a reply template fills for an item: its author and platform, and its brand. */
export function templateValues(item: InboxItemRow, brand: BrandInput | null, keyword?: string) {
  const f = brand?.fields;
  return {
    author: item.author.display_name ?? item.author.username ?? undefined,
    'author.username': item.author.username ?? undefined,
    'author.display_name': item.author.display_name ?? undefined,
    keyword,
    platform: item.platform,
    'brand.name': f?.name,
    'brand.website': f?.website ?? undefined,
    'brand.signature': f?.signature ?? undefined,
    'brand.cta': f?.cta_default ?? undefined,
    'brand.hashtags': f?.default_hashtags?.length ? f.default_hashtags.join(' ') : undefined,
  };
}
