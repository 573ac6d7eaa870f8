// What the Meta adapters signed in with Meta-style OAuth (Instagram Login, Threads) share: the code exchange for
// a short-lived token followed by the long-lived exchange, the refresh of a long-lived token, the credentials
// built from a token answer, a 4xx from a token endpoint read as "sign in again", and the sandbox's sign-in
// (authorize with `sandbox_username`, then the same exchange). The platform's name, paths and grant types are
// parameters.
import { randomBytes } from 'node:crypto';
import type { PlatformHttp } from '../http-contract.ts';
import { isPlatformError, PlatformError, type Credentials } from '../types.ts';
import type { GraphClient } from './graph.ts';

/** How long a long-lived token lives when the answer does not say (60 days). */
export const LONG_LIVED_SECONDS = 60 * 86_400;

/** A 4xx from a token endpoint means the code or token is no good: the user must sign in again. */
export function asAuthFailure(platform: string, error: unknown, what: string): unknown {
  if (
    isPlatformError(error) &&
    error.platformStatus !== undefined &&
    error.platformStatus >= 400 &&
    error.platformStatus < 500 &&
    error.kind !== 'rate_limited'
  ) {
    return new PlatformError(
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
      `${platform} refused ${what}: ${error.message}`,
      { platformStatus: error.platformStatus, platformBody: error.platformBody },
    );
  }
  return error;
}

export function credentialsOf(accessToken: string, expiresIn: number | undefined, now: number): Credentials {
  return {
    accessToken,
    refreshToken: null,
    expiresAt: new Date(now + (expiresIn ?? LONG_LIVED_SECONDS) * 1000).toISOString(),
  };
}

export interface CodeExchange {
  platform: string;
  /** Where the code is exchanged (a path on the Graph host, or a full URL). */
  tokenPath: string;
  /** The grant type of the long-lived exchange (`ig_exchange_token`, `th_exchange_token`). */
  exchangeGrant: string;
  /** The short-lived token in the code exchange's answer. */
  shortToken(body: Record<string, unknown>): string;
}

/** Code → short-lived token → long-lived token. */
export async function exchangeCode(
  g: GraphClient,
  spec: CodeExchange,
  code: string,
  redirectUri: string,
  app: { id: string; secret: string },
): Promise<Credentials> {
  let short: string;
  try {
    const body = await g.call<Record<string, unknown>>({
      method: 'POST',
      path: spec.tokenPath,
      unversioned: true,
      params: {
        client_id: app.id,
        client_secret: app.secret,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code: code.replace(/#_$/, ''),
      },
    });
    short = spec.shortToken(body);
  } catch (error) {
    throw asAuthFailure(spec.platform, error, 'the authorization code');
  }
  try {
    const long = await g.call<{ access_token: string; expires_in?: number }>({
      method: 'GET',
      path: '/access_token',
      unversioned: true,
      params: { grant_type: spec.exchangeGrant, client_secret: app.secret },
      token: short,
    });
    return credentialsOf(long.access_token, long.expires_in, Date.now());
  } catch (error) {
    throw asAuthFailure(spec.platform, error, 'the long-lived token exchange');
  }
}

/** A long-lived token refreshed (`ig_refresh_token`, `th_refresh_token`). */
export async function refreshToken(
  g: GraphClient,
  platform: string,
  grant: string,
  token: string,
  now: () => number,
): Promise<Credentials> {
  try {
    const body = await g.call<{ access_token: string; expires_in?: number }>({
      method: 'GET',
      path: '/refresh_access_token',
      unversioned: true,
      params: { grant_type: grant },
      token,
    });
    return credentialsOf(body.access_token, body.expires_in, now());
  } catch (error) {
    throw asAuthFailure(platform, error, 'to refresh the token');
  }
}

/** The sandbox's authorize answered at once for `sandbox_username`: the code and the redirect it was made for. */
export async function sandboxCode(
  http: PlatformHttp,
  platform: string,
  query: (redirect: string, state: string) => Record<string, string>,
): Promise<{ code: string; redirect: string }> {
  const state = randomState();
  const redirect = 'http://127.0.0.1/herald/oauth/callback';
  const authorize = await http.request({ method: 'GET', path: '/oauth/authorize', query: query(redirect, state) });
  const location = authorize.headers.location;
  const back = typeof location === 'string' ? new URL(location) : undefined;
  if (authorize.status !== 302 || !back || back.searchParams.get('state') !== state || !back.searchParams.get('code')) {
    throw new PlatformError(
      'permanent',
      'PLATFORM_REJECTED',
      `The ${platform} sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`,
    );
  }
  return { code: back.searchParams.get('code')!, redirect };
}

function randomState(): string {
  return randomBytes(12).toString('base64url');
}
