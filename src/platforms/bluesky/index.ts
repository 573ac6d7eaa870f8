// The Bluesky adapter (docs/platforms/bluesky.md): app-password sessions (2 h access, 90 d refresh, a new session from
// the stored app password when the refresh token is gone), blobs for images and video, posts as
// app.bsky.feed.post records with facets, embeds and reply refs. Herald chooses each part's record key (a
// TID) before sending it, so a re-send hits the same key and can never create a second post; reconciliation
// is a getRecord at that key.
import { randomBytes } from 'node:crypto';
import { readAll } from '../http.ts';
import {
  definedCounts,
  PlatformError,
  type AdapterConfig,
  type Credentials,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
} from '../types.ts';
import * as client from './client.ts';
import { detectFacets } from './facets.ts';
import { blueskyInbox } from './inbox.ts';
import { limits } from './limits.ts';
import { newTid } from './tid.ts';

const COLLECTION = 'app.bsky.feed.post';

/** The `exp` claim of a JWT, as ISO time (the session tokens are JWTs). */
function expiryOf(jwt: string): string | null {
  try {
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: number };
    return claims.exp ? new Date(claims.exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}

function credentialsFrom(s: client.SessionAnswer, appPassword: string | null | undefined): Credentials {
  return {
    accessToken: s.accessJwt,
    refreshToken: s.refreshJwt,
    expiresAt: expiryOf(s.accessJwt),
    appPassword: appPassword ?? null,
  };
}

function embedOf(media: PreparedMedia[]): Record<string, unknown> | undefined {
  if (media.length === 0) return undefined;
  const ratio = (m: PreparedMedia) =>
    m.width && m.height ? { aspectRatio: { width: m.width, height: m.height } } : {};
  const video = media.find((m) => m.kind === 'video');
  if (video)
    return {
      $type: 'app.bsky.embed.video',
      video: JSON.parse(video.platformRef) as unknown,
      ...(video.altText ? { alt: video.altText } : {}),
      ...ratio(video),
    };
  // `alt` is required by the lexicon; an empty string is allowed and means "no description".
  return {
    $type: 'app.bsky.embed.images',
    images: media.map((m) => ({ image: JSON.parse(m.platformRef) as unknown, alt: m.altText ?? '', ...ratio(m) })),
  };
}

export function createBlueskyAdapter(_config: AdapterConfig): PlatformAdapter {
  const rkeyOf = (uri: string) => uri.split('/').pop()!;
  const postUrl = (s: PlatformSession, uri: string) =>
    `${s.connection.sandbox ? s.connection.baseUrl : 'https://bsky.app'}/profile/${s.connection.handle}/post/${rkeyOf(uri)}`;
  const published = (s: PlatformSession, ref: client.StrongRef) => ({
    id: ref.uri,
    url: postUrl(s, ref.uri),
    ref: { uri: ref.uri, cid: ref.cid },
  });

  return {
    platform: 'bluesky',
    limits,
    limitsFor: () => limits,
    newPartKey: (now) => newTid(now),
    inbox: blueskyInbox,

    async prepareMedia(session, media) {
      const out: PreparedMedia[] = [];
      for (const item of media) {
        // Video goes up as a blob too (the simple path of docs/platforms/bluesky.md "Calls"): the video service is not
        // reachable on every PDS, and a self-hosted one is what Herald must work with. ⚠ unverified: playback may lag.
        let blob: client.BlobRef;
        try {
          blob = await client.uploadBlob(
            session.http,
            session.credentials.accessToken,
            await readAll(await item.open()),
            item.contentType,
          );
        } catch (error) {
          // Any refusal of the bytes themselves is about the media, whatever XRPC error name the PDS chose.
          if (error instanceof PlatformError && error.kind === 'invalid_content')
            throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', error.message, {
              platformStatus: error.platformStatus,
              platformBody: error.platformBody,
            });
          throw error;
        }
        out.push({
          platformRef: JSON.stringify(blob),
          kind: item.kind,
          altText: item.altText,
          width: item.width,
          height: item.height,
        });
      }
      return out;
    },

    async publish(session, part) {
      const record: Record<string, unknown> = {
        $type: COLLECTION,
        text: part.text,
        createdAt: part.firstSentAt.toISOString(),
      };
      const facets = await detectFacets(part.text, (handle) => client.resolveHandle(session.http, handle));
      if (facets.length > 0) record.facets = facets;
      const langs = part.options.languages;
      if (Array.isArray(langs) && langs.length > 0) record.langs = langs;
      const embed = embedOf(part.media);
      if (embed) record.embed = embed;
      if (part.parent && part.root) {
        record.reply = {
          root: { uri: part.root.ref?.uri, cid: part.root.ref?.cid },
          parent: { uri: part.parent.ref?.uri, cid: part.parent.ref?.cid },
        };
      }
      try {
        return published(
          session,
          await client.createRecord(session.http, session.credentials.accessToken, {
            repo: session.connection.accountId,
            collection: COLLECTION,
            rkey: part.key,
            record,
          }),
        );
      } catch (error) {
        // A record already at our key is the post an earlier, unanswered send created (a PDS answers 500).
        if (error instanceof PlatformError && error.kind === 'transient') {
          // A failed read leaves the 500 as the answer: its kind must say the record may exist (a refusal would
          // tell the engine to forget the part's key, and the next send would make a second record).
          const existing = await client
            .getRecord(
              session.http,
              session.credentials.accessToken,
              session.connection.accountId,
              COLLECTION,
              part.key,
            )
            .catch(() => undefined);
          if (existing) return published(session, existing);
        }
        throw error;
      }
    },

    async findPublished(session, part) {
      const ref = await client.getRecord(
        session.http,
        session.credentials.accessToken,
        session.connection.accountId,
        COLLECTION,
        part.key,
      );
      return ref ? published(session, ref) : null;
    },

    async deletePost(session, post) {
      await client.deleteRecord(
        session.http,
        session.credentials.accessToken,
        session.connection.accountId,
        COLLECTION,
        rkeyOf(post.id),
      );
    },

    async fetchMetrics(session, post) {
      // Bluesky counts no views: only the interactions are given, the rest is unavailable.
      const [view] = await client.getPosts(session.http, session.credentials.accessToken, [post.id]);
      if (!view)
        throw new PlatformError(
          'permanent',
          'PLATFORM_REJECTED',
          `Bluesky no longer has the post ${post.id} (deleted?).`,
        );
      // The counts are optional in the lexicon: one left out is unavailable, never read as 0.
      return definedCounts({
        likes: view.likeCount,
        shares: view.repostCount,
        comments: view.replyCount,
        quotes: view.quoteCount,
      });
    },

    async refreshCredentials(session) {
      const { refreshToken, appPassword } = session.credentials;
      try {
        if (!refreshToken) throw new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', 'No refresh token.');
        return credentialsFrom(await client.refreshSession(session.http, refreshToken), appPassword);
      } catch (error) {
        if (!(error instanceof PlatformError) || error.kind !== 'auth_expired') throw error;
        // The refresh token expired (90 days) or was revoked: a new session from the app password, if kept.
        if (!appPassword)
          throw new PlatformError(
            'auth_expired',
            'PLATFORM_RECONNECT_REQUIRED',
            `Bluesky refused to refresh the session and no app password is stored: ${error.message}`,
          );
        try {
          return credentialsFrom(
            await client.createSession(session.http, session.connection.accountId, appPassword),
            appPassword,
          );
        } catch (login) {
          if (login instanceof PlatformError && (login.kind === 'auth_expired' || login.platformStatus === 401)) {
            throw new PlatformError(
              'auth_expired',
              'PLATFORM_RECONNECT_REQUIRED',
              `Bluesky refused the stored app password: ${login.message}`,
              { platformStatus: login.platformStatus, platformBody: login.platformBody },
            );
          }
          throw login;
        }
      }
    },

    async verifyAccount(session) {
      const s = await client.getSession(session.http, session.credentials.accessToken);
      return { accountId: s.did, handle: s.handle, displayName: null };
    },

    // App passwords, not AT Protocol OAuth (docs/decisions.md "Bluesky connects with an app password").
    passwordLogin: {
      identifierLabel: 'Handle (e.g. alice.bsky.social)',
      passwordLabel: 'App password (Settings → Privacy and security → App passwords)',
      customServer: true,
      async login(http, { identifier, password }) {
        const login = await loginWithAppPassword(http, identifier.replace(/^@/, ''), password);
        return {
          account: { accountId: login.accountId, handle: login.handle, displayName: null },
          credentials: login.credentials,
        };
      },
    },

    async connectSandbox(http, { username }) {
      const handle = `${username.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.test`;
      const password = randomBytes(18).toString('base64url');
      const created = await client.xrpc(http, {
        method: 'POST',
        path: 'com.atproto.server.createAccount',
        json: { handle, email: `${handle}@sandbox.invalid`, password },
      });
      const { accessJwt } = created.json<client.SessionAnswer>();
      const appPassword = (
        await client.xrpc(http, {
          method: 'POST',
          path: 'com.atproto.server.createAppPassword',
          bearer: accessJwt,
          json: { name: 'Herald' },
        })
      ).json<{ password: string }>().password;
      const session = await client.createSession(http, handle, appPassword);
      return {
        account: { accountId: session.did, handle: session.handle, displayName: null },
        credentials: credentialsFrom(session, appPassword),
      };
    },
  };
}

/**
 * Connecting a real account: a session from handle (or DID/email) and app password (the CLI's `connections add
 * bluesky`).
 */
export async function loginWithAppPassword(
  http: Parameters<typeof client.createSession>[0],
  identifier: string,
  appPassword: string,
): Promise<{ accountId: string; handle: string; credentials: Credentials }> {
  const s = await client.createSession(http, identifier, appPassword);
  return { accountId: s.did, handle: s.handle, credentials: credentialsFrom(s, appPassword) };
}
