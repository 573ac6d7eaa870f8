// Google's OAuth 2.0 for YouTube (docs/platforms/youtube.md "Auth"): the consent screen at accounts.google.com with
// `access_type=offline` and `prompt=consent` (the only way to be given a refresh token), PKCE S256, the token and
// revocation endpoints at oauth2.googleapis.com (the simulator's own paths for sandbox connections), and the client
// authenticated by its id and secret in the form.
import { PlatformError, type OAuthCapability } from '../types.ts';
import * as client from './client.ts';
import { account, credentialsFrom, refused } from './account.ts';

export const OAUTH_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const OAUTH_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';

/**
 * Uploading (youtube.upload), reading the channel and its uploads (youtube.readonly: channels.list, playlistItems,
 * videos.list statistics), and deleting a video and, later, comments (youtube.force-ssl).
 */
export const SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

export function youtubeOAuth(): OAuthCapability {
  const endpoint = (sandbox: boolean, base: string, path: string, real: string) => (sandbox ? `${base}${path}` : real);
  return {
    pkce: true,
    scopes: SCOPES,
    authorizeUrl(ctx, { state, codeChallenge }) {
      const url = new URL(`${ctx.webUrl}/o/oauth2/v2/auth`);
      const params: Record<string, string> = {
        response_type: 'code',
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        scope: SCOPES.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
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
        const url = endpoint(ctx.sandbox, ctx.http.baseUrl, '/token', OAUTH_TOKEN_URL);
        const credentials = credentialsFrom(await client.token(ctx.http, url, form), new Date());
        if (!credentials.refreshToken)
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
    async accounts(ctx, credentials) {
      return [{ account: await account(ctx.http, credentials.accessToken), credentials }];
    },
    async revoke(ctx, credentials) {
      // Revoking the refresh token ends the whole grant (and the access tokens made from it).
      const url = endpoint(ctx.sandbox, ctx.http.baseUrl, '/revoke', OAUTH_REVOKE_URL);
      await client.revoke(ctx.http, url, credentials.refreshToken ?? credentials.accessToken);
    },
  };
}
