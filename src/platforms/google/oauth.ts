// Google's OAuth 2.0 as YouTube and Business Profile both use it (docs/platforms/youtube.md "Auth",
// docs/platforms/googlebusiness.md "Auth"): the consent screen at accounts.google.com with `access_type=offline` and
// `prompt=consent` (the only way to be given a refresh token), PKCE S256, the token and revocation endpoints at
// oauth2.googleapis.com (the simulator's own paths for sandbox connections), the client authenticated by its id and
// secret in the form, and refresh tokens that do not rotate (a refresh answers with an access token only).
import type { PlatformHttp } from '../http-contract.ts';
import { PlatformError, type Credentials, type OAuthCapability, type PlatformSession } from '../types.ts';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const GOOGLE_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';

export interface GoogleTokenAnswer {
  access_token: string;
  /** Only on the code exchange of an offline authorization; a refresh answers none (the old one stays valid). */
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

/** The two calls each product's client makes, through its own error mapping. */
export interface GoogleTokenCalls {
  token(http: PlatformHttp, sandbox: boolean, form: Record<string, string>): Promise<GoogleTokenAnswer>;
  revoke(http: PlatformHttp, sandbox: boolean, token: string): Promise<void>;
}

/** The token answer as credentials; a refresh answers no refresh token, so the one held is kept. */
export function credentialsFrom(answer: GoogleTokenAnswer, now: Date, held?: string | null): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? held ?? null,
    expiresAt: answer.expires_in ? new Date(now.getTime() + answer.expires_in * 1000).toISOString() : null,
  };
}

/** A refused code or refresh token (a 4xx other than 429) means the user must sign in again. */
export function refused(error: unknown, what: string): unknown {
  return error instanceof PlatformError &&
    error.platformStatus !== undefined &&
    error.platformStatus < 500 &&
    error.platformStatus !== 429
    ? new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', `Google refused the ${what}: ${error.message}`, {
        platformStatus: error.platformStatus,
        platformBody: error.platformBody,
      })
    : error;
}

export interface GoogleOAuthOptions {
  scopes: string[];
  calls: GoogleTokenCalls;
  accounts: OAuthCapability['accounts'];
  /** More authorize parameters (YouTube asks for `include_granted_scopes`). */
  authorizeParams?: Record<string, string>;
  /** Refuse a code exchange that gave no refresh token instead of keeping an hour-long connection. */
  requireRefreshToken?: boolean;
}

export function googleOAuth(options: GoogleOAuthOptions): OAuthCapability {
  const { scopes, calls } = options;
  return {
    pkce: true,
    scopes,
    authorizeUrl(ctx, { state, codeChallenge }) {
      const url = new URL(`${ctx.webUrl.replace(/\/+$/, '')}/o/oauth2/v2/auth`);
      const params: Record<string, string> = {
        response_type: 'code',
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        scope: scopes.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        ...options.authorizeParams,
        state,
      };
      if (codeChallenge) Object.assign(params, { code_challenge: codeChallenge, code_challenge_method: 'S256' });
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    },
    async exchangeCode(ctx, { code, codeVerifier }) {
      const form: Record<string, string> = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: ctx.redirectUri,
        client_id: ctx.app.clientId,
        client_secret: ctx.app.clientSecret ?? '',
      };
      if (codeVerifier) form.code_verifier = codeVerifier;
      try {
        const credentials = credentialsFrom(await calls.token(ctx.http, ctx.sandbox, form), new Date());
        if (options.requireRefreshToken && !credentials.refreshToken)
          throw new PlatformError(
            'auth_expired',
            'PLATFORM_RECONNECT_REQUIRED',
            'Google gave no refresh token (the consent was not offline); connect again.',
          );
        return credentials;
      } catch (error) {
        throw refused(error, 'authorization code');
      }
    },
    accounts: options.accounts,
    async revoke(ctx, credentials) {
      // Revoking the refresh token ends the whole grant (and the access tokens made from it).
      await calls.revoke(ctx.http, ctx.sandbox, credentials.refreshToken ?? credentials.accessToken);
    },
  };
}

/** A connection's refresh: the held refresh token for a new access token (the refresh token itself stays). */
export async function refreshGoogleCredentials(
  session: PlatformSession,
  app: { id: string; secret: string },
  calls: GoogleTokenCalls,
): Promise<Credentials> {
  const { refreshToken } = session.credentials;
  if (!refreshToken)
    throw new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', 'Google gave no refresh token; reconnect.');
  try {
    const answer = await calls.token(session.http, session.connection.sandbox, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.id,
      client_secret: app.secret,
    });
    return credentialsFrom(answer, session.clock.now(), refreshToken);
  } catch (error) {
    throw refused(error, 'refresh token');
  }
}
