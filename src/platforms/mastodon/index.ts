// The Mastodon adapter (docs/platforms/mastodon.md): tokens that live until revoked, per-instance limits read from
// /api/v2/instance, v2 media with its 202 → 206 → 200 processing, statuses with an Idempotency-Key chosen per
// part before the first send (the instance remembers it for an hour), threads through in_reply_to_id.
// Reconciliation reads the account's recent statuses and compares their source text.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sleep } from '../classify.ts';
import {
  PlatformError,
  type AdapterConfig,
  type OAuthCapability,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
} from '../types.ts';
import { lookupSince, mayBeThisPart, sameMedia } from '../lookup.ts';
import * as client from './client.ts';
import { limits, mastodonLimitsFor, type MastodonInstanceConfig } from './limits.ts';
import { mastodonInbox } from './inbox.ts';

const PROCESSING_DEADLINE_MS = 10 * 60_000;
const LOOKUP_PAGES = 3;

/** The part of an instance document kept on the connection (`settings.instance`). */
export function instanceSettings(doc: client.InstanceDocument): MastodonInstanceConfig {
  const c = doc.configuration ?? {};
  return {
    maxCharacters: c.statuses?.max_characters,
    maxMediaAttachments: c.statuses?.max_media_attachments,
    charactersReservedPerUrl: c.statuses?.characters_reserved_per_url,
    imageSizeLimit: c.media_attachments?.image_size_limit,
    videoSizeLimit: c.media_attachments?.video_size_limit,
  };
}

const OAUTH_SCOPES = ['read', 'write:statuses', 'write:media'];

/**
 * Mastodon's per-instance OAuth (docs/platforms/mastodon.md "Auth"): an app registered on each instance, PKCE S256
 * (4.3+), a token that lives until revoked. A refused code is `auth_expired`: the user must start again.
 */
function mastodonOAuth(
  verify: (session: PlatformSession) => ReturnType<PlatformAdapter['verifyAccount']>,
): OAuthCapability {
  const refused = (error: unknown) =>
    error instanceof PlatformError &&
    error.platformStatus !== undefined &&
    error.platformStatus < 500 &&
    error.platformStatus !== 429
      ? new PlatformError(
          'auth_expired',
          'PLATFORM_RECONNECT_REQUIRED',
          `The instance refused the authorization code: ${error.message}`,
          { platformStatus: error.platformStatus, platformBody: error.platformBody },
        )
      : error;
  return {
    pkce: true,
    scopes: OAUTH_SCOPES,
    async registerApp(ctx, { name, website }) {
      const app = (
        await client.call(ctx.http, {
          method: 'POST',
          path: '/api/v1/apps',
          json: { client_name: name, redirect_uris: ctx.redirectUri, scopes: OAUTH_SCOPES.join(' '), website },
        })
      ).json<{ client_id: string; client_secret: string }>();
      return { clientId: app.client_id, clientSecret: app.client_secret };
    },
    authorizeUrl(ctx, { state, codeChallenge }) {
      const url = new URL(`${ctx.webUrl}/oauth/authorize`);
      const params: Record<string, string> = {
        response_type: 'code',
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        scope: OAUTH_SCOPES.join(' '),
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
        client_id: ctx.app.clientId,
        client_secret: ctx.app.clientSecret ?? '',
        redirect_uri: ctx.redirectUri,
        scope: OAUTH_SCOPES.join(' '),
      };
      if (codeVerifier) form.code_verifier = codeVerifier;
      try {
        const token = (await client.call(ctx.http, { method: 'POST', path: '/oauth/token', form })).json<{
          access_token: string;
        }>();
        return { accessToken: token.access_token };
      } catch (error) {
        throw refused(error);
      }
    },
    async accounts(ctx, credentials) {
      const session = {
        connection: {
          id: '',
          accountId: '',
          handle: '',
          baseUrl: ctx.http.baseUrl,
          settings: {},
          sandbox: ctx.sandbox,
        },
        credentials,
        http: ctx.http,
        clock: { now: () => new Date() },
      };
      return [{ account: await verify(session), credentials }];
    },
    async revoke(ctx, credentials) {
      await client.call(ctx.http, {
        method: 'POST',
        path: '/oauth/revoke',
        form: {
          client_id: ctx.app.clientId,
          client_secret: ctx.app.clientSecret ?? '',
          token: credentials.accessToken,
        },
      });
    },
  };
}

export function createMastodonAdapter(_config: AdapterConfig): PlatformAdapter {
  const adapter: PlatformAdapter = {
    platform: 'mastodon',
    inbox: mastodonInbox,
    limits,
    limitsFor: (connection) => mastodonLimitsFor((connection.settings.instance ?? {}) as MastodonInstanceConfig),
    newPartKey: () => randomUUID(),

    async prepareMedia(session, media) {
      const token = session.credentials.accessToken;
      const out: PreparedMedia[] = [];
      for (const item of media) {
        let { status, attachment } = await client.uploadMedia(
          session.http,
          token,
          { filename: item.id, contentType: item.contentType, data: () => item.open(), size: item.sizeBytes },
          item.altText,
        );
        const deadline = Date.now() + PROCESSING_DEADLINE_MS;
        // 202: still processing. Poll until 200 (masto.js polls every second, too).
        while (status === 202 || status === 206 || attachment.url === null) {
          if (Date.now() > deadline)
            throw new PlatformError(
              'transient',
              'PLATFORM_UNAVAILABLE',
              `Mastodon was still processing media ${attachment.id} after ${PROCESSING_DEADLINE_MS / 60_000} minutes.`,
            );
          await sleep(1000);
          ({ status, attachment } = await client.mediaStatus(session.http, token, attachment.id));
        }
        out.push({
          platformRef: attachment.id,
          kind: item.kind,
          altText: item.altText,
          width: item.width,
          height: item.height,
        });
      }
      return out;
    },

    async publish(session, part) {
      const o = part.options;
      const body: Record<string, unknown> = { status: part.text };
      if (part.media.length > 0) body.media_ids = part.media.map((m) => m.platformRef);
      if (part.parent) body.in_reply_to_id = part.parent.id;
      if (typeof o.visibility === 'string') body.visibility = o.visibility;
      if (typeof o.spoiler_text === 'string' && o.spoiler_text !== '') body.spoiler_text = o.spoiler_text;
      if (typeof o.sensitive === 'boolean') body.sensitive = o.sensitive;
      if (typeof o.language === 'string') body.language = o.language;
      const status = await client.postStatus(session.http, session.credentials.accessToken, part.key, body);
      return { id: status.id, url: status.url ?? status.uri };
    },

    async findPublished(session, part) {
      const token = session.credentials.accessToken;
      const since = lookupSince(part);
      let maxId: string | undefined;
      let found: client.MastoStatus | undefined;
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const statuses = await client.accountStatuses(session.http, token, session.connection.accountId, maxId);
        for (const s of statuses) {
          if (Date.parse(s.created_at) < since) return found ? { id: found.id, url: found.url ?? found.uri } : null;
          const media = (s.media_attachments ?? []).map((m) => m.id);
          if (
            s.in_reply_to_id !== (part.parent?.id ?? null) ||
            !sameMedia(part, { ids: media, count: media.length }) ||
            !mayBeThisPart(part, { id: s.id, createdAt: Date.parse(s.created_at) })
          )
            continue;
          // The rendered HTML differs from what was sent; the source endpoint gives the text back verbatim.
          // ⚠ unverified: that /source returns the text exactly as sent (whitespace, Unicode form) on every server.
          if ((await client.statusSource(session.http, token, s.id)).text === part.text) found = s;
        }
        if (statuses.length === 0) break;
        maxId = statuses.at(-1)!.id;
      }
      return found ? { id: found.id, url: found.url ?? found.uri } : null;
    },

    async deletePost(session, post) {
      await client.deleteStatus(session.http, session.credentials.accessToken, post.id);
    },

    async fetchMetrics(session, post) {
      const c = await client.statusCounts(session.http, session.credentials.accessToken, post.id);
      return {
        likes: c.favourites_count,
        comments: c.replies_count,
        shares: c.reblogs_count,
        ...(typeof c.quotes_count === 'number' ? { quotes: c.quotes_count } : {}),
      };
    },

    async refreshCredentials() {
      // Mastodon tokens live until revoked: a refused token cannot be refreshed, only replaced by reconnecting.
      throw new PlatformError(
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
        'Mastodon no longer accepts the access token (it was revoked); reconnect the account.',
      );
    },

    async verifyAccount(session) {
      const account = await client.verifyCredentials(session.http, session.credentials.accessToken);
      const doc = await client.instance(session.http);
      return {
        accountId: account.id,
        handle: `${account.acct}@${doc.domain}`,
        displayName: account.display_name || null,
        avatarUrl: account.avatar ?? null,
        settings: { instance: instanceSettings(doc) },
      };
    },

    oauth: mastodonOAuth((session) => adapter.verifyAccount(session)),

    async connectSandbox(http, { username, workspace }) {
      const redirect = 'http://127.0.0.1/herald/oauth/callback';
      const scopes = 'read write:statuses write:media';
      const app = (
        await client.call(http, {
          method: 'POST',
          path: '/api/v1/apps',
          json: { client_name: 'Herald', redirect_uris: redirect, scopes, website: 'https://github.com/herald' },
        })
      ).json<{ client_id: string; client_secret: string }>();
      const verifier = randomBytes(48).toString('base64url');
      const authorize = await http.request({
        method: 'GET',
        path: '/oauth/authorize',
        query: {
          response_type: 'code',
          client_id: app.client_id,
          redirect_uri: redirect,
          scope: scopes,
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          sandbox_username: username,
          ...(workspace ? { sandbox_ws: workspace } : {}),
        },
      });
      const code =
        typeof authorize.headers.location === 'string'
          ? new URL(authorize.headers.location).searchParams.get('code')
          : null;
      if (authorize.status !== 302 || !code)
        throw new PlatformError(
          'permanent',
          'PLATFORM_REJECTED',
          `The Mastodon sandbox did not authorize (${authorize.status}).`,
        );
      const token = (
        await client.call(http, {
          method: 'POST',
          path: '/oauth/token',
          form: {
            grant_type: 'authorization_code',
            code,
            client_id: app.client_id,
            client_secret: app.client_secret,
            redirect_uri: redirect,
            code_verifier: verifier,
            scope: scopes,
          },
        })
      ).json<{ access_token: string }>();
      const credentials = { accessToken: token.access_token };
      const session = {
        connection: { id: '', accountId: '', handle: '', baseUrl: http.baseUrl, settings: {}, sandbox: true },
        credentials,
        http,
        clock: { now: () => new Date() },
      };
      return { account: await adapter.verifyAccount(session), credentials };
    },
  };
  return adapter;
}
