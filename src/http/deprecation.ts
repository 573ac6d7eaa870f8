// Deprecated routes (docs/versioning.md): a route declares `config: { deprecated: { since, sunset?, link? } }` and
// every response it sends, errors included, carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594) when a removal
// date is set, and a `Link` to the migration notes; the OpenAPI document marks the operation `deprecated: true`.
import type { FastifyInstance, onSendHookHandler } from 'fastify';

export interface RouteDeprecation {
  /** When the route was deprecated: an ISO 8601 date or time. */
  since: string;
  /** When it may be removed (at least the deprecation period of docs/versioning.md after `since`). */
  sunset?: string;
  /** Where the change and its replacement are described. */
  link?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    deprecated?: RouteDeprecation;
  }
}

/** The headers a deprecated route sends; throws on a date that does not parse (a wiring mistake, caught at boot). */
export function deprecationHeaders(d: RouteDeprecation): Record<string, string> {
  const since = Date.parse(d.since);
  if (Number.isNaN(since)) throw new Error(`deprecated.since is not a date: ${d.since}`);
  // RFC 9745: a Structured Field Date, `@` and Unix seconds.
  const headers: Record<string, string> = { deprecation: `@${Math.floor(since / 1000)}` };
  const links: string[] = [];
  if (d.link) links.push(`<${d.link}>; rel="deprecation"; type="text/html"`);
  if (d.sunset !== undefined) {
    const sunset = Date.parse(d.sunset);
    if (Number.isNaN(sunset)) throw new Error(`deprecated.sunset is not a date: ${d.sunset}`);
    if (sunset < since) throw new Error(`deprecated.sunset ${d.sunset} is before deprecated.since ${d.since}`);
    // RFC 8594: an HTTP-date.
    headers.sunset = new Date(sunset).toUTCString();
    if (d.link) links.push(`<${d.link}>; rel="sunset"; type="text/html"`);
  }
  if (links.length > 0) headers.link = links.join(', ');
  return headers;
}

/**
 * Call before any route is registered: a route declaring `deprecated` gets its own onSend hook, which puts the
 * headers on every response it sends (errors included); other routes carry no hook at all.
 */
export function registerDeprecation(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const d = (route.config as { deprecated?: RouteDeprecation } | undefined)?.deprecated;
    if (!d) return;
    const headers = deprecationHeaders(d);
    const hook: onSendHookHandler = async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(headers)) {
        const existing = reply.getHeader(name);
        reply.header(name, name === 'link' && existing ? `${String(existing)}, ${value}` : value);
      }
      return payload;
    };
    const own = route.onSend;
    route.onSend = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook];
  });
}
