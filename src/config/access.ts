// Settings of who and what may reach Herald and where Herald may reach: the outbound allowlist, MCP browser
// origins, OAuth token and grant lifetimes, and browser sign-ins.
import { integer, list, origins } from './parsers.ts';
import { setting } from './setting.ts';

export const ACCESS_SETTINGS = {
  outboundAllowlist: setting({
    name: 'HERALD_OUTBOUND_ALLOWLIST',
    default: [],
    parse: list,
    description:
      'Comma-separated hostnames, IPs or CIDRs that user-chosen destinations (webhooks, Mastodon/Bluesky instances, media URLs) may reach although they are private or loopback; plain `http://` is accepted only for these.',
  }),
  mcpAllowedOrigins: setting({
    name: 'HERALD_MCP_ALLOWED_ORIGINS',
    default: [],
    parse: origins,
    description:
      "Comma-separated browser origins (e.g. `https://app.example.com`) allowed to call `/mcp` besides the public URL's own; a request with any other `Origin` header gets 403.",
  }),
  oauthAccessTokenTtlSeconds: setting({
    name: 'HERALD_OAUTH_ACCESS_TOKEN_TTL_SECONDS',
    default: 3600,
    parse: integer(60, 7 * 86_400),
    description: 'Life of the API key an OAuth client receives as its access token; a refresh replaces it.',
  }),
  oauthGrantTtlDays: setting({
    name: 'HERALD_OAUTH_GRANT_TTL_DAYS',
    default: 30,
    parse: integer(1, 3650),
    description: 'Life of an OAuth grant (what a person consented to): after it, the client must ask the person again.',
  }),
  sessionTtlHours: setting({
    name: 'HERALD_SESSION_TTL_HOURS',
    default: 168,
    parse: integer(1, 24 * 365),
    description: 'How long a browser sign-in (consent screen, dashboard) lasts.',
  }),
};
