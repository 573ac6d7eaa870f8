// Google's OAuth 2.0 for Business Profile (docs/platforms/googlebusiness.md "Auth"): authorization code with PKCE
// (S256), `access_type=offline` and `prompt=consent` so the exchange returns a refresh token; one scope,
// `business.manage`; access tokens of an hour; refresh tokens that do not rotate (a refresh answers with an access
// token only); revocation at oauth2.googleapis.com/revoke. A consent covers every location of every account the user
// manages: each location is one connectable account, and the connection keeps the one chosen in its settings.
import { createHash, randomBytes } from 'node:crypto';
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  type AccountInfo,
  type ConnectableAccount,
  type Credentials,
  type OAuthCapability,
  type SandboxAccount,
} from '../types.ts';
import { credentialsFrom, googleOAuth } from '../google/oauth.ts';
import * as client from './client.ts';

export const SCOPES = ['https://www.googleapis.com/auth/business.manage'];
/** The client id a sandbox sign-in uses when no app is configured (the simulator takes any). */
export const SANDBOX_CLIENT = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' };

/** What a connection keeps of its location (`connection.settings`). */
export interface LocationSettings {
  /** `accounts/{a}`. */
  account: string;
  /** `locations/{l}`. */
  location: string;
  location_title: string;
}

/** The connection's account for one location: its id is the location's v4 parent, `accounts/{a}/locations/{l}`. */
export function locationAccount(account: string, location: client.GbpLocation): AccountInfo {
  const title = location.title ?? location.name;
  const locality = location.storefrontAddress?.locality;
  const settings: LocationSettings = { account, location: location.name, location_title: title };
  return {
    accountId: `${account}/${location.name}`,
    handle: title,
    displayName: locality ? `${title} (${locality})` : title,
    avatarUrl: null,
    settings: { ...settings },
  };
}

/** Every location of every account the credentials manage, each a connectable account. */
export async function locationsOf(
  http: PlatformHttp,
  sandbox: boolean,
  credentials: Credentials,
): Promise<ConnectableAccount[]> {
  const out: ConnectableAccount[] = [];
  for (const account of await client.listAccounts(http, sandbox, credentials.accessToken))
    for (const location of await client.listLocations(http, sandbox, credentials.accessToken, account.name))
      out.push({ account: locationAccount(account.name, location), credentials });
  if (out.length === 0)
    throw new PlatformError(
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
      'This Google account manages no Business Profile location; add or claim one at business.google.com, then connect again.',
    );
  return out;
}

export function googlebusinessOAuth(): OAuthCapability {
  return googleOAuth({
    scopes: SCOPES,
    calls: client,
    accounts: (ctx, credentials) => locationsOf(ctx.http, ctx.sandbox, credentials),
  });
}

/** The sign-in against the simulator: authorize as `username`, exchange the code, take the first location. */
export async function connectSandbox(
  http: PlatformHttp,
  app: { id: string; secret: string },
  { username, workspace }: { username: string; workspace?: string },
): Promise<SandboxAccount> {
  const verifier = randomBytes(48).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const redirect = 'http://127.0.0.1/herald/oauth/callback';
  const authorize = await http.request({
    method: 'GET',
    path: '/o/oauth2/v2/auth',
    query: {
      response_type: 'code',
      client_id: app.id,
      redirect_uri: redirect,
      scope: SCOPES.join(' '),
      access_type: 'offline',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      sandbox_username: username,
      ...(workspace ? { sandbox_ws: workspace } : {}),
    },
  });
  const location = typeof authorize.headers.location === 'string' ? new URL(authorize.headers.location) : undefined;
  const code = location?.searchParams.get('code');
  if (authorize.status !== 302 || !code || location?.searchParams.get('state') !== state)
    throw new PlatformError(
      'permanent',
      'PLATFORM_REJECTED',
      `The Google Business Profile sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`,
    );
  const credentials = credentialsFrom(
    await client.token(http, true, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
      client_id: app.id,
      client_secret: app.secret,
    }),
    new Date(),
  );
  const [first] = await locationsOf(http, true, credentials);
  return { account: first!.account, credentials };
}
