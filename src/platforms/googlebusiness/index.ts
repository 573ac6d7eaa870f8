// The Google Business Profile adapter (docs/platforms/googlebusiness.md): local posts (STANDARD, EVENT, OFFER, with a
// call to action and one photo Google fetches from Herald's signed URL) on the location the connection chose, followed
// through Google's review (publish.ts); Google OAuth with refresh tokens that do not rotate (oauth.ts). No threads,
// no idempotency key (the part key is a marker; the look-up lists the location's posts), no per-post metrics: the
// v4 `localPosts.reportInsights` is on Google's deprecation schedule (⚠ unverified whether it still answers) and the
// Performance API is per location, so there is no `fetchMetrics` (docs/platforms/googlebusiness.md).
import { randomUUID } from 'node:crypto';
import { pullUrl } from '../meta/containers.ts';
import { PlatformError, type AdapterConfig, type PlatformAdapter, type PlatformSession } from '../types.ts';
import * as client from './client.ts';
import { limits, type GooglebusinessOptions } from './limits.ts';
import { localPostBody } from './map.ts';
import { refreshGoogleCredentials } from '../google/oauth.ts';
import { connectSandbox, googlebusinessOAuth, locationAccount, SANDBOX_CLIENT } from './oauth.ts';
import { googlebusinessInbox } from './inbox.ts';
import { followReview, locationOf, lookUp } from './publish.ts';

/** My Business v4, where local posts live; the other Google hosts are in client.ts. */
export const GOOGLEBUSINESS_API_URL = 'https://mybusiness.googleapis.com';

export function createGooglebusinessAdapter(config: AdapterConfig): PlatformAdapter {
  const app = { id: config.clientId ?? SANDBOX_CLIENT.id, secret: config.clientSecret ?? SANDBOX_CLIENT.secret };
  return {
    platform: 'googlebusiness',
    limits,
    limitsFor: () => limits,
    // A marker only: Google takes no idempotency key, so a part is found again by the look-up (publish.ts).
    newPartKey: () => `gbp-${randomUUID()}`,

    // Google fetches the photo itself from `media[].sourceUrl`: the prepared media is Herald's signed URL.
    async prepareMedia(_session, media) {
      const out = [];
      for (const item of media) {
        if (item.kind !== 'image')
          throw new PlatformError(
            'media_rejected',
            'PLATFORM_MEDIA_REJECTED',
            `Google Business Profile posts take one photo, not ${item.kind} (media ${item.id}).`,
          );
        out.push({
          platformRef: await pullUrl('Google Business Profile', item),
          kind: item.kind,
          altText: item.altText,
          width: item.width,
          height: item.height,
        });
      }
      return out;
    },

    async publish(session, part) {
      if (part.index > 0)
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          'Google Business Profile has no threads: a local post is one post.',
        );
      const body = localPostBody(part.text, part.options as GooglebusinessOptions, part.media);
      const created = await client.createLocalPost(
        session.http,
        session.credentials.accessToken,
        locationOf(session),
        body,
      );
      return followReview(session, created);
    },

    findPublished: (session, part) => lookUp(session, part),

    async deletePost(session, post) {
      await client.deleteLocalPost(session.http, session.credentials.accessToken, post.id);
    },

    // Google's refresh tokens do not rotate: the answer has a new access token, and the connection keeps its refresh token.
    refreshCredentials: (session: PlatformSession) => refreshGoogleCredentials(session, app, client),

    async verifyAccount(session) {
      const parent = locationOf(session);
      const at = parent.indexOf('/locations/');
      const location = await client.getLocation(
        session.http,
        session.connection.sandbox,
        session.credentials.accessToken,
        parent.slice(at + 1),
      );
      return locationAccount(parent.slice(0, at), location);
    },

    oauth: googlebusinessOAuth(),

    /** The location's reviews and the owner's replies (docs/inbox.md "Platforms"). */
    inbox: googlebusinessInbox,

    connectSandbox: (http, options) => connectSandbox(http, app, options),
  };
}
