// The extractive engine and the fitting every output passes (docs/repurpose.md "How outputs are made"). Pure.
// `draftOutput` writes an output from the source alone: the title as the lead, then the sentences that carry the
// most weight, the call to action, the link with its UTM parameters and hashtags. `fitOutput` takes any draft (the
// engine's or a model's) to the platform's text rules, counted the platform's way: a thread is split at sentence
// boundaries and numbered, a single text is trimmed at a sentence boundary. What still breaks a rule is reported
// with `within_limit: false` and never becomes a post.
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformName, TextLimits } from '../../platforms/limits.ts';
import { fits, rankSentences, sentences, splitPieces } from '../ai/deterministic/text.ts';
import type { OutputFormat } from './repurpose.schemas.ts';

/** Sentences a single post or caption takes at most: a post is a teaser of the source, not a copy of it. */
const SINGLE_MAX_SENTENCES = { post: 5, caption: 4 } as const;
/** Sentences a thread takes at most before it is condensed to fit the platform's part count. */
const THREAD_MAX_SENTENCES = 12;

export interface DraftInput {
  platform: PlatformName;
  format: OutputFormat;
  title: string | null;
  text: string;
  /** Variant number from 0: variant n leaves out the n heaviest sentences, so variants differ. */
  variant: number;
}

/** A draft: the text (a thread's parts joined by blank lines, unnumbered) before fitting. */
export interface Draft {
  parts: string[];
  hashtags: string[];
}

export interface Extras {
  cta: string | null;
  /** The link, UTM parameters already added. */
  link: string | null;
  hashtags: string[];
  /** What the brand's rules append to the first part (signature, CTA …): counted in its room. */
  brandSuffix: string;
}

export interface Fitted {
  parts: string[];
  hashtags: string[];
  within_limit: boolean;
  /** The longest part in the platform's own count. */
  char_count: number;
  /** The rules broken, when not within the limit. */
  problems: { rule: string; message: string }[];
}

/** The extractive draft: the lead and the heaviest sentences, shown in the source's order. */
export function draftOutput(input: DraftInput): Draft {
  const ranked = rankSentences(input.text);
  const skip = ranked.length > input.variant + 1 ? input.variant : 0;
  const max = input.format === 'thread' ? THREAD_MAX_SENTENCES : SINGLE_MAX_SENTENCES[input.format];
  const chosen = ranked
    .slice(skip, skip + max)
    .sort((a, b) => a.index - b.index)
    .map((s) => s.text);
  const lead = input.title?.trim();
  const body = lead && !chosen[0]?.startsWith(lead) ? [lead, ...chosen] : chosen;
  return { parts: body.length > 0 ? body : [input.text.trim()], hashtags: [] };
}

/**
 * `link` with UTM parameters set: ones of the same name are replaced, every other parameter is kept byte for byte
 * (re-serialising the query would turn `%20` into `+` or `?flag` into `?flag=`, which some sites read differently).
 */
export function withUtm(link: string, utm: { source: string; medium: string; campaign: string }): string {
  const url = new URL(link);
  const set = { utm_source: utm.source, utm_medium: utm.medium, utm_campaign: utm.campaign };
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => {
      if (!pair) return false;
      const name = pair.split('=')[0]!;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is not one of our names: kept as it is.
      }
      return !Object.hasOwn(set, decoded);
    });
  const added = Object.entries(set).map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  url.search = `?${[...kept, ...added].join('&')}`;
  return url.toString();
}

function check(limits: TextLimits, parts: string[], suffix: string): Fitted['problems'] {
  return parts.flatMap((p, i) =>
    limits.check(i === 0 ? p + suffix : p).map((issue) => ({
      rule: issue.rule,
      message: `${parts.length > 1 ? `part ${i + 1}: ` : ''}${issue.message}`,
    })),
  );
}

function result(platform: PlatformName, parts: string[], hashtags: string[], suffix: string): Fitted {
  const limits = PLATFORM_LIMITS[platform];
  const problems = check(limits.text, parts, suffix);
  const max = Math.max(1, limits.maxThreadParts);
  if (parts.length > max)
    problems.push({
      rule: 'too_many_thread_parts',
      message: `${parts.length} parts; ${limits.displayName} takes ${max}.`,
    });
  if (parts.length === 0 || parts.every((p) => !p.trim()))
    problems.push({ rule: 'content_required', message: 'The output has no text.' });
  return {
    parts,
    hashtags,
    within_limit: problems.length === 0,
    char_count: Math.max(0, ...parts.map((p, i) => limits.text.measure(i === 0 ? p + suffix : p))),
    problems,
  };
}

/** One text from sentences: the most of them (in order) that fit with the extras, then with fewer hashtags. */
function fitSingle(platform: PlatformName, draft: Draft, extras: Extras): Fitted {
  const limits = PLATFORM_LIMITS[platform].text;
  const pieces = draft.parts.flatMap((p) => sentences(p));
  const tags = [...new Set([...draft.hashtags, ...extras.hashtags])];
  const tail = [extras.cta, extras.link].filter((x): x is string => Boolean(x));
  for (let t = tags.length; t >= 0; t--) {
    const textOf = (k: number) =>
      [pieces.slice(0, k).join(' '), ...tail, tags.slice(0, t).join(' ')].filter(Boolean).join('\n\n');
    const fitting = (k: number) => fits(limits, textOf(k) + extras.brandSuffix);
    if (!fitting(1)) continue;
    // The most sentences that fit, found by halving: a text only grows with its sentences.
    let [low, high] = [1, pieces.length];
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fitting(mid)) low = mid;
      else high = mid - 1;
    }
    return result(platform, [textOf(low)], tags.slice(0, t), extras.brandSuffix);
  }
  // Not even the first sentence fits with the call to action and the link: reported as it is, never sent without
  // the link the caller asked for.
  return result(platform, [[pieces[0] ?? '', ...tail].filter(Boolean).join('\n\n')], [], extras.brandSuffix);
}

/** A thread: the whole split at sentence boundaries and numbered; condensed, heaviest sentences kept, if too long. */
function fitThread(platform: PlatformName, draft: Draft, extras: Extras): Fitted {
  const platformLimits = PLATFORM_LIMITS[platform];
  const tags = [...new Set([...draft.hashtags, ...extras.hashtags])];
  // The link and the hashtags are pieces of their own: sentence segmentation would break a link at its `?`.
  const tail = [...sentences(extras.cta ?? ''), extras.link, tags.join(' ')].filter((x): x is string => Boolean(x));
  // The brand's additions go on the first part: it is split with their room kept.
  const firstRoom: TextLimits = {
    ...platformLimits.text,
    check: (t) => platformLimits.text.check(t + extras.brandSuffix),
  };
  const split = (sentencesKept: string[]) => {
    const pieces = [...sentencesKept, ...tail];
    const parts = splitPieces(platformLimits.text, pieces);
    if (!extras.brandSuffix || parts.length === 0 || fits(firstRoom, parts[0]!)) return parts;
    // Rare: the brand suffix does not fit on the first part; give it a part of its own by splitting tighter.
    return splitPieces(firstRoom, pieces);
  };
  const all = draft.parts.flatMap((p) => sentences(p));
  let parts = split(all);
  if (parts.length > platformLimits.maxThreadParts) {
    // As many of the heaviest sentences as fit the part count, found by halving (a long model answer has thousands).
    const ranked = rankSentences(all.join(' '));
    const keeping = (keep: number) =>
      split(
        ranked
          .slice(0, keep)
          .sort((a, b) => a.index - b.index)
          .map((s) => s.text),
      );
    parts = keeping(1);
    let [low, high] = [1, ranked.length - 1];
    while (parts.length <= platformLimits.maxThreadParts && low < high) {
      const mid = Math.ceil((low + high) / 2);
      const tried = keeping(mid);
      if (tried.length <= platformLimits.maxThreadParts) [low, parts] = [mid, tried];
      else high = mid - 1;
    }
  }
  return result(platform, parts, tags, extras.brandSuffix);
}

/** Fits a draft to the platform: a thread when asked and the platform takes threads, otherwise one text. */
export function fitOutput(platform: PlatformName, format: OutputFormat, draft: Draft, extras: Extras): Fitted {
  const fitted =
    format === 'thread' && PLATFORM_LIMITS[platform].maxThreadParts > 1
      ? fitThread(platform, draft, extras)
      : fitSingle(platform, draft, extras);
  // A link longer than a part is cut by the thread split: a broken link is reported, never posted.
  if (extras.link && !fitted.parts.some((p) => p.includes(extras.link!)))
    return {
      ...fitted,
      within_limit: false,
      problems: [
        ...fitted.problems,
        {
          rule: 'link_too_long',
          message: `The link does not fit whole in one ${PLATFORM_LIMITS[platform].displayName} post.`,
        },
      ],
    };
  return fitted;
}
