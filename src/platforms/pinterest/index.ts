// The Pinterest adapter (API v5, docs/platforms/pinterest.md): OAuth 2.0 authorization code without PKCE, the app
// authenticated with HTTP Basic at the token endpoint, continuous refresh tokens (each refresh answers a new one,
// returned as it came and stored by the engine before use); Pins to the board the post names, with images Pinterest
// fetches from Herald's signed URLs, carousels of 2–5 images, and videos uploaded through `/v5/media` (media.ts). There
// is no idempotency key: the part key is only a marker, and `findPublished` looks the part up among the recent Pins of
// its board (lookup.ts rules). Pin analytics give `fetchMetrics`.
import { randomBytes } from 'node:crypto';
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  type AccountInfo,
  type AdapterConfig,
  type Credentials,
  type OAuthCapability,
  type PlatformAdapter,
  type PlatformSession,
} from '../types.ts';
import { lookupSince } from '../lookup.ts';
import * as client from './client.ts';
import { limits } from './limits.ts';
import { isThisPart, metricsFrom, metricTypes, pinBody, pinTime, pinUrl, utcDate, type PinOptions } from './map.ts';
import { prepareMedia } from './media.ts';

/** Pinterest's API host for real connections (src/container.ts `platformUrls`). */
export const PINTEREST_API_URL = 'https://api.pinterest.com';
/** Where Pins are shown (and the consent screen is). */
const WEB_URL = 'https://www.pinterest.com';

/**
 * What Herald asks for (the OpenAPI's security of each call): `POST /v5/pins` lists boards:read, boards:write,
 * pins:read and pins:write; the account's name needs user_accounts:read. Secret boards would need the `_secret`
 * variants, which Herald does not ask for: it lists and publishes to public and protected boards.
 */
const SCOPES = ['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read'];
/** The app a sandbox sign-in uses when no app is configured (the simulator takes any). */
const SANDBOX_APP = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' };
/** How many of a board's most recent Pins a look-up reads (pages of 100). */
const LOOKUP_PAGE = 100;
const LOOKUP_PAGES = 3;
/** Boards Herald records on the connection (pages of 250). */
const BOARD_PAGES = 4;
const DAY = 86_400_000;
/** ⚠ unverified: Pin analytics answer the last 90 days. */
const ANALYTICS_DAYS = 90;

/** A board as the connection records it (`settings.boards`, shown by GET /v1/connections/{id} as options). */
export interface BoardChoice {
  id: string;
  name: string;
  privacy: string | null;
}

function credentialsFrom(answer: client.TokenAnswer, now: number, previous?: Credentials): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? previous?.refreshToken ?? null,
    expiresAt: answer.expires_in ? new Date(now + answer.expires_in * 1000).toISOString() : null,
  };
}

/** A refused code or refresh token (a 4xx other than 429) means the user must sign in again. */
function refused(error: unknown, what: string): unknown {
  return error instanceof PlatformError &&
    error.platformStatus !== undefined &&
    error.platformStatus < 500 &&
    error.platformStatus !== 429
    ? new PlatformError(
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
        `Pinterest refused the ${what}: ${error.message}`,
        {
          platformStatus: error.platformStatus,
          platformBody: error.platformBody,
        },
      )
    : error;
}

/** The account's boards, for the post's `board_id` (the first is the default of calls that name none). */
async function boardsOf(http: PlatformHttp, token: string): Promise<BoardChoice[]> {
  const out: BoardChoice[] = [];
  let bookmark: string | undefined;
  for (let page = 0; page < BOARD_PAGES; page++) {
    const answer = await client.boards(http, token, bookmark);
    out.push(...answer.items.map((b) => ({ id: b.id, name: b.name, privacy: b.privacy ?? null })));
    if (!answer.bookmark) break;
    bookmark = answer.bookmark;
  }
  return out;
}

async function account(http: PlatformHttp, token: string): Promise<AccountInfo> {
  const [me, boards] = await Promise.all([client.userAccount(http, token), boardsOf(http, token)]);
  return {
    accountId: me.id,
    handle: me.username,
    displayName: me.business_name || null,
    avatarUrl: me.profile_image ?? null,
    settings: { boards, default_board_id: boards[0]?.id ?? null },
  };
}

/**
 * The part's board: the one `platform_options.pinterest.boards` names for this connection, else `board_id` (the posts
 * API's rules require one of them), else the connection's first board, for callers that bypass those rules (the
 * shared adapter contract suite sends no options).
 */
function boardOf(session: PlatformSession, options: PinOptions): string {
  const board =
    options.boards?.[session.connection.id] ?? options.board_id ?? session.connection.settings.default_board_id;
  if (typeof board === 'string' && board !== '') return board;
  throw new PlatformError(
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
    'A Pin goes to a board: set platform_options.pinterest.board_id (the connection lists its boards).',
  );
}

/**
 * Pinterest's refusal of a Pin from an app with trial access on its production API (403, code 29), made to say what
 * to do in Herald's terms. Nothing was created, so it stays a refusal. ⚠ unverified: that the tokens of the production
 * sign-in are accepted by the API Sandbox (Pinterest also hands out sandbox test tokens).
 */
function trialRefusal(error: unknown): unknown {
  if (
    !(error instanceof PlatformError) ||
    error.platformStatus !== 403 ||
    !/Trial access/i.test(error.platformBody ?? '')
  )
    return error;
  return new PlatformError(
    'permanent',
    'PLATFORM_PERMISSION_DENIED',
    'Pinterest refuses Pins from apps with trial access on its production API. Until the app has standard access, ' +
      "point Herald at Pinterest's API Sandbox (HERALD_PINTEREST_API_URL=https://api-sandbox.pinterest.com), " +
      'where Pins are visible only to their pinner.',
    { platformStatus: error.platformStatus, platformBody: error.platformBody },
  );
}

const webBase = (session: PlatformSession) => (session.connection.sandbox ? session.http.baseUrl : WEB_URL);

export function createPinterestAdapter(config: AdapterConfig): PlatformAdapter {
  const app = { id: config.clientId ?? SANDBOX_APP.id, secret: config.clientSecret ?? SANDBOX_APP.secret };
  const appOf = (ctx: { app: { clientId: string; clientSecret: string | null } }) => ({
    id: ctx.app.clientId,
    secret: ctx.app.clientSecret ?? '',
  });

  const oauth: OAuthCapability = {
    pkce: false, // Pinterest's code flow takes no code_challenge; the app authenticates with its secret
    scopes: SCOPES,
    authorizeUrl(ctx, { state }) {
      const url = new URL(`${ctx.webUrl.replace(/\/+$/, '')}/oauth/`);
      url.search = new URLSearchParams({
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        response_type: 'code',
        scope: SCOPES.join(','),
        state,
      }).toString();
      return url.toString();
    },
    async exchangeCode(ctx, { code }) {
      try {
        // ⚠ unverified: `continuous_refresh` is what apps made before 25 September 2025 send to get continuous refresh
        // tokens; later apps get them anyway.
        const answer = await client.token(ctx.http, appOf(ctx), {
          grant_type: 'authorization_code',
          code,
          redirect_uri: ctx.redirectUri,
          continuous_refresh: 'true',
        });
        return credentialsFrom(answer, Date.now());
      } catch (error) {
        throw refused(error, 'authorization code');
      }
    },
    async accounts(ctx, credentials) {
      return [{ account: await account(ctx.http, credentials.accessToken), credentials }];
    },
    // No revoke: Pinterest's `/v5/oauth/token/revoke` serves system users only.
  };

  return {
    platform: 'pinterest',
    limits,
    limitsFor: () => limits,
    // No idempotency on Pinterest: the key only marks the part; reconciliation looks at the board's recent Pins.
    newPartKey: () => `pin-${randomBytes(8).toString('hex')}`,

    prepareMedia: (session, media) => prepareMedia(session.http, session.credentials.accessToken, media),

    async publish(session, part) {
      // Pinterest takes 800 characters; Herald holds descriptions to Pinterest's published 500 (limits.ts).
      const issues = limits.text.check(part.text);
      if (issues.length > 0)
        throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', issues.map((i) => i.message).join(' '));
      const body = pinBody(part, boardOf(session, part.options as PinOptions));
      const pin = await client.createPin(session.http, session.credentials.accessToken, body).catch((error) => {
        throw trialRefusal(error);
      });
      return { id: pin.id, url: pinUrl(webBase(session), pin.id) };
    },

    // ⚠ unverified: that a new Pin is listed on its board at once, newest first. The look-up reads the board's most
    // recent Pins back to the part's first send and takes the oldest that is provably this part's.
    async findPublished(session, part) {
      const board = boardOf(session, part.options as PinOptions);
      const since = lookupSince(part);
      const matches: string[] = [];
      let bookmark: string | undefined;
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const answer = await client.boardPins(
          session.http,
          session.credentials.accessToken,
          board,
          LOOKUP_PAGE,
          bookmark,
        );
        let older = false;
        for (const pin of answer.items) {
          if ((pinTime(pin.created_at) ?? 0) < since) older = true;
          else if (isThisPart(part, pin)) matches.push(pin.id);
        }
        if (older || !answer.bookmark) break;
        bookmark = answer.bookmark;
      }
      const oldest = matches.at(-1);
      return oldest ? { id: oldest, url: pinUrl(webBase(session), oldest) } : null;
    },

    async deletePost(session, post) {
      await client.deletePin(session.http, session.credentials.accessToken, post.id);
    },

    async refreshCredentials(session) {
      const refreshToken = session.credentials.refreshToken;
      if (!refreshToken)
        throw new PlatformError(
          'auth_expired',
          'PLATFORM_RECONNECT_REQUIRED',
          'Pinterest gave no refresh token; reconnect.',
        );
      try {
        // Continuous refresh: the answer carries a new refresh token (60 days); it is returned as it came.
        const answer = await client.token(session.http, app, {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
        });
        return credentialsFrom(answer, session.clock.now().getTime(), session.credentials);
      } catch (error) {
        throw refused(error, 'refresh token');
      }
    },

    verifyAccount: (session) => account(session.http, session.credentials.accessToken),

    async fetchMetrics(session, post) {
      const token = session.credentials.accessToken;
      const pin = await client.getPin(session.http, token, post.id);
      const today = session.clock.now().getTime();
      const created = pinTime(pin.created_at) ?? today;
      const start = Math.max(created, today - (ANALYTICS_DAYS - 1) * DAY);
      const answer = await client.pinAnalytics(session.http, token, post.id, {
        start_date: utcDate(start),
        end_date: utcDate(today),
        metric_types: metricTypes(pin.media?.media_type === 'video'),
      });
      return metricsFrom(answer);
    },

    oauth,

    /** The platform's own sign-in against the simulator: authorize as `sandbox_username`, then the code exchange. */
    async connectSandbox(http, { username, workspace }) {
      const state = randomBytes(12).toString('base64url');
      const redirect = 'http://127.0.0.1/herald/oauth/callback';
      const authorize = await http.request({
        method: 'GET',
        path: '/oauth/',
        query: {
          client_id: app.id,
          redirect_uri: redirect,
          response_type: 'code',
          scope: SCOPES.join(','),
          state,
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
          `The Pinterest sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`,
        );
      const credentials = credentialsFrom(
        await client.token(http, app, { grant_type: 'authorization_code', code, redirect_uri: redirect }),
        Date.now(),
      );
      return { account: await account(http, credentials.accessToken), credentials };
    },
  };
}
