// What a connect flow carries from one request to the next: the link's sealed secrets (PKCE verifier, app,
// accounts awaiting a choice), the cookie binding a consent to its browser, and the step the browser is on.
import { createHash } from 'node:crypto';
import type { Pool } from '../../db/pool.ts';
import { decrypt, encrypt, hmac } from '../../lib/crypto.ts';
import type { ConnectableAccount, OAuthApp } from '../../platforms/types.ts';
import { ConnectFlowError } from './connect.platform.ts';
import type { ConnectLinkRow } from './connect.repo.ts';
import type { ConnectionRow } from './connections.repo.ts';
import type { PlatformAccess } from './platform-access.ts';

const SECRETS = 'connect-link';

export interface ConnectDeps {
  pool: Pool;
  access: PlatformAccess;
  ttlSeconds: number;
}

export interface LinkSecrets {
  verifier: string | null;
  app: OAuthApp;
  accounts?: ConnectableAccount[];
}

/** States Herald issues are base64url; anything else (a NUL byte, 3 kB of junk) is refused before the database. */
export const wellFormed = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9_-]{16,128}$/.test(value);
export const sha = (token: string) => createHash('sha256').update(token).digest();

export function seal(access: PlatformAccess, secrets: LinkSecrets): Buffer {
  return encrypt(access.keyring, SECRETS, JSON.stringify(secrets));
}

export function unseal(access: PlatformAccess, link: ConnectLinkRow): LinkSecrets {
  if (!link.secrets) throw new ConnectFlowError('link_used', 'This connect link was already used.', link);
  return JSON.parse(decrypt(access.keyring, SECRETS, link.secrets).toString('utf8')) as LinkSecrets;
}

/** The value of the cookie that ties a consent to the browser that started it (RFC 6749 §10.12). */
export function browserBinding(access: PlatformAccess, state: string): string {
  return hmac(access.keyring, 'connect-browser', state);
}

export type LandingStep =
  | { kind: 'redirect'; location: string; binding: string }
  | { kind: 'server'; link: ConnectLinkRow }
  | { kind: 'password'; link: ConnectLinkRow; labels: { identifier: string; password: string; server: boolean } }
  | { kind: 'choose'; link: ConnectLinkRow; accounts: ConnectableAccount[]; state: string };

export type DoneStep = { kind: 'done'; link: ConnectLinkRow; connection: ConnectionRow };
