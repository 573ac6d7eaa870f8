// The public page of a simulated post, shown the way its platform would show it: the account (name and handle),
// the text with its links, mentions and hashtags live, the images and videos, every part of a thread in order,
// and the time. One renderer for every simulator; each passes what its platform shows and its own colours.
import type { FastifyReply } from 'fastify';

export interface PagePart {
  text: string;
  /** Public URLs of the part's media (the simulator serves them), with their kind and alt text. */
  media: Array<{ url: string; kind: 'image' | 'video'; alt?: string | null }>;
  createdAt: number;
  /** This part's own URL (a thread's later parts link to themselves). */
  url?: string;
}

export interface PostPage {
  /** The platform's display name ("X", "LinkedIn", "Mastodon" …). */
  platform: string;
  /** The accent colour of the platform's brand, for the header and links. */
  accent: string;
  account: { name: string; handle: string; url?: string };
  /** The post, then any thread parts in order (replies by the same account). */
  parts: PagePart[];
  /** What the platform calls a post, for the title ("Post", "Status", "Skeet" …). */
  noun?: string;
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text as a platform shows it: URLs, @mentions and #hashtags as links, line breaks kept. Escaped first. */
export function linkify(text: string, accent: string): string {
  const style = `style="color:${accent}"`;
  // One pass, so a mention inside a URL stays part of the URL instead of being marked up inside its `href`.
  return escape(text)
    .replace(
      /(https?:\/\/[^\s<]+[^\s<.,;:!?)'"])|(^|[\s(])([@#][\p{L}\p{N}_.]*[\p{L}\p{N}_])/gu,
      (_m, url: string | undefined, lead: string | undefined, tag: string | undefined) =>
        url ? `<a ${style} href="${url}" rel="nofollow">${url}</a>` : `${lead}<b ${style}>${tag}</b>`,
    )
    .replace(/\n/g, '<br>');
}

function partHtml(page: PostPage, part: PagePart, index: number): string {
  const media = part.media
    .map((m) =>
      m.kind === 'video'
        ? `<video controls preload="none" src="${escape(m.url)}"></video>`
        : `<img src="${escape(m.url)}" alt="${escape(m.alt ?? '')}" loading="lazy">`,
    )
    .join('');
  const time = new Date(part.createdAt).toISOString();
  const when = `<time datetime="${time}">${time.slice(0, 16).replace('T', ' ')} UTC</time>`;
  return `<article class="part" id="part-${index + 1}">
<header><strong>${escape(page.account.name)}</strong> <span class="handle">${escape(page.account.handle)}</span></header>
<p>${linkify(part.text, page.accent)}</p>${media ? `<div class="media">${media}</div>` : ''}
<footer>${part.url ? `<a href="${escape(part.url)}">${when}</a>` : when}${page.parts.length > 1 ? ` · ${index + 1}/${page.parts.length}` : ''}</footer>
</article>`;
}

/** The page's HTML. */
export function postPageHtml(page: PostPage): string {
  const first = page.parts[0];
  const title = `${page.account.name} on ${page.platform} (sandbox)${first ? `: “${first.text.slice(0, 60)}”` : ''}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escape(title)}</title>
<style>body{font:16px/1.45 system-ui,sans-serif;margin:0;background:#f5f6f7;color:#111}
.bar{background:${page.accent};color:#fff;padding:.6em 1em;font-weight:600}
main{max-width:36em;margin:1em auto;padding:0 1em}.part{background:#fff;border:1px solid #ddd;border-radius:12px;padding:1em;margin:0 0 .75em}
.handle,footer{color:#666;font-size:.9em}.media{display:grid;gap:4px;grid-template-columns:repeat(auto-fit,minmax(10em,1fr))}
.media img,.media video{width:100%;border-radius:8px}footer a{color:inherit}</style></head>
<body><div class="bar">${escape(page.platform)} · sandbox</div><main>
${page.parts.map((part, i) => partHtml(page, part, i)).join('\n')}
<p class="handle">A simulated ${escape((page.noun ?? 'post').toLowerCase())} in Herald's ${escape(page.platform)} sandbox: nothing was published on ${escape(page.platform)}.</p>
</main></body></html>`;
}

/** Sends the page. */
export function sendPostPage(reply: FastifyReply, page: PostPage): FastifyReply {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(postPageHtml(page));
}

/** The answer for a post the sandbox does not hold (never had, or deleted). */
export function sendMissingPost(reply: FastifyReply, platform: string): FastifyReply {
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found · ${escape(platform)} sandbox</title></head><body><main><h1>This post does not exist in the ${escape(platform)} sandbox</h1><p>It was deleted, or it was never published here.</p></main></body></html>`,
    );
}
