// YouTube's sign-in as the simulator plays it (docs/platforms/youtube.md "Auth"): Google's OAuth 2.0 (../google/oauth.ts)
// signing in as a channel that follows from the username, access tokens of one hour, and the bearer check every data
// call runs.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { numericId } from '../framework/simulator.ts';
import { registerGoogleOAuth } from '../google/oauth.ts';
import { KIND, type YoutubeChannel, type YoutubeContext } from './state.ts';

/** Google's access tokens live one hour (`expires_in` 3599). */
const ACCESS_TTL = 3599;
/**
 * Google's refresh tokens have no fixed lifetime (they end when revoked, unused for six months, or after 7 days for
 * an app in "Testing"); the simulator gives them a year. ⚠ unverified: the lifetimes are Google's OAuth policy pages.
 */
const REFRESH_TTL = 365 * 24 * 3600;

/** 22 URL-safe characters from a name: the tail of a channel id (`UC…`) and of its uploads playlist (`UU…`). */
function channelTail(username: string): string {
  return createHash('sha256')
    .update(`youtube:${numericId(username.toLowerCase())}`)
    .digest('base64url')
    .slice(0, 22);
}

/** The channel a username signs in as: it follows from the name, so a token's claims rebuild it without a read. */
export function channelFor(username: string): YoutubeChannel {
  const tail = channelTail(username);
  return { id: `UC${tail}`, username, title: username, uploads: `UU${tail}` };
}

/** Who a data call is from: the channel and the OAuth client (the Cloud project its quota is charged to). */
export interface Caller {
  channel: YoutubeChannel;
  project: string;
}

/** The caller behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: YoutubeContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Caller | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'youtube_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, 'authError: Request had invalid authentication credentials.');
    return undefined;
  }
  return { channel: channelFor(String(check.claims.username)), project: String(check.claims.cid ?? '') };
}

export function registerYoutubeAuth(app: FastifyInstance, ctx: YoutubeContext): void {
  registerGoogleOAuth(app, {
    kit: ctx.kit,
    product: 'YouTube',
    prefix: 'youtube',
    kinds: KIND,
    accessTtl: ACCESS_TTL,
    refreshTtl: REFRESH_TTL,
    requireSecret: true,
    async signIn(username) {
      const channel = channelFor(username);
      // Kept for what shows the channel without a token (the watch page); a later sign-in refreshes it.
      await ctx.kit.store.put(KIND.channel, channel.id, channel);
      return { sub: channel.id };
    },
  });
}
