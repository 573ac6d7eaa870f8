// Server-rendered pages (sign-in, consent): an `html` template tag that escapes every interpolated value unless
// it is already markup, one page layout, and the security headers every such page is sent with.
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../lib/escape-html.ts';

/** Markup that is safe to insert as is (built by `html`, never from user input). */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<p>${name}</p>\``: interpolated strings are escaped; SafeHtml values and arrays of them are inserted. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1c1c1e;--muted:#6b6b70;--line:#d8d8dc;--accent:#3246d3;--bg:#fff;--card:#f7f7f9;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--fg:#ececf0;--muted:#a0a0a8;--line:#3a3a40;--accent:#8c9bff;--bg:#121214;--card:#1c1c20;--bad:#ff8a80}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:34rem;margin:3rem auto;padding:0 1.25rem}h1{font-size:1.4rem;margin:0 0 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.5rem}
label{display:block;font-weight:600;margin:1rem 0 .35rem}input[type=email],input[type=password],select{width:100%;padding:.6rem .7rem;border:1px solid var(--line);border-radius:8px;font:inherit;background:var(--bg);color:var(--fg)}
.scope{display:flex;gap:.6rem;align-items:flex-start;margin:.5rem 0;font-weight:400}.scope input{margin-top:.3rem}.scope code{font-weight:600}
.muted{color:var(--muted);font-size:.92rem}.error{color:var(--bad);font-weight:600}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.6rem 1.1rem;border-radius:8px;border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}code{font-size:.9em}`;

export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title} · Herald</title><style>${new SafeHtml(STYLE)}</style></head>
<body><main>${body}</main></body></html>`.value;
}

/**
 * Sends a page with headers that keep it from being framed (clickjacking a consent button), cached or leaking
 * its URL. `formTargets` are the origins a form on the page may end up at (the consent form redirects to the
 * client); browsers apply `form-action` to those redirects.
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  title: string,
  body: SafeHtml,
  formTargets: string[] = [],
): FastifyReply {
  const formAction = ["'self'", ...formTargets].join(' ');
  return reply
    .code(status)
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(title, body));
}
