// The Facebook Pages adapter (docs/platforms/facebook.md "Calls"): Page access tokens from Facebook Login, text and
// link posts on `/{page-id}/feed`, photos attached as unpublished photos, videos through the resumable upload.
// Scheduling is Herald's (a post goes out when due), never Facebook's `scheduled_publish_time`. Facebook has no
// idempotency key: a video is published by updating the one uploaded video (repeatable), and other posts are reconciled
// by a look-up — the first photo's `page_story_id`, else the Page's recent feed by text.
import { randomBytes } from 'node:crypto';
import {
  PlatformError,
  type AdapterConfig,
  type OAuthContext,
  type PlatformAdapter,
  type PlatformSession,
  type PublishedPart,
} from '../types.ts';
import { lookupSince, mayBeThisPart, sameMedia } from '../lookup.ts';
import { graphTimeMs } from '../meta/graph.ts';
import * as client from './client.ts';
import { facebookInbox, facebookOwnComments } from './inbox.ts';
import { limits } from './limits.ts';
import { facebookMetrics } from './metrics.ts';
import { comparable, feedParams, mediaRef, postUrl } from './map.ts';
import { uploadMedia } from './media.ts';
import { facebookOAuth } from './oauth.ts';

const LOOKUP_PAGES = 3;
const SANDBOX_APP = { clientId: 'herald-sandbox', clientSecret: 'herald-sandbox-secret' };

export function createFacebookAdapter(config: AdapterConfig): PlatformAdapter {
  const version = config.apiVersion;
  const oauth = facebookOAuth(version);
  const g = (s: PlatformSession) => client.graph(s.http, version);
  const webBase = (s: PlatformSession) =>
    s.connection.sandbox ? `${s.connection.baseUrl}/web` : 'https://www.facebook.com';
  const published = (s: PlatformSession, id: string): PublishedPart => ({ id, url: postUrl(webBase(s), id) });

  async function publishVideo(session: PlatformSession, videoId: string, text: string): Promise<PublishedPart> {
    const token = session.credentials.accessToken;
    // Publishing a processed, unpublished video is an update of that one video: repeating it cannot post twice.
    await g(session).call({
      method: 'POST',
      path: `/${encodeURIComponent(videoId)}`,
      token,
      params: { published: true, description: text },
    });
    // The video is published from here on: a failed read of its post must not read as a refusal (the engine would
    // forget the part and upload the video again), so it is the unknown outcome it is.
    const state = await client.video(g(session), token, videoId, 'published,post_id').catch((error: unknown) => {
      throw new PlatformError(
        'unknown_outcome',
        'PLATFORM_UNKNOWN_OUTCOME',
        `Facebook published video ${videoId}, then its post could not be read: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    });
    if (!state.post_id)
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `Facebook published video ${videoId} but has not reported its post yet.`,
      );
    return published(session, state.post_id);
  }

  return {
    platform: 'facebook',
    inbox: facebookInbox({ graphOf: g, postUrl: (s, id) => postUrl(webBase(s), id) }),
    ownComments: facebookOwnComments({ graphOf: g, postUrl: (s, id) => postUrl(webBase(s), id) }),
    limits,
    limitsFor: () => limits,
    newPartKey: () => `fb-${randomBytes(8).toString('hex')}`,
    oauth,

    prepareMedia: (session, media) =>
      uploadMedia(g(session), session.credentials.accessToken, session.connection.accountId, media),

    async publish(session, part) {
      if (part.parent)
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          'Facebook Pages have no threads: a post cannot reply to another post.',
        );
      const refs = part.media.map(mediaRef);
      const videoRef = refs.find((r) => r.type === 'video');
      if (videoRef) {
        if (refs.length > 1)
          throw new PlatformError(
            'invalid_content',
            'PLATFORM_CONTENT_REJECTED',
            'A Facebook post carries photos or one video, not both.',
          );
        return publishVideo(session, videoRef.id, part.text);
      }
      const pageId = session.connection.accountId;
      const answer = await g(session).call<{ id: string }>({
        method: 'POST',
        path: `/${encodeURIComponent(pageId)}/feed`,
        token: session.credentials.accessToken,
        params: feedParams(
          part,
          refs.map((r) => r.id),
        ),
      });
      return published(session, answer.id);
    },

    // ⚠ unverified: that a new post shows in /{page-id}/feed within seconds. If it lags, a re-send meets
    // Facebook's duplicate check (506) and the target fails PLATFORM_DUPLICATE instead of posting twice.
    async findPublished(session, part) {
      const token = session.credentials.accessToken;
      const refs = part.media.map(mediaRef);
      const first = refs[0];
      if (first?.type === 'video') {
        const state = await client.video(g(session), token, first.id, 'published,post_id');
        return state.published && state.post_id ? published(session, state.post_id) : null;
      }
      if (first?.type === 'photo') {
        // An attached photo names the post it went out with (⚠ unverified for attached_media photos).
        const photo = await g(session).call<{ page_story_id?: string }>({
          method: 'GET',
          path: `/${encodeURIComponent(first.id)}`,
          token,
          params: { fields: 'id,page_story_id' },
        });
        return photo.page_story_id ? published(session, photo.page_story_id) : null;
      }
      // A text or link post, or a photo post whose photos an earlier attempt uploaded (not kept: compared by number).
      const wanted = comparable(part.text);
      const since = Math.floor(lookupSince(part) / 1000);
      const feed = await client.feed(g(session), token, session.connection.accountId, since, LOOKUP_PAGES);
      // Newest first from Facebook; the oldest match is the one the first send created.
      const match = feed
        .filter(
          (item) =>
            comparable(item.message) === wanted &&
            sameMedia(part, { count: client.feedMediaCount(item) }) &&
            mayBeThisPart(part, { id: item.id, createdAt: graphTimeMs(item.created_time) }),
        )
        .at(-1);
      return match ? published(session, match.id) : null;
    },

    async deletePost(session, post) {
      await g(session).call({
        method: 'DELETE',
        path: `/${encodeURIComponent(post.id)}`,
        token: session.credentials.accessToken,
      });
    },

    fetchMetrics: (session, post) => facebookMetrics(g(session), session.credentials.accessToken, post.id),

    // Page tokens from a long-lived user token do not expire; one that stops working needs a new sign-in.
    async refreshCredentials() {
      throw new PlatformError(
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
        'Facebook Page tokens cannot be refreshed; sign in with Facebook again to reconnect the Page.',
      );
    },

    async verifyAccount(session) {
      const me = await g(session).call<{ id: string; name?: string; username?: string }>({
        method: 'GET',
        path: '/me',
        token: session.credentials.accessToken,
        params: { fields: 'id,name,username' },
      });
      return { accountId: me.id, handle: me.username ?? me.id, displayName: me.name ?? null };
    },

    async connectSandbox(http, { username, workspace }) {
      const ctx: OAuthContext = {
        http,
        webUrl: http.baseUrl,
        sandbox: true,
        app: SANDBOX_APP,
        redirectUri: 'http://127.0.0.1/herald/oauth/callback',
      };
      const state = randomBytes(12).toString('base64url');
      const consent = new URL(oauth.authorizeUrl(ctx, { state, codeChallenge: null }));
      consent.searchParams.set('sandbox_username', username);
      if (workspace) consent.searchParams.set('sandbox_ws', workspace);
      const answer = await http.request({ method: 'GET', path: consent.toString() });
      const location = answer.headers.location;
      const back = typeof location === 'string' ? new URL(location) : undefined;
      const code = back?.searchParams.get('code');
      if (answer.status !== 302 || !back || back.searchParams.get('state') !== state || !code) {
        throw new PlatformError(
          'permanent',
          'PLATFORM_REJECTED',
          `The Facebook sandbox did not authorize (${answer.status}: ${answer.text().slice(0, 200)}).`,
        );
      }
      const user = await oauth.exchangeCode(ctx, { code, codeVerifier: null });
      const [page] = await oauth.accounts(ctx, user);
      if (!page)
        throw new PlatformError('permanent', 'PLATFORM_REJECTED', 'The Facebook sandbox user manages no Page.');
      return page;
    },
  };
}
