// Google's OAuth 2.0 for YouTube (docs/platforms/youtube.md "Auth"), on the shared Google flow (../google/oauth.ts):
// YouTube's scopes, earlier grants included, and a refresh token required.
import type { OAuthCapability } from '../types.ts';
import { googleOAuth } from '../google/oauth.ts';
import * as client from './client.ts';
import { account } from './account.ts';

/**
 * Uploading (youtube.upload), reading the channel and its uploads (youtube.readonly: channels.list, playlistItems,
 * videos.list statistics), and deleting a video and, later, comments (youtube.force-ssl).
 */
export const SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

export function youtubeOAuth(): OAuthCapability {
  return googleOAuth({
    scopes: SCOPES,
    calls: client,
    authorizeParams: { include_granted_scopes: 'true' },
    // A YouTube connection without a refresh token would stop after an hour, and videos are scheduled days ahead.
    requireRefreshToken: true,
    accounts: async (ctx, credentials) => [{ account: await account(ctx.http, credentials.accessToken), credentials }],
  });
}
