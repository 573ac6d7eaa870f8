// The X adapter (docs/platforms/x.md): OAuth 2.0 user tokens (2 h, rotating refresh), POST /2/tweets, the v2 media
// protocols, threads as reply chains. X has no idempotency key, so reconciliation looks the part up among the
// account's recent posts (text, reply target and media, made since the part was first sent, held by no other part:
// lookup.ts), and a re-send happens only when that finds nothing.
import { createHash, randomBytes } from 'node:crypto';
import {
  PlatformError,
  type AdapterConfig,
  type Credentials,
  type OAuthCapability,
  type OAuthContext,
  type PlatformAdapter,
  type PlatformSession,
  type PublishedPart,
} from '../types.ts';
import { lookupSince, mayBeThisPart, sameMedia } from '../lookup.ts';
import { limits } from './limits.ts';
import * as client from './client.ts';
import { xInbox } from './inbox.ts';
import { comparable, createBody, postUrl } from './map.ts';
import { uploadMedia } from './media.ts';

const SCOPES = 'tweet.read tweet.write users.read media.write offline.access';
const LOOKUP_PAGES = 3;

function credentialsFrom(answer: client.TokenAnswer, now: number, previous?: Credentials): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? previous?.refreshToken ?? null,
    expiresAt: answer.expires_in ? new Date(now + answer.expires_in * 1000).toISOString() : null,
  };
}

/** A refused code or refresh token (X answers 400/401) means the user must sign in again. */
function refusedAsExpired(error: unknown, what: string): unknown {
  if (
    error instanceof PlatformError &&
    error.platformStatus !== undefined &&
    error.platformStatus < 500 &&
    error.platformStatus !== 429
  ) {
    return new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', `X refused ${what}: ${error.message}`, {
      platformStatus: error.platformStatus,
      platformBody: error.platformBody,
    });
  }
  return error;
}

/** X's OAuth 2.0 Authorization Code flow with PKCE (docs/platforms/x.md "Auth"). */
function xOAuth(): OAuthCapability {
  const app = (ctx: OAuthContext) => ({ id: ctx.app.clientId, secret: ctx.app.clientSecret ?? undefined });
  return {
    pkce: true,
    scopes: SCOPES.split(' '),
    authorizeUrl(ctx, { state, codeChallenge }) {
      const url = new URL(`${ctx.webUrl}/i/oauth2/authorize`);
      const params: Record<string, string> = {
        response_type: 'code',
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        scope: SCOPES,
        state,
      };
      if (codeChallenge) Object.assign(params, { code_challenge: codeChallenge, code_challenge_method: 'S256' });
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    },
    async exchangeCode(ctx, { code, codeVerifier }) {
      try {
        const answer = await client.token(ctx.http, app(ctx), {
          grant_type: 'authorization_code',
          code,
          redirect_uri: ctx.redirectUri,
          code_verifier: codeVerifier ?? '',
        });
        return credentialsFrom(answer, Date.now());
      } catch (error) {
        throw refusedAsExpired(error, 'the authorization code');
      }
    },
    async accounts(ctx, credentials) {
      const user = await client.me(ctx.http, credentials.accessToken);
      return [
        {
          account: {
            accountId: user.id,
            handle: user.username,
            displayName: user.name,
            avatarUrl: user.profile_image_url ?? null,
          },
          credentials,
        },
      ];
    },
    async revoke(ctx, credentials) {
      // ⚠ unverified: whether revoking the refresh token also ends its access tokens; revoke both to be sure.
      await client.revoke(ctx.http, app(ctx), { token: credentials.accessToken, token_type_hint: 'access_token' });
      if (credentials.refreshToken)
        await client.revoke(ctx.http, app(ctx), { token: credentials.refreshToken, token_type_hint: 'refresh_token' });
    },
  };
}

export function createXAdapter(config: AdapterConfig): PlatformAdapter {
  const clientId = config.clientId ?? 'herald-sandbox';
  const webBase = (s: PlatformSession) => (s.connection.sandbox ? `${s.connection.baseUrl}/web` : 'https://x.com');

  return {
    platform: 'x',
    limits,
    limitsFor: () => limits,
    newPartKey: () => `x-${randomBytes(8).toString('hex')}`,
    inbox: xInbox((s, handle, id) => postUrl(webBase(s), handle, id)),

    prepareMedia: (session, media) => uploadMedia(session.http, session.credentials.accessToken, media),

    async publish(session, part) {
      const data = await client.createTweet(session.http, session.credentials.accessToken, createBody(part));
      return { id: data.id, url: postUrl(webBase(session), session.connection.handle, data.id) };
    },

    // ⚠ unverified: that a new post shows in GET /2/users/:id/tweets within seconds. If the index lags, a re-send
    // meets X's duplicate check (403) and the target fails PLATFORM_DUPLICATE instead of posting twice.
    // ⚠ unverified: that a media key is `<type>_<media id>`, so a listed post's media compare with the ids sent.
    async findPublished(session, part) {
      const wanted = comparable(part.text);
      // X takes start_time in whole seconds; mayBeThisPart applies the exact bound.
      const start = new Date(Math.floor(lookupSince(part) / 1000) * 1000).toISOString();
      let token: string | undefined;
      const matches: PublishedPart[] = [];
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const { data, next } = await client.userTweets(
          session.http,
          session.credentials.accessToken,
          session.connection.accountId,
          { start_time: start, pagination_token: token },
        );
        for (const tweet of data) {
          const repliedTo = tweet.referenced_tweets?.find((r) => r.type === 'replied_to')?.id ?? null;
          const media = (tweet.attachments?.media_keys ?? []).map((k) => k.slice(k.indexOf('_') + 1));
          if (
            comparable(tweet.text) === wanted &&
            repliedTo === (part.parent?.id ?? null) &&
            sameMedia(part, { ids: media, count: media.length }) &&
            mayBeThisPart(part, {
              id: tweet.id,
              createdAt: tweet.created_at ? Date.parse(tweet.created_at) : undefined,
            })
          ) {
            matches.push({ id: tweet.id, url: postUrl(webBase(session), session.connection.handle, tweet.id) });
          }
        }
        if (!next) break;
        token = next;
      }
      // Newest first from X; the oldest match is the one the first send created.
      return matches.at(-1) ?? null;
    },

    async deletePost(session, post) {
      await client.deleteTweet(session.http, session.credentials.accessToken, post.id);
    },

    async fetchMetrics(session, post) {
      // Private metrics (link clicks) exist only for the first 30 days of a post; asking for them later fails the
      // whole call, so they are asked for only while the post's id (a snowflake) says it is younger.
      const young = session.clock.now().getTime() - snowflakeTime(post.id) < PRIVATE_METRICS_DAYS * 86_400_000;
      const fields = young ? 'public_metrics,non_public_metrics' : 'public_metrics';
      const data = await client.tweetMetrics(session.http, session.credentials.accessToken, post.id, fields);
      if (!data?.public_metrics)
        throw new PlatformError('permanent', 'PLATFORM_REJECTED', `X no longer has the post ${post.id} (deleted?).`);
      const p = data.public_metrics;
      const np = data.non_public_metrics;
      const impressions = p.impression_count ?? np?.impression_count;
      return {
        likes: p.like_count,
        comments: p.reply_count,
        shares: p.retweet_count,
        quotes: p.quote_count,
        ...(p.bookmark_count !== undefined ? { saves: p.bookmark_count } : {}),
        ...(impressions !== undefined ? { impressions } : {}),
        ...(np?.url_link_clicks !== undefined ? { clicks: np.url_link_clicks } : {}),
      };
    },

    async refreshCredentials(session) {
      const refresh = session.credentials.refreshToken;
      if (!refresh)
        throw new PlatformError(
          'auth_expired',
          'PLATFORM_RECONNECT_REQUIRED',
          'The X token expired and the connection has no refresh token (offline.access was not granted).',
        );
      try {
        const answer = await client.token(
          session.http,
          { id: clientId, secret: config.clientSecret },
          { grant_type: 'refresh_token', refresh_token: refresh },
        );
        return credentialsFrom(answer, session.clock.now().getTime(), session.credentials);
      } catch (error) {
        // A refused refresh token (400 invalid_request) means the user must connect again.
        throw refusedAsExpired(error, 'to refresh the token');
      }
    },

    async verifyAccount(session) {
      const user = await client.me(session.http, session.credentials.accessToken);
      return {
        accountId: user.id,
        handle: user.username,
        displayName: user.name,
        avatarUrl: user.profile_image_url ?? null,
      };
    },

    oauth: xOAuth(),

    async connectSandbox(http, { username, workspace }) {
      const verifier = randomBytes(48).toString('base64url');
      const state = randomBytes(12).toString('base64url');
      const redirect = 'http://127.0.0.1/herald/oauth/callback';
      const authorize = await http.request({
        method: 'GET',
        path: '/i/oauth2/authorize',
        query: {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: redirect,
          scope: SCOPES,
          state,
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
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
          `The X sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`,
        );
      }
      const answer = await client.token(
        http,
        { id: clientId, secret: config.clientSecret },
        {
          grant_type: 'authorization_code',
          code: back.searchParams.get('code')!,
          redirect_uri: redirect,
          code_verifier: verifier,
        },
      );
      const credentials = credentialsFrom(answer, Date.now());
      const user = await client.me(http, credentials.accessToken);
      return {
        account: {
          accountId: user.id,
          handle: user.username,
          displayName: user.name,
          avatarUrl: user.profile_image_url ?? null,
        },
        credentials,
      };
    },
  };
}

/** X serves private metrics (link clicks) for a post's first 30 days only. */
const PRIVATE_METRICS_DAYS = 30;

/** When a post was created, from its id (X ids are snowflakes: milliseconds since X's epoch in the high bits). */
function snowflakeTime(id: string): number {
  return /^\d{1,20}$/.test(id) ? Number(BigInt(id) >> 22n) + 1288834974657 : 0;
}
