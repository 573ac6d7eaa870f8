// How Herald reaches the platform behind a connection: its base URL (the simulator for a sandbox connection,
// the instance or PDS the user chose, or the platform's configured host), an HTTP client with the SSRF guard
// exactly when the host was user-chosen, and the connection's credentials, sealed at rest with AES-256-GCM.
import type { Clock } from '../../lib/clock.ts';
import { decrypt, encrypt, type SecretKeyring } from '../../lib/crypto.ts';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import { createPlatformHttp, type Transport } from '../../platforms/http.ts';
import { type PlatformHttp } from '../../platforms/http-contract.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { PlatformRegistry } from '../../platforms/registry.ts';
import type { ConnectionInfo, Credentials, OAuthApp, PlatformSession } from '../../platforms/types.ts';
import type { ConnectionRow } from './connections.repo.ts';

const PURPOSE = 'connection-credentials';

export interface PlatformAccess {
  registry: PlatformRegistry;
  keyring: SecretKeyring;
  /** The SSRF guard, for user-chosen hosts only. */
  guard: OutboundGuard;
  /** Where the simulators are reached: `<HERALD_SANDBOX_URL>/<platform>`. */
  sandboxUrl: string;
  /** Configured hosts of platforms with one host (X), and defaults for the others (Bluesky's entryway). */
  platformUrls: Partial<Record<PlatformName, string>>;
  timeoutMs: number;
  clock: Clock;
  /** Overrides how bytes travel (tests); the outbound primitive otherwise. */
  transport?: Transport;
  /** Herald's public origin: connect links and the OAuth callback are built from it. */
  publicUrl?: string;
  /** Whether the simulators are served (test workspaces connect through them). */
  sandboxEnabled?: boolean;
  /** The OAuth app of each platform that has one configured (HERALD_<PLATFORM>_CLIENT_ID/SECRET). */
  apps?: Partial<Record<PlatformName, OAuthApp>>;
}

/** Where a platform's consent screen is, for real accounts ("Auth" of each platform's page in docs/platforms/). */
export const CONSENT_HOSTS: Partial<Record<PlatformName, string>> = {
  x: 'https://x.com',
  linkedin: 'https://www.linkedin.com',
  instagram: 'https://www.instagram.com',
  facebook: 'https://www.facebook.com',
  threads: 'https://threads.net',
  // TikTok's consent screen (`/v2/auth/authorize/`).
  tiktok: 'https://www.tiktok.com',
  youtube: 'https://accounts.google.com', // Google's consent screen (/o/oauth2/v2/auth)
  // Pinterest's consent screen (`/oauth/`).
  pinterest: 'https://www.pinterest.com',
  // Google's consent screen (`/o/oauth2/v2/auth`).
  googlebusiness: 'https://accounts.google.com',
};

export function sealCredentials(keyring: SecretKeyring, credentials: Credentials): Buffer {
  return encrypt(keyring, PURPOSE, JSON.stringify(credentials));
}

export function openCredentials(keyring: SecretKeyring, sealed: Buffer): Credentials {
  return JSON.parse(decrypt(keyring, PURPOSE, sealed).toString('utf8')) as Credentials;
}

export function baseUrlOf(
  access: PlatformAccess,
  row: Pick<ConnectionRow, 'sandbox' | 'platform' | 'server_url'>,
): string {
  if (row.sandbox) return `${access.sandboxUrl}/${row.platform}`;
  const url = row.server_url ?? access.platformUrls[row.platform];
  if (!url) throw new Error(`No API host configured for ${row.platform}`);
  return url;
}

export function httpFor(
  access: PlatformAccess,
  row: Pick<ConnectionRow, 'sandbox' | 'platform' | 'server_url'>,
): PlatformHttp {
  const userChosen = !row.sandbox && row.server_url !== null;
  return createPlatformHttp({
    baseUrl: baseUrlOf(access, row),
    guard: userChosen ? access.guard : undefined,
    timeoutMs: access.timeoutMs,
    transport: access.transport,
    userAgent: 'Herald (+https://github.com/herald)',
  });
}

export function connectionInfo(access: PlatformAccess, row: ConnectionRow): ConnectionInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    handle: row.handle,
    baseUrl: baseUrlOf(access, row),
    settings: row.settings,
    sandbox: row.sandbox,
  };
}

export function sessionFor(access: PlatformAccess, row: ConnectionRow): PlatformSession {
  return {
    connection: connectionInfo(access, row),
    credentials: openCredentials(access.keyring, row.credentials),
    http: httpFor(access, row),
    clock: access.clock,
  };
}
