// Reading an `rss` automation's feed (docs/automations.md "Runs"): fetched through the SSRF guard by the media
// fetch's guarded fetcher (size and time caps, every redirect checked), parsed by `@rowanmanning/feed-parser` (RSS
// and Atom), each item keyed by its GUID, else its link, for the seen-items table.
import { readFile } from 'node:fs/promises';
import type { parseFeed } from '@rowanmanning/feed-parser';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import { fetchToSink, FetchFailure, temporarySink } from '../media/media.fetch.ts';

/** A feed is text; the largest real-world feeds are a few MB. */
export const MAX_FEED_BYTES = 5 * 1024 * 1024;
/** A feed that takes longer than this is down, as far as one poll is concerned. */
export const MAX_FEED_SECONDS = 30;
/** What an item's summary keeps of its description. */
const SUMMARY_CHARS = 500;

export interface FeedCaps {
  guard: OutboundGuard;
  maxBytes: number;
  timeoutMs: number;
}

export function feedCaps(guard: OutboundGuard, mediaFetchTimeoutSeconds: number): FeedCaps {
  return {
    guard,
    maxBytes: MAX_FEED_BYTES,
    timeoutMs: Math.min(mediaFetchTimeoutSeconds, MAX_FEED_SECONDS) * 1000,
  };
}

/** One item of a feed (or the post of an event), as a generator reads it. */
export interface SourceItem {
  /** `guid:<id>` or `url:<link>`: the seen-items key. */
  key: string;
  title: string | null;
  url: string | null;
  summary: string | null;
  /** The whole text, for the repurpose generator. */
  text: string;
  author: string | null;
  image: string | null;
  published: Date | null;
}

/** A feed that cannot be read: the run fails with this code and message. */
export class FeedFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'FeedFailure';
    this.code = code;
  }
}

/** The text of an HTML fragment (a feed's description), whitespace folded, through the DOM rather than regexes. */
async function textOf(html: string | null): Promise<string> {
  if (!html) return '';
  const { parseHTML } = await import('linkedom');
  const { document } = parseHTML(`<html><body>${html}</body></html>`);
  return (document.body?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** A link without its fragment, so `…/p/1#comments` and `…/p/1` are one item. */
function normaliseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return url.trim();
  }
}

/** Items of a parsed feed, oldest first (by date when the feed has dates, else the feed's order reversed). */
export async function itemsOf(xml: string): Promise<SourceItem[]> {
  // Loaded on the first feed read, not at start.
  const parser = await import('@rowanmanning/feed-parser');
  let feed: ReturnType<typeof parseFeed>;
  try {
    feed = parser.parseFeed(xml);
  } catch (error) {
    throw new FeedFailure('feed_invalid', `The feed could not be parsed: ${(error as Error).message}`);
  }
  const items: SourceItem[] = [];
  for (const item of feed.items) {
    const url = item.url ? normaliseUrl(item.url) : null;
    const key = item.id ? `guid:${item.id}` : url ? `url:${url}` : null;
    if (!key) continue; // an item with neither cannot be told from the next poll's: it is left out
    const text = (await textOf(item.content ?? item.description)) || item.title || '';
    const summary = (await textOf(item.description)) || text;
    items.push({
      key: key.slice(0, 2000),
      title: item.title?.trim() || null,
      url,
      summary: summary ? summary.slice(0, SUMMARY_CHARS) : null,
      text,
      author: item.authors[0]?.name ?? null,
      image: item.image?.url ?? item.mediaImages[0]?.url ?? null,
      published: item.published ?? item.updated ?? null,
    });
  }
  const dated = items.every((i) => i.published !== null);
  return dated ? items.sort((a, b) => a.published!.getTime() - b.published!.getTime()) : items.reverse();
}

/** GETs the feed through the guard and parses it. */
export async function readFeed(url: string, caps: FeedCaps): Promise<SourceItem[]> {
  const { sink, cleanup } = await temporarySink();
  try {
    let fetched: Awaited<ReturnType<typeof fetchToSink>>;
    try {
      fetched = await fetchToSink(url, caps, sink);
    } catch (error) {
      if (error instanceof FetchFailure) throw new FeedFailure('feed_unreachable', error.message);
      throw error;
    }
    return await itemsOf(await readFile(fetched.file, 'utf8'));
  } finally {
    await cleanup();
  }
}
