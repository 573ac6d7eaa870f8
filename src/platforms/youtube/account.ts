// The signed-in channel as Herald's account.
import type { PlatformHttp } from '../http-contract.ts';
import * as client from './client.ts';

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
