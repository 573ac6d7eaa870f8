// The YouTube adapter (docs/platforms/youtube.md): Google OAuth 2.0 with PKCE and an offline grant (a refresh token
// that does not rotate), one video per post through the resumable upload protocol, reconciliation through the
// upload session or the channel's uploads playlist, and statistics from videos.list. The upload session is the
// part's pending reference: remembered before the first byte goes, so a worker killed mid-upload resumes the same
// session (or adopts the video it made) rather than uploading the video twice.
import { randomUUID } from 'node:crypto';
import {
  PlatformError,
  type AdapterConfig,
  type MediaSource,
  type PlatformAdapter,
  type PreparedMedia,
} from '../types.ts';
import { sandboxAuthorize } from '../sandbox-signin.ts';
import * as client from './client.ts';
import { youtubeInbox, youtubeOwnComments } from './inbox.ts';
import { limits } from './limits.ts';
import { CHUNK_QUANTUM, DEFAULT_CHUNK_BYTES } from './media.ts';
import { account } from './account.ts';
import { youtubeOAuth, SCOPES } from './oauth.ts';
import { credentialsFrom, refreshGoogleCredentials } from '../google/oauth.ts';
import { publishVideo, findVideo } from './publish.ts';

/** The Data API's host for real connections (src/container.ts `platformUrls`). */
export const YOUTUBE_API_URL = 'https://www.googleapis.com';

/** The client id a sandbox sign-in uses when no app is configured (the simulator takes any). */
const SANDBOX_CLIENT = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' };

export interface YoutubeAdapterOptions {
  /** Bytes per PUT, a multiple of 256 KiB (tests use the smallest to exercise many chunks). */
  chunkBytes?: number;
}

export function createYoutubeAdapter(config: AdapterConfig, options: YoutubeAdapterOptions = {}): PlatformAdapter {
  const app = { id: config.clientId ?? SANDBOX_CLIENT.id, secret: config.clientSecret ?? SANDBOX_CLIENT.secret };
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (chunkBytes <= 0 || chunkBytes % CHUNK_QUANTUM !== 0)
    throw new Error(
      `chunkBytes must be a positive multiple of ${CHUNK_QUANTUM} (YouTube's 256 KiB); got ${chunkBytes}.`,
    );
  // The source behind each prepared video, for `publish` of the same attempt: YouTube takes the bytes with the
  // video's metadata in one session, so the bytes go in `publish`. Keyed by the prepared object (held only while
  // the engine holds it); after a restart the engine prepares again and the session is found through `pending`.
  const sources = new WeakMap<PreparedMedia, MediaSource>();
  return {
    platform: 'youtube',
    limits,
    limitsFor: () => limits,
    // YouTube has no idempotency key: the key marks the part, the upload session (`pending`) finds it again.
    newPartKey: () => randomUUID(),

    async prepareMedia(_session, media) {
      const videos = media.filter((m) => m.kind === 'video');
      if (videos.length !== 1 || media.length !== 1)
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          `A YouTube post is one video; this one has ${videos.length} video(s) among ${media.length} media item(s).`,
        );
      const source = videos[0]!;
      const prepared: PreparedMedia = {
        platformRef: source.id,
        kind: 'video',
        altText: null,
        width: source.width,
        height: source.height,
      };
      sources.set(prepared, source);
      return [prepared];
    },

    publish: (session, part) => publishVideo(session, part, { sources, chunkBytes }),

    findPublished: (session, part) => findVideo(session, part),

    async deletePost(session, post) {
      await client.deleteVideo(session.http, session.credentials.accessToken, post.id);
    },

    refreshCredentials: (session) => refreshGoogleCredentials(session, app, client),

    verifyAccount: (session) => account(session.http, session.credentials.accessToken),

    /** videos.list part=statistics: views, likes and comments; YouTube gives no shares (left out: unavailable). */
    async fetchMetrics(session, post) {
      const [video] = await client.videos(session.http, session.credentials.accessToken, [post.id], 'statistics');
      if (!video)
        throw new PlatformError('permanent', 'PLATFORM_REJECTED', `YouTube has no video ${post.id} (deleted?).`);
      const s = video.statistics ?? {};
      const metrics: Record<string, number> = {};
      if (s.viewCount !== undefined) metrics.video_views = Number(s.viewCount);
      if (s.likeCount !== undefined) metrics.likes = Number(s.likeCount);
      if (s.commentCount !== undefined) metrics.comments = Number(s.commentCount);
      return metrics;
    },

    oauth: youtubeOAuth(),

    /** Comments and replies on the channel's videos (docs/inbox.md "Platforms"). */
    inbox: youtubeInbox,
    ownComments: youtubeOwnComments,

    /** Google's sign-in against the simulator: authorize as `sandbox_username` (offline, PKCE), then the exchange. */
    async connectSandbox(http, { username, workspace }) {
      const { code, verifier, redirect } = await sandboxAuthorize(http, {
        display: 'YouTube',
        path: '/o/oauth2/v2/auth',
        query: {
          response_type: 'code',
          client_id: app.id,
          scope: SCOPES.join(' '),
          access_type: 'offline',
          prompt: 'consent',
        },
        username,
        workspace,
      });
      const credentials = credentialsFrom(
        await client.token(http, true, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirect,
          code_verifier: verifier,
          client_id: app.id,
          client_secret: app.secret,
        }),
        new Date(),
      );
      return { account: await account(http, credentials.accessToken), credentials };
    },
  };
}
