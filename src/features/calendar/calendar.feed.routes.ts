// The ICS feed URL, outside /v1 (docs/calendar.md "ICS feeds"): `GET /calendar/{token}.ics` with no key, the token
// being the capability. Unknown and revoked tokens get the same 404; the route pattern, never the token, is what
// the access log records. Anonymous: spends the client address's anonymous budget.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { budgetsFor, rateLimitHeaders, type RateLimiter } from '../../app/rate-limit.ts';
import type { Pool } from '../../db/pool.ts';
import { clientIp } from '../../http/access.ts';
import type { CalendarService } from './calendar.service.ts';

/** How long a calendar app may keep a copy before asking again (apps poll hourly or slower anyway). */
const MAX_AGE_SECONDS = 300;

export function registerCalendarFeedRoute(
  app: FastifyInstance,
  deps: {
    pool: Pool;
    calendar: CalendarService;
    rateLimiter: RateLimiter;
    limits: Parameters<typeof budgetsFor>[0];
  },
): void {
  const budget = budgetsFor(deps.limits).anonymous;
  app.get<{ Params: { file: string } }>('/calendar/:file', { schema: { hide: true } }, async (request, reply) => {
    const decision = await deps.rateLimiter.take(clientIp(request), budget);
    const limitHeaders = rateLimitHeaders(decision, budget.name);
    reply.headers(limitHeaders).header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex');
    if (!decision.allowed)
      return reply.code(429).type('text/plain; charset=utf-8').send('Too many requests; retry later.\n');
    const file = request.params.file;
    const body = file.endsWith('.ics') ? await deps.calendar.feeds.ics(deps.pool, file.slice(0, -4)) : null;
    if (body === null)
      return reply
        .code(404)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('No calendar feed at this address: it is unknown or was revoked.\n');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    reply.header('cache-control', `private, max-age=${MAX_AGE_SECONDS}`).header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply
      .type('text/calendar; charset=utf-8')
      .header('content-disposition', 'inline; filename="calendar.ics"')
      .send(body);
  });
}
