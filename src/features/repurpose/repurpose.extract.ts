// Where a repurpose job's text comes from (docs/repurpose.md "Sources"): an article fetched through the SSRF guard
// with the media fetch's size and time caps (media.fetch.ts, the one guarded fetcher) and read by Mozilla
// Readability over a linkedom DOM; pasted text; a Herald post; a video's caller-supplied transcript.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Queryable } from '../../db/pool.ts';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import { fetchToSink, FetchFailure, temporarySink } from '../media/media.fetch.ts';
import { findPost } from '../posts/posts.repo.ts';
import type { SourceSnapshot } from './repurpose.repo.ts';
import type { RepurposeSource } from './repurpose.schemas.ts';

/** The largest page read: an article's HTML is rarely past 1 MB; the cap keeps a hostile page from filling memory. */
export const MAX_HTML_BYTES = 2 * 1024 * 1024;
/** The snapshot's excerpt: enough for a person to recognise the source. */
const EXCERPT_CHARS = 280;

export interface SourceText {
  title: string | null;
  text: string;
  /** The page's own address (after redirects), the link of a `url` source. */
  url: string | null;
  snapshot: SourceSnapshot;
}

/** A source that cannot be read; its message is the job's `error.message` (code `source_unreadable`). */
export class SourceFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'SourceFailure';
    this.code = code;
  }
}

export interface FetchCaps {
  guard: OutboundGuard;
  maxBytes: number;
  timeoutMs: number;
}

/** An article is a page, not a download: its fetch gets at most this long, or the media fetch's cap if shorter. */
export const MAX_HTML_SECONDS = 30;

/** The caps a job's fetch runs under: the media fetch's time cap (HERALD_MEDIA_FETCH_TIMEOUT_SECONDS) up to 30 s. */
export function repurposeFetchCaps(guard: OutboundGuard, mediaFetchTimeoutSeconds: number): FetchCaps {
  return { guard, maxBytes: MAX_HTML_BYTES, timeoutMs: Math.min(mediaFetchTimeoutSeconds, MAX_HTML_SECONDS) * 1000 };
}

function snapshotOf(title: string | null, text: string, now: Date): SourceSnapshot {
  const flat = text.replace(/\s+/g, ' ').trim();
  return {
    title,
    excerpt: flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS - 1).replace(/\s+\S*$/, '')}…` : flat,
    sha256: createHash('sha256').update(text).digest('hex'),
    fetched_at: now.toISOString(),
  };
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/**
 * The article of an HTML page: Readability's title and text content, paragraphs kept as line breaks. The two
 * libraries load on the first article (about 32 MiB that a server which never repurposes a URL does not carry).
 */
export async function extractArticle(html: string, url: string): Promise<{ title: string | null; text: string }> {
  const [{ Readability }, { parseHTML }] = await Promise.all([import('@mozilla/readability'), import('linkedom')]);
  const { document } = parseHTML(html);
  // Readability resolves relative links against the document's URL; linkedom has none, so a <base> gives it one.
  if (!document.querySelector('base')) {
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head?.appendChild(base);
  }
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  const paragraphs = article?.content
    ? [
        ...parseHTML(`<html><body>${article.content}</body></html>`).document.querySelectorAll(
          'p, li, h2, h3, blockquote',
        ),
      ]
        .map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim())
        .filter(Boolean)
    : [];
  const text = paragraphs.length > 0 ? paragraphs.join('\n\n') : (article?.textContent ?? '').trim();
  return { title: article?.title?.trim() || null, text };
}

/** GETs the page through the guard and extracts its article. */
export async function fetchArticle(url: string, caps: FetchCaps, now: () => Date): Promise<SourceText> {
  const { sink, cleanup } = await temporarySink();
  try {
    let fetched: Awaited<ReturnType<typeof fetchToSink>>;
    try {
      fetched = await fetchToSink(url, caps, sink);
    } catch (error) {
      if (error instanceof FetchFailure) throw new SourceFailure('source_unreachable', error.message);
      throw error;
    }
    if (!fetched.contentType || !HTML_TYPES.test(fetched.contentType))
      throw new SourceFailure(
        'source_not_html',
        `The URL answered ${fetched.contentType ?? 'without a Content-Type'}; Herald reads HTML pages (text/html).`,
      );
    const html = await readFile(fetched.file, 'utf8');
    const article = await extractArticle(html, fetched.finalUrl);
    if (article.text.trim().length === 0)
      throw new SourceFailure('source_empty', 'No article text could be found on the page.');
    return { ...article, url: fetched.finalUrl, snapshot: snapshotOf(article.title, article.text, now()) };
  } finally {
    await cleanup();
  }
}

/** The text of a live post: its content and its thread parts, as written. */
async function postText(db: Queryable, workspaceId: string, postId: string): Promise<string | undefined> {
  const post = await findPost(db, workspaceId, postId);
  if (!post) return undefined;
  const options = Object.values(post.platform_options ?? {}) as { thread?: string[] }[];
  const thread = options.find((o) => (o?.thread?.length ?? 0) > 0)?.thread ?? [];
  return [post.content, ...thread].filter((t) => t.trim()).join('\n\n');
}

/** Reads the job's source; throws SourceFailure when it cannot be read. */
export async function readSource(
  deps: { db: Queryable; caps: FetchCaps; now: () => Date },
  workspaceId: string,
  source: RepurposeSource,
): Promise<SourceText> {
  switch (source.type) {
    case 'url':
      return fetchArticle(source.url!, deps.caps, deps.now);
    case 'post': {
      const text = await postText(deps.db, workspaceId, source.post_id!);
      if (!text) throw new SourceFailure('source_missing', `Post ${source.post_id} no longer exists or has no text.`);
      return { title: null, text, url: null, snapshot: snapshotOf(null, text, deps.now()) };
    }
    case 'text':
    case 'media': {
      const text = (source.type === 'text' ? source.text : source.transcript)!;
      const title = source.title?.trim() || null;
      return { title, text, url: null, snapshot: snapshotOf(title, text, deps.now()) };
    }
  }
}
