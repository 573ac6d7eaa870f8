// The LinkedIn adapter (docs/platforms/linkedin.md): 3-legged OAuth (60-day tokens; refresh tokens for approved
// partners, not rotated), the versioned REST Posts API with the configured LinkedIn-Version, member and organization
// authors, the Images / Videos / Documents upload protocols, little-text escaping of the commentary. LinkedIn has no
// idempotency key: reconciliation looks the part up among the author's recent posts by commentary and media, and a
// re-send whose duplicate answer names a post this part made (since its first send, held by no other part) takes that
// post instead of failing; an earlier post with the same commentary is a true duplicate.
import { randomBytes } from 'node:crypto';
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  type AccountInfo,
  type AdapterConfig,
  type ConnectableAccount,
  type Credentials,
  type OAuthContext,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PublishedPart,
} from '../types.ts';
import { lookupSince, mayBeThisPart, sameMedia } from '../lookup.ts';
import * as client from './client.ts';
import { limits } from './limits.ts';
import { authorOf, connectionAuthor, createBody, escapeLittleText, postUrl } from './map.ts';
import { linkedinInbox, linkedinOwnComments } from './inbox.ts';
import { linkedinMetrics } from './metrics.ts';
import { uploadMedia } from './media.ts';
import { LINKEDIN_DEFAULT_VERSION } from './version.ts';

/** Member posting and identity, plus the organization scopes for company pages (Community Management API). */
const SCOPES = [
  'openid',
  'profile',
  'w_member_social',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
] as const;
const WEB = 'https://www.linkedin.com'; // OAuth pages and token endpoint of real LinkedIn; posts' web URLs
const LOOKUP_PAGE = 50;
const LOOKUP_PAGES = 3;
const SANDBOX_CLIENT = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' };

/** A listed post is the part's when it has its commentary and media, made since it was first sent, held nowhere else. */
function isThisPart(part: OutgoingPart, post: client.LiPostElement): boolean {
  const media = post.content?.media
    ? [post.content.media.id]
    : (post.content?.multiImage?.images ?? []).map((image) => image.id);
  return (
    post.commentary === escapeLittleText(part.text) &&
    sameMedia(part, { ids: media, count: media.length }) &&
    mayBeThisPart(part, { id: post.id, createdAt: post.createdAt ?? post.publishedAt })
  );
}

function credentialsFrom(answer: client.TokenAnswer, now: number, previous?: Credentials): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? previous?.refreshToken ?? null,
    expiresAt: answer.expires_in ? new Date(now + answer.expires_in * 1000).toISOString() : null,
  };
}

export function createLinkedinAdapter(config: AdapterConfig): PlatformAdapter {
  const version = config.apiVersion ?? LINKEDIN_DEFAULT_VERSION;
  const app = { id: config.clientId ?? SANDBOX_CLIENT.id, secret: config.clientSecret ?? SANDBOX_CLIENT.secret };
  const api = (http: PlatformHttp, token: string): client.LiApi => ({ http, token, version });
  const sessionApi = (s: PlatformSession) => api(s.http, s.credentials.accessToken);
  const webBase = (s: PlatformSession) => (s.connection.sandbox ? `${s.connection.baseUrl}/web` : WEB);
  /**
   * Server-to-server OAuth calls: www.linkedin.com for real accounts, the simulator (its API base) for sandbox ones.
   */
  const oauthUrl = (sandbox: boolean, base: string, path: string) => `${sandbox ? base : WEB}${path}`;

  async function member(http: PlatformHttp, token: string): Promise<AccountInfo> {
    const info = await client.userInfo(http, token);
    const name = info.name ?? [info.given_name, info.family_name].filter(Boolean).join(' ');
    return { accountId: `urn:li:person:${info.sub}`, handle: name || info.sub, displayName: name || null };
  }

  async function organizationAccount(liApi: client.LiApi, urn: string): Promise<AccountInfo> {
    const org = await client.organization(liApi, urn.slice('urn:li:organization:'.length));
    return {
      accountId: urn,
      handle: org.vanityName ?? String(org.id),
      displayName: org.localizedName ?? null,
      settings: { organization: true },
    };
  }

  /** The member and every page they administer (a member without the organization scopes has only themself). */
  async function accountsOf(http: PlatformHttp, credentials: Credentials): Promise<ConnectableAccount[]> {
    const liApi = api(http, credentials.accessToken);
    const out: ConnectableAccount[] = [{ account: await member(http, credentials.accessToken), credentials }];
    let orgs: string[] = [];
    try {
      orgs = await client.administeredOrganizations(liApi);
    } catch (error) {
      if (!(error instanceof PlatformError && error.code === 'PLATFORM_PERMISSION_DENIED')) throw error;
    }
    for (const urn of orgs) out.push({ account: await organizationAccount(liApi, urn), credentials });
    return out;
  }

  async function exchange(
    http: PlatformHttp,
    url: string,
    form: Record<string, string>,
    now: number,
    previous?: Credentials,
  ): Promise<Credentials> {
    return credentialsFrom(await client.token(http, url, form), now, previous);
  }

  const adapter: PlatformAdapter = {
    platform: 'linkedin',
    limits,
    limitsFor: () => limits,
    // No idempotency on LinkedIn: the key only marks the part; reconciliation goes by commentary.
    newPartKey: () => `li-${randomBytes(8).toString('hex')}`,

    prepareMedia: (session, media, options) =>
      uploadMedia(sessionApi(session), authorOf(session.connection, options), media),

    async publish(session, part) {
      const author = authorOf(session.connection, part.options);
      const liApi = sessionApi(session);
      try {
        const urn = await client.createPost(liApi, createBody(part, author));
        return { id: urn, url: postUrl(webBase(session), urn) };
      } catch (error) {
        // A duplicate of our own earlier send (its answer was lost and the look-up missed it): that post is this part.
        const earlier =
          error instanceof PlatformError && error.code === 'PLATFORM_DUPLICATE'
            ? /urn:li:(?:share|ugcPost):\d+/.exec(error.platformBody ?? '')?.[0]
            : undefined;
        if (earlier) {
          // Only when it is provably this part's: made since this part was first sent (not an earlier post with
          // the same commentary, which is what a duplicate usually is), with its media, held by no other part.
          const post = await client.getPost(liApi, earlier).catch(() => undefined);
          if (post && post.author === author && isThisPart(part, post))
            return { id: post.id, url: postUrl(webBase(session), post.id) };
        }
        throw error;
      }
    },

    // ⚠ unverified: that the author finder lists a new post within seconds, and that a member may read their own
    // posts without r_member_social. If either fails, a re-send meets LinkedIn's duplicate check, which publish()
    // above turns back into the earlier post.
    async findPublished(session, part) {
      const author = authorOf(session.connection, part.options);
      const since = lookupSince(part);
      const matches: PublishedPart[] = [];
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const { elements } = await client.postsByAuthor(sessionApi(session), author, page * LOOKUP_PAGE, LOOKUP_PAGE);
        let older = false;
        for (const post of elements) {
          if ((post.createdAt ?? post.publishedAt ?? 0) < since) {
            older = true;
            continue;
          }
          if (isThisPart(part, post)) matches.push({ id: post.id, url: postUrl(webBase(session), post.id) });
        }
        if (older || elements.length < LOOKUP_PAGE) break;
      }
      // Newest first; the oldest match is the one the first send created.
      return matches.at(-1) ?? null;
    },

    async deletePost(session, post) {
      await client.deletePost(sessionApi(session), post.id);
    },

    fetchMetrics: (session, post) => linkedinMetrics(sessionApi(session), post.id),

    /** Comments on the connection's recent posts (docs/inbox.md "Platforms"). */
    inbox: linkedinInbox(version, WEB),
    ownComments: linkedinOwnComments(version),

    async refreshCredentials(session) {
      const refresh = session.credentials.refreshToken;
      if (!refresh)
        throw new PlatformError(
          'auth_expired',
          'PLATFORM_RECONNECT_REQUIRED',
          'The LinkedIn token expired and the connection has no refresh token (LinkedIn grants them to approved partners only); reconnect the account.',
        );
      try {
        return await exchange(
          session.http,
          oauthUrl(session.connection.sandbox, session.http.baseUrl, '/oauth/v2/accessToken'),
          { grant_type: 'refresh_token', refresh_token: refresh, client_id: app.id, client_secret: app.secret },
          session.clock.now().getTime(),
          session.credentials,
        );
      } catch (error) {
        if (
          error instanceof PlatformError &&
          error.platformStatus !== undefined &&
          error.platformStatus < 500 &&
          error.platformStatus !== 429
        ) {
          throw new PlatformError(
            'auth_expired',
            'PLATFORM_RECONNECT_REQUIRED',
            `LinkedIn refused to refresh the token: ${error.message}`,
            { platformStatus: error.platformStatus, platformBody: error.platformBody },
          );
        }
        throw error;
      }
    },

    async verifyAccount(session) {
      const author = connectionAuthor(session.connection);
      if (!author.startsWith('urn:li:organization:')) return member(session.http, session.credentials.accessToken);
      const liApi = sessionApi(session);
      if (!(await client.administeredOrganizations(liApi)).includes(author)) {
        throw new PlatformError(
          'permanent',
          'PLATFORM_PERMISSION_DENIED',
          `The LinkedIn member no longer administers ${author}.`,
        );
      }
      return organizationAccount(liApi, author);
    },

    async connectSandbox(http, { username, workspace }) {
      const redirect = 'http://127.0.0.1/herald/oauth/callback';
      const state = randomBytes(12).toString('base64url');
      const authorize = await http.request({
        method: 'GET',
        path: '/oauth/v2/authorization',
        query: {
          response_type: 'code',
          client_id: app.id,
          redirect_uri: redirect,
          state,
          // The simulated app is approved for member post analytics (a LinkedIn product a real app applies for).
          scope: [...SCOPES, 'r_member_postAnalytics'].join(' '),
          sandbox_username: username,
          ...(workspace ? { sandbox_ws: workspace } : {}),
        },
      });
      const location = authorize.headers.location;
      const back = typeof location === 'string' ? new URL(location) : undefined;
      if (
        authorize.status !== 302 ||
        !back ||
        back.searchParams.get('state') !== state ||
        !back.searchParams.get('code')
      ) {
        throw new PlatformError(
          'permanent',
          'PLATFORM_REJECTED',
          `The LinkedIn sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`,
        );
      }
      const credentials = await exchange(
        http,
        '/oauth/v2/accessToken',
        {
          grant_type: 'authorization_code',
          code: back.searchParams.get('code')!,
          redirect_uri: redirect,
          client_id: app.id,
          client_secret: app.secret,
        },
        Date.now(),
      );
      return { account: await member(http, credentials.accessToken), credentials };
    },

    oauth: {
      pkce: false, // LinkedIn takes PKCE from native apps only; a web app signs in with its client secret
      scopes: SCOPES,
      authorizeUrl(ctx: OAuthContext, { state }) {
        const url = new URL(`${ctx.webUrl.replace(/\/+$/, '')}/oauth/v2/authorization`);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: ctx.app.clientId,
          redirect_uri: ctx.redirectUri,
          state,
          scope: SCOPES.join(' '),
        }).toString();
        return url.toString();
      },
      async exchangeCode(ctx, { code }) {
        if (!ctx.app.clientSecret)
          throw new PlatformError(
            'permanent',
            'PLATFORM_REJECTED',
            "LinkedIn needs the app's client secret (HERALD_LINKEDIN_CLIENT_SECRET) to exchange the code.",
          );
        const url = oauthUrl(ctx.sandbox, ctx.http.baseUrl, '/oauth/v2/accessToken');
        try {
          return await exchange(
            ctx.http,
            url,
            {
              grant_type: 'authorization_code',
              code,
              redirect_uri: ctx.redirectUri,
              client_id: ctx.app.clientId,
              client_secret: ctx.app.clientSecret,
            },
            Date.now(),
          );
        } catch (error) {
          // An invalid, expired or replayed code is a 400 invalid_request: the user must sign in again.
          if (
            error instanceof PlatformError &&
            error.platformStatus !== undefined &&
            error.platformStatus < 500 &&
            error.platformStatus !== 429
          ) {
            throw new PlatformError(
              'auth_expired',
              'PLATFORM_RECONNECT_REQUIRED',
              `LinkedIn refused the authorization code: ${error.message}`,
              { platformStatus: error.platformStatus, platformBody: error.platformBody },
            );
          }
          throw error;
        }
      },
      accounts: (ctx, credentials) => accountsOf(ctx.http, credentials),
      async revoke(ctx, credentials) {
        if (!ctx.app.clientSecret)
          throw new PlatformError(
            'permanent',
            'PLATFORM_REJECTED',
            "LinkedIn needs the app's client secret to revoke a token.",
          );
        await client.revoke(ctx.http, oauthUrl(ctx.sandbox, ctx.http.baseUrl, '/oauth/v2/revoke'), {
          client_id: ctx.app.clientId,
          client_secret: ctx.app.clientSecret,
          token: credentials.accessToken,
        });
      },
    },
  };
  return adapter;
}
