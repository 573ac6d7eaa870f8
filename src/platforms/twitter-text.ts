// twitter-text, X's own text library, which X, Mastodon and Threads count and find links with, loaded on the first
// count instead of at start: with the core-js polyfills it pulls in it is some 230 modules, and only validating or
// fitting a post's text needs it (docs/decisions.md "Start-up loads what serving needs").
import { createRequire } from 'node:module';

/** Settings of a twitter-text counting rule. */
export interface TwitterTextConfig {
  version: number;
  maxWeightedTweetLength: number;
  transformedURLLength: number;
  emojiParsingEnabled: boolean;
}

/** The slice of twitter-text (CommonJS, ships no types) that Herald's limits use. */
export interface TwitterText {
  parseTweet(text: string, config?: TwitterTextConfig): { weightedLength: number; valid: boolean };
  hasInvalidCharacters(text: string): boolean;
  extractUrls(text: string): string[];
  extractUrlsWithIndices(
    text: string,
    options: { extractUrlsWithoutProtocol: boolean },
  ): { url: string; indices: [number, number] }[];
  configs: { version3: TwitterTextConfig };
}

let library: TwitterText | undefined;

/**
 * The library, required on the first call (synchronously: CommonJS). createRequire rather than an import because
 * the package has no type declarations, so a default import fails the type check under `strict`.
 */
export function twitterText(): TwitterText {
  return (library ??= createRequire(import.meta.url)('twitter-text') as TwitterText);
}
