// Facebook Login for the Pages adapter (docs/platforms/facebook.md "Auth"): the OAuth dialog with `state` (no PKCE:
// Herald is a confidential client with an app secret), the code exchange, the long-lived exchange (`fb_exchange_token`,
// ≈60 days), then `/me/accounts`: one connectable account per Page, whose credentials are the Page access token.
// Page tokens got with a long-lived user token do not expire (⚠ unverified, community-documented), so Herald keeps
// only those and drops the user token; that is also why there is no `revoke` here (removing the app's
// permissions takes the user token, which Herald does not keep).
import { graphPages, type GraphClient } from '../meta/graph.ts';
import {
  PlatformError,
  type ConnectableAccount,
  type Credentials,
  type OAuthCapability,
  type OAuthContext,
} from '../types.ts';
import { graph } from './client.ts';

export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_read_engagement',
  'pages_manage_posts',
  'pages_manage_engagement',
  'pages_read_user_engagement',
  'publish_video',
  'read_insights',
] as const;

interface TokenAnswer {
  access_token: string;
  token_type?: string;
  expires_in?: number;
}

interface PageEntry {
  id: string;
  name?: string;
  username?: string;
  access_token?: string;
  tasks?: string[];
}

function secretOf(ctx: OAuthContext): string {
  if (!ctx.app.clientSecret)
    throw new PlatformError(
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
      'Facebook Login needs the app secret (Herald signs in as a confidential client).',
    );
  return ctx.app.clientSecret;
}

/** A code or token refused by Facebook Login means "sign in again", whatever code Graph gave it. */
async function asAuthFailure<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (
      error instanceof PlatformError &&
      (error.kind === 'invalid_content' || error.kind === 'permanent') &&
      error.code !== 'PLATFORM_PERMISSION_DENIED'
    ) {
      throw new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', error.message, {
        platformStatus: error.platformStatus,
        platformBody: error.platformBody,
      });
    }
    throw error;
  }
}

export function facebookOAuth(version: string | undefined, now: () => number = Date.now): OAuthCapability {
  const client = (ctx: Pick<OAuthContext, 'http'>): GraphClient => graph(ctx.http, version);
  return {
    pkce: false,
    scopes: FACEBOOK_SCOPES,

    authorizeUrl(ctx, { state }) {
      const url = new URL(`${ctx.webUrl.replace(/\/+$/, '')}${client(ctx).path('/dialog/oauth')}`);
      url.searchParams.set('client_id', ctx.app.clientId);
      url.searchParams.set('redirect_uri', ctx.redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', FACEBOOK_SCOPES.join(','));
      return url.toString();
    },

    async exchangeCode(ctx, { code }) {
      const g = client(ctx);
      const secret = secretOf(ctx);
      const short = await asAuthFailure(
        g.call<TokenAnswer>({
          method: 'GET',
          path: '/oauth/access_token',
          params: { client_id: ctx.app.clientId, client_secret: secret, redirect_uri: ctx.redirectUri, code },
        }),
      );
      const long = await asAuthFailure(
        g.call<TokenAnswer>({
          method: 'GET',
          path: '/oauth/access_token',
          params: {
            grant_type: 'fb_exchange_token',
            client_id: ctx.app.clientId,
            client_secret: secret,
            fb_exchange_token: short.access_token,
          },
        }),
      );
      return {
        accessToken: long.access_token,
        refreshToken: null,
        expiresAt: long.expires_in ? new Date(now() + long.expires_in * 1000).toISOString() : null,
      };
    },

    async accounts(ctx, credentials: Credentials): Promise<ConnectableAccount[]> {
      const g = client(ctx);
      const pages = await graphPages<PageEntry>(
        g,
        {
          method: 'GET',
          path: '/me/accounts',
          token: credentials.accessToken,
          params: { fields: 'id,name,username,access_token,tasks', limit: 100 },
        },
        10,
      );
      const out: ConnectableAccount[] = [];
      for (const p of pages) {
        // Only Pages the person may publish on, and that came with a Page token.
        if (!p.access_token || (p.tasks && !p.tasks.includes('CREATE_CONTENT'))) continue;
        out.push({
          account: { accountId: p.id, handle: p.username ?? p.id, displayName: p.name ?? null },
          credentials: { accessToken: p.access_token, refreshToken: null, expiresAt: null },
        });
      }
      return out;
    },
  };
}
