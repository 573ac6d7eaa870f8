// Live length counters for the composer, in the unit GET /v1/platforms names for each platform (X weighted
// characters, Bluesky graphemes, YouTube UTF-8 bytes, …). They guide typing; POST /v1/posts/validate, which the
// composer also calls, is the judge.

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const URL_PATTERN = /https?:\/\/[^\s]+/g;
const EMOJI = /\p{Extended_Pictographic}/u;

function countGraphemes(text: string): number {
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
}

/** X's weighting (twitter-text v3): a URL is 23, Latin and common punctuation 1, everything else 2. */
function xWeighted(text: string): number {
  let total = 0;
  const withoutUrls = text.replace(URL_PATTERN, () => {
    total += 23;
    return '';
  });
  for (const { segment } of graphemes.segment(withoutUrls)) {
    if (EMOJI.test(segment)) {
      total += 2;
      continue;
    }
    for (const char of segment) {
      const cp = char.codePointAt(0)!;
      const light =
        cp <= 4351 || (cp >= 8192 && cp <= 8205) || (cp >= 8208 && cp <= 8223) || (cp >= 8242 && cp <= 8247);
      total += light ? 1 : 2;
    }
  }
  return total;
}

function threadsLength(text: string): number {
  let n = 0;
  for (const { segment } of graphemes.segment(text)) {
    n += EMOJI.test(segment) ? new TextEncoder().encode(segment).length : [...segment].length;
  }
  return n;
}

/** The length of `text` in `unit`, as named by the platform's limits. */
export function measure(text: string, unit: string): number {
  if (unit === 'weighted characters') return xWeighted(text);
  if (unit === 'graphemes') return countGraphemes(text);
  if (unit.startsWith('bytes')) return new TextEncoder().encode(text).length;
  if (unit === 'UTF-16 code units') return text.length;
  if (unit.startsWith('characters (emoji')) return threadsLength(text);
  return [...text].length;
}

export interface TextLimit {
  max_length: number;
  unit: string;
}

/** The text limit out of a platform's `limits` object, when it has one. */
export function textLimit(limits: Record<string, unknown>): TextLimit | undefined {
  const text = limits.text as Partial<TextLimit> | undefined;
  if (!text || typeof text.max_length !== 'number' || typeof text.unit !== 'string') return undefined;
  return { max_length: text.max_length, unit: text.unit };
}
