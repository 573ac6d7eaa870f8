// The signed-in channel as Herald's account, and Google's token answers as credentials.
import type { PlatformHttp } from '../http-contract.ts';
import { PlatformError, type Credentials } from '../types.ts';
import * as client from './client.ts';

/** The token answer as credentials; a refresh answers no refresh token, so the one held is kept. */
export function credentialsFrom(answer: client.TokenAnswer, now: Date, held?: string | null): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? held ?? null,
    expiresAt: answer.expires_in ? new Date(now.getTime() + answer.expires_in * 1000).toISOString() : null,
  };
}

/** A refused code or refresh token (a 4xx other than 429) means the user must sign in again. */
export function refused(error: unknown, what: string): unknown {
  return error instanceof PlatformError &&
    error.platformStatus !== undefined &&
    error.platformStatus < 500 &&
    error.platformStatus !== 429
    ? new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', `Google refused the ${what}: ${error.message}`, {
        platformStatus: error.platformStatus,
        platformBody: error.platformBody,
      })
    : error;
}

/** The channel as Herald's account; its uploads playlist is kept for the look-up. */
export async function account(http: PlatformHttp, token: string) {
  const channel = await client.myChannel(http, token);
  return {
    accountId: channel.id,
    handle: channel.snippet.customUrl ?? channel.snippet.title,
    displayName: channel.snippet.title || null,
    avatarUrl: channel.snippet.thumbnails?.default?.url ?? null,
    settings: { uploadsPlaylist: channel.contentDetails.relatedPlaylists.uploads },
  };
}
