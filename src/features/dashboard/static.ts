// Serves the dashboard's build (web/dist, made by `npm run build:web`) at /app: a file when the path names one, else
// index.html so the single-page app routes the rest. Hashed assets (/app/assets/*) are cached for a year; everything
// else is revalidated. A missing build answers a page that says how to make it, never a bare 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../app/errors.ts';

/** The build Herald serves, relative to this checkout. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Only this origin, for everything: the dashboard talks to Herald's own API and loads nothing from elsewhere.
 * Images may also be data:/blob: URLs (previews of a file being uploaded).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "style-src 'self'",
  "script-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  // Invite links carry their token in the path: never send it on as a Referer.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Herald dashboard not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
</head><body><h1>The dashboard is not built</h1>
<p>This Herald has no <code>web/dist</code>. Build it once with <code>npm run build:web</code> (an
<code>npm install</code> does it too), then reload this page. The API under <code>/v1</code> works without it.</p>
</body></html>`;

async function fileAt(root: string, relative: string): Promise<string | undefined> {
  const full = path.resolve(root, relative);
  // Never outside the build (`..`, encoded or not, and absolute paths resolve elsewhere).
  if (full !== root && !full.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) return undefined;
  try {
    return (await stat(full)).isFile() ? full : undefined;
  } catch {
    return undefined;
  }
}

function send(reply: FastifyReply, file: string, cache: string): FastifyReply {
  return reply
    .headers(SECURITY_HEADERS)
    .header('cache-control', cache)
    .type(CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream')
    .send(createReadStream(file));
}

export function registerDashboard(app: FastifyInstance, options: { dist?: string } = {}): void {
  const root = path.resolve(options.dist ?? DASHBOARD_DIST);

  async function serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const wildcard = (request.params as { '*'?: string })['*'] ?? '';
    if (wildcard === 'api' || wildcard.startsWith('api/'))
      throw new AppError('PUBLIC_API_ROUTE_NOT_FOUND', 'No such dashboard API route.');
    const index = await fileAt(root, 'index.html');
    if (!index)
      return reply
        .code(503)
        .headers(SECURITY_HEADERS)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(NOT_BUILT);
    let relative: string;
    try {
      relative = decodeURIComponent(wildcard);
    } catch {
      relative = '';
    }
    if (relative !== '' && !relative.includes('\u0000')) {
      const file = await fileAt(root, relative);
      if (file)
        return send(reply, file, relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      // A missing file (a stale asset name) is a 404, not the app: a script tag must not get HTML.
      if (path.extname(relative) !== '')
        return reply.code(404).headers(SECURITY_HEADERS).type('text/plain; charset=utf-8').send('Not found.\n');
    }
    return send(reply, index, 'no-cache');
  }

  app.get('/app', { schema: { hide: true } }, (_request, reply) => reply.redirect('/app/', 308));
  app.get('/app/*', { schema: { hide: true } }, serve);
}
