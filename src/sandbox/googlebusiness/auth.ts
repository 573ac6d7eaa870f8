// Business Profile's sign-in as the simulator plays it (docs/platforms/googlebusiness.md "Auth"): Google's OAuth 2.0
// (../google/oauth.ts) signing in as a business account with two locations that follow from the username, and the
// bearer check every API route runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { numericId } from '../framework/simulator.ts';
import { registerGoogleOAuth } from '../google/oauth.ts';
import { KIND, type GbpContext, type GbpUser } from './state.ts';

/** Google access tokens last an hour (`expires_in: 3599` in practice). */
const ACCESS_TTL = 3599;
/** Google refresh tokens do not expire on a schedule (⚠ unverified: 7 days for apps in "Testing"); ten years here. */
const REFRESH_TTL = 10 * 365 * 24 * 3600;
export const SCOPE = 'https://www.googleapis.com/auth/business.manage';

/** The user a username signs in as: one business account with two locations, all following from the name. */
export function userFor(username: string): GbpUser {
  const key = username.toLowerCase();
  return {
    username,
    account: `accounts/${numericId(`gbp-account:${key}`)}`,
    accountName: `${username} Trading`,
    locations: [
      { name: `locations/${numericId(`gbp-location:${key}:1`)}`, title: `${username} Bakery`, locality: 'Springfield' },
      { name: `locations/${numericId(`gbp-location:${key}:2`)}`, title: `${username} Café`, locality: 'Shelbyville' },
    ],
  };
}

/** The user behind the bearer token, or undefined after the 401. One read: whether the token was revoked. */
export async function authenticate(
  ctx: GbpContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<GbpUser | undefined> {
  const header = request.headers.authorization ?? '';
  const check = ctx.kit.tokens.verify(header.startsWith('Bearer ') ? header.slice(7) : '', 'gbp_access');
  if (!check.ok || (await ctx.kit.store.get(KIND.revoked, check.claims.jti))) {
    ctx.errorReply(reply, 401, 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    return undefined;
  }
  if (
    !String(check.claims.scope ?? '')
      .split(' ')
      .includes(SCOPE)
  ) {
    ctx.errorReply(reply, 403, 'Request had insufficient authentication scopes.');
    return undefined;
  }
  return userFor(String(check.claims.username));
}

export function registerGbpAuth(app: FastifyInstance, ctx: GbpContext): void {
  registerGoogleOAuth(app, {
    kit: ctx.kit,
    product: 'Google Business Profile',
    prefix: 'gbp',
    kinds: KIND,
    accessTtl: ACCESS_TTL,
    refreshTtl: REFRESH_TTL,
    requireSecret: false,
    async signIn(username) {
      const user = userFor(username);
      await ctx.kit.store.put(KIND.user, username.toLowerCase(), user);
      return { sub: user.account };
    },
  });
}
