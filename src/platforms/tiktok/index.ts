// The TikTok adapter (docs/platforms/tiktok.md): Login Kit v2 OAuth with rotating refresh tokens, Direct Post of a
// video (chunked FILE_UPLOAD, or PULL_FROM_URL from Herald's signed URL) or of photos (pulled), the creator's info
// checked before each post, the publish status polled to the end, the `publish_id` recorded as the part's pending
// reference; the Display API for look-ups and metrics. TikTok has no threads, no idempotency key and no delete.
import { randomUUID } from 'node:crypto';
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  type AdapterConfig,
  type Credentials,
  type OAuthCapability,
  type PlatformAdapter,
  type PlatformSession,
} from '../types.ts';
import { sandboxAuthorize } from '../sandbox-signin.ts';
import * as client from './client.ts';
import { limits } from './limits.ts';
import { prepareTiktokMedia } from './media.ts';
import { findPublishedPart, publishPart } from './publish.ts';

/** TikTok's API host for real connections (src/container.ts `platformUrls`). */
export const TIKTOK_API_URL = 'https://open.tiktokapis.com';

/**
 * What Herald asks for: the account (`user.info.basic`; `user.info.profile` for the username), Direct Post
 * (`video.publish`), and the creator's videos (`video.list`: the look-up after a lost answer, and metrics).
 */
const SCOPES = ['user.info.basic', 'user.info.profile', 'video.publish', 'video.list'];
/** The client key a sandbox sign-in uses when no app is configured (the simulator takes any). */
const SANDBOX_CLIENT = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' };

/**
 * The token answer as credentials; `expires_in` (2 h) becomes an absolute time. A refresh answer carries the rotated
 * refresh token; should one come without it, the one held is kept rather than lost.
 */
function credentialsFrom(answer: client.TokenAnswer, now: Date, held?: string | null): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? held ?? null,
    expiresAt: answer.expires_in ? new Date(now.getTime() + answer.expires_in * 1000).toISOString() : null,
  };
}

async function account(http: PlatformHttp, token: string) {
  const [me, creator] = await Promise.all([client.userInfo(http, token), client.creatorInfo(http, token)]);
  return {
    accountId: me.open_id,
    handle: me.username ?? creator.creator_username ?? me.open_id,
    displayName: me.display_name || creator.creator_nickname || null,
    avatarUrl: me.avatar_url ?? null,
    // What the creator may post, as at connection time (each post reads it afresh).
    settings: {
      privacy_level_options: creator.privacy_level_options,
      max_video_post_duration_sec: creator.max_video_post_duration_sec,
    },
  };
}

/**
 * Login Kit for web: `client_key` (not `client_id`) and a comma-separated scope list; no PKCE (TikTok asks it of
 * desktop and mobile apps only); the client authenticates with its key and secret in the form; revocation at
 * `/v2/oauth/revoke/`.
 */
function tiktokOAuth(): OAuthCapability {
  return {
    pkce: false,
    scopes: SCOPES,
    authorizeUrl(ctx, { state, codeChallenge }) {
      const url = new URL(`${ctx.webUrl}/v2/auth/authorize/`);
      const params: Record<string, string> = {
        client_key: ctx.app.clientId,
        scope: SCOPES.join(','),
        response_type: 'code',
        redirect_uri: ctx.redirectUri,
        state,
      };
      if (codeChallenge) Object.assign(params, { code_challenge: codeChallenge, code_challenge_method: 'S256' });
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    },
    async exchangeCode(ctx, { code, codeVerifier }) {
      const form: Record<string, string> = {
        client_key: ctx.app.clientId,
        client_secret: ctx.app.clientSecret ?? '',
        code,
        grant_type: 'authorization_code',
        redirect_uri: ctx.redirectUri,
      };
      if (codeVerifier) form.code_verifier = codeVerifier;
      return credentialsFrom(await client.token(ctx.http, form), new Date());
    },
    async accounts(ctx, credentials) {
      return [{ account: await account(ctx.http, credentials.accessToken), credentials }];
    },
    async revoke(ctx, credentials) {
      await client.revoke(ctx.http, {
        client_key: ctx.app.clientId,
        client_secret: ctx.app.clientSecret ?? '',
        token: credentials.accessToken,
      });
    },
  };
}

export function createTiktokAdapter(config: AdapterConfig): PlatformAdapter {
  const app = { id: config.clientId ?? SANDBOX_CLIENT.id, secret: config.clientSecret ?? SANDBOX_CLIENT.secret };
  return {
    platform: 'tiktok',
    limits,
    limitsFor: () => limits,
    // TikTok honours no key: the part key is a marker; the `publish_id` (pending) and the look-up do the work.
    newPartKey: () => randomUUID(),
    prepareMedia: (_session, media, options) => prepareTiktokMedia(media, options),
    publish: publishPart,
    findPublished: findPublishedPart,

    async deletePost() {
      throw new PlatformError(
        'permanent',
        'PLATFORM_REJECTED',
        "TikTok's API has no call to delete a post; delete it in the TikTok app.",
      );
    },

    // Refresh tokens rotate: the answer's refresh token replaces the one sent, which stops working. The engine
    // stores the answer before anything uses it; nothing else is called here. ⚠ unverified: whether the one sent
    // still works after a refresh whose answer was lost (if not, only a reconnect helps).
    async refreshCredentials(session: PlatformSession) {
      const { refreshToken } = session.credentials;
      if (!refreshToken)
        throw new PlatformError(
          'auth_expired',
          'PLATFORM_RECONNECT_REQUIRED',
          'TikTok gave no refresh token; reconnect.',
        );
      const answer = await client.token(session.http, {
        client_key: app.id,
        client_secret: app.secret,
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      });
      return credentialsFrom(answer, session.clock.now(), refreshToken);
    },

    async verifyAccount(session) {
      return account(session.http, session.credentials.accessToken);
    },

    oauth: tiktokOAuth(),

    /** TikTok's video query: views, likes, comments and shares of a published post. */
    async fetchMetrics(session, post) {
      // A post recorded by its publish id (TikTok gave no post id: `v_pub_…`, `p_pub_…`) cannot be queried; TikTok's
      // video ids are decimal int64.
      if (!/^\d+$/.test(post.id)) return {};
      const [video] = await client.queryVideos(session.http, session.credentials.accessToken, [post.id]);
      if (!video) return {};
      const metrics: Record<string, number> = {};
      if (typeof video.view_count === 'number') metrics.video_views = video.view_count;
      if (typeof video.like_count === 'number') metrics.likes = video.like_count;
      if (typeof video.comment_count === 'number') metrics.comments = video.comment_count;
      if (typeof video.share_count === 'number') metrics.shares = video.share_count;
      return metrics;
    },

    /** The platform's own sign-in against the simulator: authorize as `sandbox_username`, then the code exchange. */
    async connectSandbox(http, { username, workspace }) {
      const { code, verifier, redirect } = await sandboxAuthorize(http, {
        display: 'TikTok',
        path: '/v2/auth/authorize/',
        query: { client_key: app.id, scope: SCOPES.join(','), response_type: 'code' },
        username,
        workspace,
      });
      const credentials = credentialsFrom(
        await client.token(http, {
          client_key: app.id,
          client_secret: app.secret,
          code,
          grant_type: 'authorization_code',
          redirect_uri: redirect,
          code_verifier: verifier,
        }),
        new Date(),
      );
      return { account: await account(http, credentials.accessToken), credentials };
    },
  };
}
