// The deterministic engine's text tools (docs/ai.md "The deterministic engine"): sentences and words through
// Intl.Segmenter (any language ICU knows), extractive summaries ranked by term weight, splitting at sentence
// boundaries to a platform's own counting rules with thread numbering, keyword hashtags, and template filling.
// Pure functions: the same input always gives the same output.
import type { TextLimits } from '../../../platforms/limits.ts';

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Sentences of `text`, trimmed, empty ones dropped. A blank line also ends a sentence (headings, lists). */
export function sentences(text: string): string[] {
  const found: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    for (const { segment } of sentenceSegmenter.segment(block.replace(/\s+/g, ' ').trim())) {
      const s = segment.trim();
      if (s) found.push(s);
    }
  }
  return found;
}

// Words that carry no topic in English, the language most brand copy arrives in; other languages are handled by
// the inverse sentence frequency below, which weighs down words found in most sentences anyway.
const STOPWORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between
  both but by can could did do does doing down during each few for from further had has have having he her here hers
  herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
  only or other our ours ourselves out over own same she should so some such than that the their theirs them
  themselves then there these they this those through to too under until up very was we were what when where which
  while who whom why will with would you your yours yourself yourselves new one two get got make made many much may
  might must us via per`.split(/\s+/),
);

/** Lower-cased word tokens of `text` that may carry a topic (letters or digits, not a stopword, 3+ characters). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const { segment, isWordLike } of wordSegmenter.segment(text)) {
    if (!isWordLike) continue;
    const word = segment.toLocaleLowerCase();
    if ([...word].length < 3 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    out.push(word);
  }
  return out;
}

/**
 * Term weights within one document: frequency in the whole text times the log inverse of the share of sentences
 * that hold the term (TF-IDF with the sentences as the corpus), so a word repeated in one passage outranks one
 * spread evenly through every sentence.
 */
export function termWeights(sentenceList: string[]): Map<string, number> {
  const tf = new Map<string, number>();
  const df = new Map<string, number>();
  for (const s of sentenceList) {
    const seen = new Set<string>();
    for (const t of terms(s)) {
      tf.set(t, (tf.get(t) ?? 0) + 1);
      if (!seen.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
      seen.add(t);
    }
  }
  const n = sentenceList.length;
  const weights = new Map<string, number>();
  for (const [t, f] of tf) weights.set(t, f * Math.log(1 + n / (df.get(t) ?? 1)));
  return weights;
}

export interface RankedSentence {
  text: string;
  /** Position in the document (0-based). */
  index: number;
  score: number;
}

/**
 * Every sentence scored: the summed weight of its distinct terms over the square root of their number (long
 * sentences do not win by length alone), the lead sentence raised by a quarter (news and posts open with their
 * point). Sorted best first; ties keep document order.
 */
export function rankSentences(text: string): RankedSentence[] {
  const list = sentences(text);
  const weights = termWeights(list);
  const ranked = list.map((s, index) => {
    const distinct = [...new Set(terms(s))];
    const sum = distinct.reduce((acc, t) => acc + (weights.get(t) ?? 0), 0);
    const score = distinct.length === 0 ? 0 : (sum / Math.sqrt(distinct.length)) * (index === 0 ? 1.25 : 1);
    return { text: s, index, score };
  });
  return ranked.sort((a, b) => b.score - a.score || a.index - b.index);
}

/**
 * An extractive summary: the best `maxSentences` sentences, in document order, also kept within `maxChars`
 * characters when given (a sentence that would overflow it is skipped for a shorter one that fits).
 */
export function summarize(text: string, maxSentences: number, maxChars?: number): string[] {
  const chosen: RankedSentence[] = [];
  let chars = 0;
  for (const s of rankSentences(text)) {
    if (chosen.length >= maxSentences) break;
    const added = s.text.length + (chosen.length > 0 ? 1 : 0);
    if (maxChars !== undefined && chars + added > maxChars) continue;
    chosen.push(s);
    chars += added;
  }
  return chosen.sort((a, b) => a.index - b.index).map((s) => s.text);
}

/** Whether `text` passes every text rule of a platform (length by its own count, byte caps, characters). */
export function fits(limits: TextLimits, text: string): boolean {
  return limits.check(text).length === 0;
}

function graphemes(text: string): string[] {
  return [...graphemeSegmenter.segment(text)].map((g) => g.segment);
}

/** Cuts one piece that cannot fit whole into pieces that do: at spaces first, then between graphemes. */
function cutToFit(piece: string, fitsPart: (t: string) => boolean): string[] {
  const out: string[] = [];
  let current = '';
  const push = () => {
    if (current) out.push(current);
    current = '';
  };
  for (const word of piece.split(/\s+/).filter(Boolean)) {
    const joined = current ? `${current} ${word}` : word;
    if (fitsPart(joined)) {
      current = joined;
      continue;
    }
    push();
    if (fitsPart(word)) {
      current = word;
      continue;
    }
    for (const g of graphemes(word)) {
      if (fitsPart(current + g)) current += g;
      else {
        push();
        current = g;
      }
    }
  }
  push();
  return out;
}

function pack(pieces: string[], fitsPart: (t: string) => boolean): string[] {
  const parts: string[] = [];
  let current = '';
  for (const piece of pieces) {
    const joined = current ? `${current} ${piece}` : piece;
    if (fitsPart(joined)) {
      current = joined;
      continue;
    }
    if (current) parts.push(current);
    if (fitsPart(piece)) current = piece;
    else {
      const cut = cutToFit(piece, fitsPart);
      current = cut.pop() ?? '';
      parts.push(...cut);
    }
  }
  if (current) parts.push(current);
  return parts;
}

export interface SplitOptions {
  /** Append ` i/n` to every part of a thread of two or more (default true). */
  numbering?: boolean;
}

/**
 * Splits `text` into parts that each pass the platform's text rules, breaking between sentences where it can, then
 * between words, then between graphemes. With numbering, room for the widest ` n/n` is kept in every part, and
 * the numbers are appended once the count is known; a text that fits whole is returned unnumbered.
 */
export function splitToLimit(limits: TextLimits, text: string, options: SplitOptions = {}): string[] {
  return splitPieces(limits, sentences(text), options);
}

/**
 * `splitToLimit` over pieces already cut: each is kept whole in one part where it fits (a link, which sentence
 * segmentation would break at its `?`), joined to its neighbours by a space.
 */
export function splitPieces(limits: TextLimits, pieces: string[], options: SplitOptions = {}): string[] {
  if (pieces.length === 0) return [];
  const whole = pieces.join(' ');
  if (fits(limits, whole)) return [whole];
  if (options.numbering === false) return pack(pieces, (t) => fits(limits, t));
  // Reserve the widest suffix for the count guessed so far; repack if the count needs more digits.
  for (let guess = 9; ; guess = guess * 10 + 9) {
    const widest = ` ${guess}/${guess}`;
    const parts = pack(pieces, (t) => fits(limits, t + widest));
    if (parts.length <= guess) return parts.map((p, i) => `${p} ${i + 1}/${parts.length}`);
  }
}

/** A hashtag made of a keyword or a brand default: `#` and letters, digits or underscores only. */
/** The longest hashtag made, `#` included: a longer "word" (a run of letters, a pasted token) is no keyword. */
export const MAX_HASHTAG_LENGTH = 100;

export function toHashtag(word: string): string | undefined {
  const body = word
    .normalize('NFC')
    .replace(/^#+/, '')
    .replace(/[^\p{L}\p{N}_]+/gu, '');
  if (!body || /^\d+$/.test(body) || body.length + 1 > MAX_HASHTAG_LENGTH) return undefined;
  return `#${body}`;
}

/**
 * Hashtags: the brand's defaults first (as given), then the text's heaviest keywords, without case-insensitive
 * repeats or tags already in the text, at most `max`.
 */
export function pickHashtags(text: string, defaults: readonly string[], max: number): string[] {
  const chosen: string[] = [];
  const seen = new Set([...text.matchAll(/#([\p{L}\p{N}_]+)/gu)].map((m) => m[1]!.toLocaleLowerCase()));
  const add = (candidate: string | undefined) => {
    if (!candidate || chosen.length >= max) return;
    const key = candidate.slice(1).toLocaleLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    chosen.push(candidate);
  };
  for (const d of defaults) add(toHashtag(d));
  const weights = [...termWeights(sentences(text))].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [term] of weights) add(toHashtag(term));
  return chosen;
}

/**
 * Fills `{{name}}` placeholders (dotted names allowed, blanks inside the braces ignored) from `values`. Returns the
 * text and the placeholders that had no value (left out of the text, so nothing like `{{x}}` is ever published).
 */
export function fillTemplate(
  template: string,
  values: Record<string, string | undefined>,
): { text: string; missing: string[] } {
  const missing: string[] = [];
  const text = template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) missing.push(name);
    return value ?? '';
  });
  // Placeholders left empty must not leave doubled spaces or a space before punctuation behind.
  return {
    text: text
      .replace(/[ \t]+([,.!?;:])/g, '$1')
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/ +\n/g, '\n')
      .trim(),
    missing: [...new Set(missing)],
  };
}
