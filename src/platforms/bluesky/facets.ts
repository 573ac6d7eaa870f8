// Rich-text facets of a Bluesky post (docs/platforms/bluesky.md "Calls"): links, mentions and hashtags, each located
// by UTF-8 byte offsets (start inclusive, end exclusive) — JavaScript strings index UTF-16, so offsets are
// computed on the encoded bytes. A PDS does not detect links itself: without a facet a URL is plain text.
const utf8 = new TextEncoder();

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: Array<Record<string, string>>;
}

/** Byte offset of UTF-16 index `i` in `text`. */
function byteAt(text: string, i: number): number {
  return utf8.encode(text.slice(0, i)).length;
}

const URL_RE = /\bhttps?:\/\/[^\s<>"]+/gi;
// A handle is a domain name; the mention must not be glued to a word before it (an email address).
const MENTION_RE =
  /(^|[\s(])@(([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)\b/g;
// Invisible joiners and the combining keycap are listed on purpose: they may not be part of a tag.
const TAG_RE =
  // eslint-disable-next-line no-misleading-character-class
  /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu;

/** Links, mentions (resolved to DIDs by `resolve`; unresolvable handles stay plain text) and tags. */
export async function detectFacets(
  text: string,
  resolve: (handle: string) => Promise<string | undefined>,
): Promise<Facet[]> {
  const facets: Facet[] = [];
  for (const m of text.matchAll(URL_RE)) {
    // Trailing punctuation is not part of the link ("see https://a.b/c.").
    const uri = m[0].replace(/[.,;:!?)]+$/, '');
    facets.push({
      index: { byteStart: byteAt(text, m.index), byteEnd: byteAt(text, m.index + uri.length) },
      features: [{ $type: 'app.bsky.richtext.facet#link', uri }],
    });
  }
  for (const m of text.matchAll(MENTION_RE)) {
    const start = m.index + m[1]!.length;
    const handle = m[2]!.toLowerCase();
    const did = await resolve(handle);
    if (did)
      facets.push({
        index: { byteStart: byteAt(text, start), byteEnd: byteAt(text, start + 1 + m[2]!.length) },
        features: [{ $type: 'app.bsky.richtext.facet#mention', did }],
      });
  }
  for (const m of text.matchAll(TAG_RE)) {
    if (!m[2]) continue;
    const tag = m[2].replace(/\p{P}+$/u, '');
    if (tag === '' || tag.length > 64) continue;
    const start = m.index + m[1]!.length;
    facets.push({
      index: { byteStart: byteAt(text, start), byteEnd: byteAt(text, start + 1 + tag.length) },
      features: [{ $type: 'app.bsky.richtext.facet#tag', tag }],
    });
  }
  return facets.sort((a, b) => a.index.byteStart - b.index.byteStart);
}
