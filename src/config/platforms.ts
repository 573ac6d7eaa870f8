// Settings of the platforms: the simulated ones (sandbox), the API hosts and versions of the real ones, the OAuth
// apps Herald signs users in with, and connect links.
import { LINKEDIN_DEFAULT_VERSION } from '../platforms/linkedin/version.ts';
import { baseUrl, flag, integer, text } from './parsers.ts';
import { optionalSetting, setting, type Parser, type Setting } from './setting.ts';

/** Platforms whose OAuth app comes from configuration (`HERALD_<PLATFORM>_CLIENT_ID` / `_CLIENT_SECRET`). */
export const OAUTH_APP_PLATFORMS = [
  'x',
  'linkedin',
  'instagram',
  'facebook',
  'threads',
  'tiktok',
  'youtube',
  'pinterest',
  'googlebusiness',
] as const;
export type OAuthAppPlatform = (typeof OAUTH_APP_PLATFORMS)[number];

const httpUrl = baseUrl(['http:', 'https:']);

/** A LinkedIn-Version: YYYYMM (LinkedIn also takes YYYYMM.NN patch versions). */
const linkedinVersion: Parser<string> = {
  read(raw, name, report) {
    const value = raw.trim();
    if (value === '') return undefined;
    const m = /^(\d{4})(\d{2})(\.\d{2})?$/.exec(value);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) {
      report(
        `${name} must be a LinkedIn API version in YYYYMM form, e.g. ${LINKEDIN_DEFAULT_VERSION} (got "${value}")`,
      );
      return undefined;
    }
    return value;
  },
};

/** `v<major>.<minor>`, as Meta names its Graph API versions. */
const graphVersion: Parser<string> = {
  read(raw, name, report) {
    const value = raw.trim();
    if (value === '') return undefined;
    if (!/^v\d{1,3}\.\d{1,2}$/.test(value)) report(`${name} must look like v23.0 (got "${value}")`);
    return value;
  },
};

export const SANDBOX_SETTINGS = {
  enabled: setting({
    name: 'HERALD_SANDBOX',
    default: true,
    parse: flag,
    description:
      'Serve the simulated platforms under `/sandbox/<platform>` (`off` to disable; test workspaces then cannot publish). Only their platform APIs are served: bodies capped per route, anonymous calls on the anonymous budget, accounts only to flows Herald signs.',
  }),
  url: optionalSetting({
    name: 'HERALD_SANDBOX_URL',
    shownDefault: 'HERALD_PUBLIC_URL/sandbox',
    parse: httpUrl,
    description: 'Where workers reach the simulators of sandbox connections (any Herald API node serves them).',
  }),
  control: setting({
    name: 'HERALD_SANDBOX_CONTROL',
    default: false,
    parse: flag,
    description:
      "Expose the simulators' control surface (`/_sandbox/faults`, `/_sandbox/posts`, `/_sandbox/reset`); for test rigs only.",
  }),
  rateLimitFactor: setting({
    name: 'HERALD_SANDBOX_RATE_LIMIT_FACTOR',
    default: 1,
    parse: integer(1, 1_000_000),
    description: 'Multiplies every simulated rate limit (raise it for load tests).',
  }),
};

export const PLATFORM_API_SETTINGS = {
  xApiUrl: setting({
    name: 'HERALD_X_API_URL',
    default: 'https://api.x.com',
    parse: httpUrl,
    description: 'X API host for real X connections.',
  }),
  xClientId: optionalSetting({
    name: 'HERALD_X_CLIENT_ID',
    parse: text,
    description:
      'OAuth 2.0 client id of your X app (connect links and token refresh of real X connections). Unset: live workspaces cannot connect X accounts.',
  }),
  xClientSecret: optionalSetting({
    name: 'HERALD_X_CLIENT_SECRET',
    parse: text,
    description: 'OAuth 2.0 client secret of your X app (confidential clients).',
  }),
  blueskyServiceUrl: setting({
    name: 'HERALD_BLUESKY_SERVICE_URL',
    default: 'https://bsky.social',
    parse: httpUrl,
    description: 'Default PDS for `herald connections add bluesky` without `--service`.',
  }),
  pinterestApiUrl: setting({
    name: 'HERALD_PINTEREST_API_URL',
    default: 'https://api.pinterest.com',
    parse: httpUrl,
    description:
      "Pinterest API host for real Pinterest connections. An app with trial access may create Pins only through Pinterest's API Sandbox: set `https://api-sandbox.pinterest.com` (its Pins are visible only to their pinner) until the app has standard access.",
  }),
  linkedinApiUrl: setting({
    name: 'HERALD_LINKEDIN_API_URL',
    default: 'https://api.linkedin.com',
    parse: httpUrl,
    description: 'LinkedIn API host for real LinkedIn connections.',
  }),
  linkedinVersion: setting({
    name: 'HERALD_LINKEDIN_VERSION',
    default: LINKEDIN_DEFAULT_VERSION,
    parse: linkedinVersion,
    description:
      'The `LinkedIn-Version` (YYYYMM) sent on every LinkedIn REST call. LinkedIn retires each version about a year after its release; then targets fail with `PLATFORM_API_VERSION_RETIRED` until this is set to an active one.',
  }),
  linkedinClientId: optionalSetting({
    name: 'HERALD_LINKEDIN_CLIENT_ID',
    parse: text,
    description: 'Client id of your LinkedIn app (connecting real LinkedIn accounts, token refresh).',
  }),
  linkedinClientSecret: optionalSetting({
    name: 'HERALD_LINKEDIN_CLIENT_SECRET',
    parse: text,
    description: 'Client secret of your LinkedIn app.',
  }),
};

export const META_SETTINGS = {
  graphVersion: setting({
    name: 'HERALD_META_GRAPH_VERSION',
    default: 'v23.0',
    parse: graphVersion,
    description:
      'Graph API version Herald speaks to Meta (Instagram, Facebook Pages), e.g. `v23.0`; raise it when Meta retires the one in use. Threads has its own `v1.0`.',
  }),
};

interface OAuthAppSettings {
  clientId: Setting<string | undefined>;
  clientSecret: Setting<string | undefined>;
}

/** The client id and secret of a platform without settings of its own worded apart (X and LinkedIn have). */
function appSettings(platform: OAuthAppPlatform, shownName: string): OAuthAppSettings {
  const prefix = `HERALD_${platform.toUpperCase()}`;
  return {
    clientId: optionalSetting({
      name: `${prefix}_CLIENT_ID`,
      parse: text,
      description: `Client id of your ${shownName} app. Unset: live workspaces cannot connect ${shownName} accounts (test workspaces use the simulator).`,
    }),
    clientSecret: optionalSetting({
      name: `${prefix}_CLIENT_SECRET`,
      parse: text,
      description: `Client secret of your ${shownName} app.`,
    }),
  };
}

/** The Meta platforms' apps, in the order the configuration table lists them. */
export const META_APP_SETTINGS = {
  instagram: appSettings('instagram', 'Instagram'),
  facebook: appSettings('facebook', 'Facebook'),
  threads: appSettings('threads', 'Threads'),
};

export const OAUTH_APP_SETTINGS: Record<OAuthAppPlatform, OAuthAppSettings> = {
  x: { clientId: PLATFORM_API_SETTINGS.xClientId, clientSecret: PLATFORM_API_SETTINGS.xClientSecret },
  linkedin: {
    clientId: PLATFORM_API_SETTINGS.linkedinClientId,
    clientSecret: PLATFORM_API_SETTINGS.linkedinClientSecret,
  },
  ...META_APP_SETTINGS,
  tiktok: appSettings('tiktok', 'TikTok'),
  youtube: appSettings('youtube', 'YouTube'),
  pinterest: appSettings('pinterest', 'Pinterest'),
  googlebusiness: appSettings('googlebusiness', 'Google Business Profile'),
};

export const CONNECT_LINK_SETTINGS = {
  ttlSeconds: setting({
    name: 'HERALD_CONNECT_LINK_TTL_SECONDS',
    default: 1800,
    parse: integer(60, 86_400),
    description: 'How long a connect link stays usable (60 s to 1 day); it works once.',
  }),
};
