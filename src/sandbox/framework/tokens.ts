// Tokens the simulators issue: HS256 JWTs signed with the sandbox secret. Self-contained on purpose: a
// simulator mounted in Herald forgets its memory on restart, yet the sandbox connections' tokens stay valid
// (their account is rebuilt from the claims), and an admin command can connect an account in-process with
// the same secret while the server runs elsewhere.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';

export interface TokenClaims {
  /** The account (X user id, DID, Mastodon account id). */
  sub: string;
  /** What the token is: an access token, a refresh token, an authorization code … */
  typ: string;
  /** Issued at / expires at, Unix seconds. */
  iat: number;
  exp: number;
  jti: string;
  /** Whatever else the platform's tokens carry (handle, scopes, client id). */
  [claim: string]: unknown;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: 'invalid' | 'expired' };

const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface TokenSigner {
  sign(claims: Omit<TokenClaims, 'iat' | 'exp' | 'jti'> & { ttlSeconds: number }): string;
  verify(token: string, typ: string): TokenCheck;
  /** Whether `token` is one this signer issued and still valid, whatever its type (the sandbox's intake check). */
  authentic(token: string): boolean;
}

export function createTokenSigner(secret: string, now: () => number): TokenSigner {
  // A KeyObject, imported once: a raw Buffer key would be imported again on every token checked.
  const key = createSecretKey(createHmac('sha256', secret).update('herald-sandbox-tokens').digest());
  const mac = (data: string) => createHmac('sha256', key).update(data).digest();
  return {
    sign({ ttlSeconds, ...rest }) {
      const iat = Math.floor(now() / 1000);
      const payload = { ...rest, iat, exp: iat + ttlSeconds, jti: randomBytes(9).toString('base64url') };
      const head = `${b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64(JSON.stringify(payload))}`;
      return `${head}.${mac(head).toString('base64url')}`;
    },
    verify(token, typ) {
      const parts = token.split('.');
      if (parts.length !== 3) return { ok: false, reason: 'invalid' };
      const given = Buffer.from(parts[2]!, 'base64url');
      const expected = mac(`${parts[0]}.${parts[1]}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { ok: false, reason: 'invalid' };
      let claims: TokenClaims;
      try {
        claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as TokenClaims;
      } catch {
        return { ok: false, reason: 'invalid' };
      }
      if (claims.typ !== typ) return { ok: false, reason: 'invalid' };
      if (claims.exp * 1000 <= now()) return { ok: false, reason: 'expired' };
      return { ok: true, claims };
    },
    authentic(token) {
      const parts = token.split('.');
      if (parts.length !== 3 || token.length > 8192) return false;
      const given = Buffer.from(parts[2]!, 'base64url');
      const expected = mac(`${parts[0]}.${parts[1]}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
      try {
        const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as TokenClaims;
        return typeof claims.exp === 'number' && claims.exp * 1000 > now();
      } catch {
        return false;
      }
    },
  };
}

/** What an authorize request's signature covers. */
export interface SignedAuthorize {
  clientId?: string;
  redirectUri?: string;
  state?: string;
  /** The workspace the sign-in is for (`sandbox_ws`): the simulated account becomes that workspace's. */
  workspace?: string;
}

/** What `sandbox_sig` covers: the client, where the code goes, the flow's state and the workspace. */
function signedText(p: SignedAuthorize): string {
  return ['sandbox-authorize', p.clientId ?? '', p.redirectUri ?? '', p.state ?? '', p.workspace ?? ''].join('\n');
}

/**
 * Herald's signature over an authorize request of one simulator, with the secret Herald and its simulators share
 * (`secret` as given to `createSimulators`). The connect flow appends it as `sandbox_sig`.
 */
export function authorizeSignature(secret: string, platform: string, p: SignedAuthorize): string {
  return createHmac('sha256', `${platform}:${secret}`).update(signedText(p)).digest('base64url');
}

/** Whether the authorize parameters carry Herald's valid `sandbox_sig`. */
export function authorizeSigned(secret: string, platform: string, q: Record<string, string | undefined>): boolean {
  const given = Buffer.from(q.sandbox_sig ?? '', 'base64url');
  const expected = Buffer.from(
    authorizeSignature(secret, platform, {
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      state: q.state,
      workspace: q.sandbox_ws,
    }),
    'base64url',
  );
  return given.length === expected.length && timingSafeEqual(given, expected);
}
