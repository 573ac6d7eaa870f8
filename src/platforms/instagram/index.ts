// The Instagram adapter (platforms.md §3), Instagram API with Instagram Login: Instagram fetches each media item
// from Herald's short-lived signed URL into a container; Herald polls the container until FINISHED, checks the
// rolling 24-hour quota (content_publishing_limit), publishes it (media_publish), reads the permalink and posts
// the first comment. The container made for a part key is remembered, so a re-send after an unknown outcome
// looks at that container (PUBLISHED: find the media; otherwise publish that same container) rather than
// making a second post; without it (another process, a restart) the account's recent media are searched by
// caption and time.
import { randomBytes } from 'node:crypto';
import { comparable, LOOKUP_SLACK_MS, pullUrl, RememberedContainers } from '../meta/containers.ts';
import { createGraphClient, DEFAULT_GRAPH_VERSION, waitForContainer, type ContainerPollOptions, type GraphClient, type GraphParams } from '../meta/graph.ts';
import type { PlatformHttp } from '../http.ts';
import { isPlatformError, PlatformError, type AdapterConfig, type Credentials, type OAuthCapability, type OAuthContext, type OutgoingPart, type PlatformAdapter, type PlatformSession, type PreparedMedia, type PublishedPart } from '../types.ts';
import * as client from './client.ts';
import { limits } from './limits.ts';

const SCOPES = ['instagram_business_basic', 'instagram_business_content_publish', 'instagram_business_manage_comments', 'instagram_business_manage_insights'] as const;
const TOKEN_URL = 'https://api.instagram.com/oauth/access_token';
/** The Graph host of Instagram Login tokens (real connections). */
export const INSTAGRAM_API_URL = 'https://graph.instagram.com';
const LONG_LIVED_SECONDS = 60 * 86_400;

interface InstagramOptions {
  type?: 'feed' | 'reel' | 'story';
  first_comment?: string;
  share_to_feed?: boolean;
}

/** A 4xx from a token endpoint means the code or token is no good: the user must sign in again. */
function asAuthFailure(error: unknown, what: string): unknown {
  if (isPlatformError(error) && error.platformStatus !== undefined && error.platformStatus >= 400 && error.platformStatus < 500 && error.kind !== 'rate_limited') {
    return new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', `Instagram refused ${what}: ${error.message}`, { platformStatus: error.platformStatus, platformBody: error.platformBody });
  }
  return error;
}

export function createInstagramAdapter(config: AdapterConfig, pollOptions: ContainerPollOptions = {}): PlatformAdapter {
  const version = config.apiVersion ?? DEFAULT_GRAPH_VERSION;
  const clientId = config.clientId ?? 'herald-sandbox';
  const clientSecret = config.clientSecret ?? 'herald-sandbox-secret';
  const remembered = new RememberedContainers();
  const graphOf = (http: PlatformHttp): GraphClient => createGraphClient({ http, version, platform: 'Instagram' });

  const postUrl = (session: PlatformSession, node: client.IgMediaNode): string => {
    const path = `${node.media_product_type === 'REELS' ? 'reel' : 'p'}/${node.shortcode ?? node.id}/`;
    if (session.connection.sandbox) return `${session.connection.baseUrl}/web/${path}`;
    return node.permalink ?? `https://www.instagram.com/${path}`;
  };

  /** Creates the container(s) of a part and returns the one to publish (children first for a carousel). */
  async function createContainers(g: GraphClient, session: PlatformSession, part: OutgoingPart, options: InstagramOptions): Promise<string> {
    const token = session.credentials.accessToken;
    const user = session.connection.accountId;
    const media = part.media;
    const type = options.type ?? 'feed';
    if (media.length === 0) throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'An Instagram post needs an image or a video.');
    const itemParams = (m: PreparedMedia, extra: GraphParams): GraphParams => (m.kind === 'video'
      ? { video_url: m.platformRef, ...extra }
      : { image_url: m.platformRef, alt_text: m.altText ?? undefined, ...extra });
    if (type === 'story') {
      if (media.length !== 1) throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', `An Instagram story is one image or video; the post has ${media.length}.`);
      const m = media[0]!;
      return client.createContainer(g, token, user, m.kind === 'video' ? { media_type: 'STORIES', video_url: m.platformRef } : { media_type: 'STORIES', image_url: m.platformRef });
    }
    if (type === 'reel' && (media.length !== 1 || media[0]!.kind !== 'video')) throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'An Instagram Reel is exactly one video.');
    if (media.length === 1) {
      const m = media[0]!;
      if (m.kind === 'video') return client.createContainer(g, token, user, { media_type: 'REELS', video_url: m.platformRef, caption: part.text, share_to_feed: options.share_to_feed ?? true });
      return client.createContainer(g, token, user, itemParams(m, { caption: part.text }));
    }
    if (media.length > 10) throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', `An Instagram carousel holds 2 to 10 items; the post has ${media.length}.`);
    const children: string[] = [];
    for (const m of media) children.push(await client.createContainer(g, token, user, itemParams(m, { is_carousel_item: true, media_type: m.kind === 'video' ? 'VIDEO' : 'IMAGE' })));
    // Every child must be FINISHED before the carousel container can be made.
    for (const id of children) await waitForContainer('Instagram', id, () => client.containerState(g, token, id), pollOptions);
    return client.createContainer(g, token, user, { media_type: 'CAROUSEL', children: children.join(','), caption: part.text });
  }

  /** The account's published media matching the part (caption, time), oldest first. */
  async function lookUp(g: GraphClient, session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
    const token = session.credentials.accessToken;
    const edge = (part.options as InstagramOptions).type === 'story' ? 'stories' : 'media';
    const since = part.firstSentAt.getTime() - LOOKUP_SLACK_MS;
    const wanted = comparable(part.text);
    const nodes = await client.recentMedia(g, token, session.connection.accountId, edge);
    const match = nodes
      .filter((n) => (n.timestamp ? Date.parse(n.timestamp.replace(/\+0000$/, 'Z')) >= since : true) && (edge === 'stories' || comparable(n.caption) === wanted))
      .at(-1);
    return match ? { id: match.id, url: postUrl(session, match) } : null;
  }

  async function firstComment(g: GraphClient, token: string, mediaId: string, text: string): Promise<Record<string, string>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { first_comment_id: await client.comment(g, token, mediaId, text) };
      } catch (error) {
        // The post is out: a comment that fails does not fail it. Only a plain transient failure is tried again
        // (an unknown outcome may have made the comment already).
        if (attempt < 3 && isPlatformError(error) && (error.kind === 'transient' || error.kind === 'rate_limited') && (error.retryAfterMs ?? 0) <= 5000) continue;
        return { first_comment_error: isPlatformError(error) ? error.message : String(error) };
      }
    }
  }

  const credentialsOf = (accessToken: string, expiresIn: number | undefined, now: number): Credentials => ({
    accessToken,
    refreshToken: null,
    expiresAt: new Date(now + (expiresIn ?? LONG_LIVED_SECONDS) * 1000).toISOString(),
  });

  /** Code → short-lived token (api.instagram.com) → long-lived token (graph.instagram.com, ig_exchange_token). */
  async function exchange(http: PlatformHttp, sandbox: boolean, code: string, redirectUri: string, app: { id: string; secret: string }): Promise<Credentials> {
    const g = graphOf(http);
    let short: string;
    try {
      const body = await g.call<{ access_token?: string; data?: Array<{ access_token: string }> }>({
        method: 'POST', path: sandbox ? '/oauth/access_token' : TOKEN_URL, unversioned: true,
        params: { client_id: app.id, client_secret: app.secret, grant_type: 'authorization_code', redirect_uri: redirectUri, code: code.replace(/#_$/, '') },
      });
      const token = body.data?.[0]?.access_token ?? body.access_token;
      if (!token) throw new PlatformError('permanent', 'PLATFORM_REJECTED', 'Instagram answered the code exchange without an access token.');
      short = token;
    } catch (error) {
      throw asAuthFailure(error, 'the authorization code');
    }
    try {
      const long = await g.call<{ access_token: string; expires_in?: number }>({ method: 'GET', path: '/access_token', unversioned: true, params: { grant_type: 'ig_exchange_token', client_secret: app.secret }, token: short });
      return credentialsOf(long.access_token, long.expires_in, Date.now());
    } catch (error) {
      throw asAuthFailure(error, 'the long-lived token exchange');
    }
  }

  const oauth: OAuthCapability = {
    pkce: false,
    scopes: SCOPES,
    authorizeUrl(ctx: OAuthContext, { state }) {
      const query = new URLSearchParams({ client_id: ctx.app.clientId, redirect_uri: ctx.redirectUri, response_type: 'code', scope: SCOPES.join(','), state });
      return `${ctx.webUrl.replace(/\/+$/, '')}/oauth/authorize?${query.toString()}`;
    },
    exchangeCode: (ctx, { code }) => exchange(ctx.http, ctx.sandbox, code, ctx.redirectUri, { id: ctx.app.clientId, secret: ctx.app.clientSecret ?? '' }),
    async accounts(ctx, credentials) {
      const user = await client.me(graphOf(ctx.http), credentials.accessToken);
      return [{ account: { accountId: user.user_id, handle: user.username, displayName: user.name ?? null }, credentials }];
    },
  };

  return {
    platform: 'instagram',
    limits,
    limitsFor: () => limits,
    oauth,
    newPartKey: () => `ig-${randomBytes(8).toString('hex')}`,

    async prepareMedia(_session, sources) {
      const out: PreparedMedia[] = [];
      for (const source of sources) {
        if (source.kind !== 'image' && source.kind !== 'video') throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', `Instagram takes images and videos, not ${source.kind} (media ${source.id}).`);
        out.push({ platformRef: await pullUrl('Instagram', source), kind: source.kind, altText: source.altText, width: source.width, height: source.height });
      }
      return out;
    },

    async publish(session, part) {
      if (part.index > 0) throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'Instagram has no threads; use platform_options.instagram.first_comment for a follow-up.');
      const g = graphOf(session.http);
      const token = session.credentials.accessToken;
      const user = session.connection.accountId;
      const options = part.options as InstagramOptions;
      let containerId = remembered.get(part.key);
      if (containerId) {
        const state = await client.containerState(g, token, containerId).catch(() => undefined);
        if (state?.status === 'PUBLISHED') {
          const found = await lookUp(g, session, part);
          if (found) return found;
        }
        // An unusable or unreadable container is replaced by a new one.
        if (!state || state.status !== 'FINISHED' && state.status !== 'IN_PROGRESS') containerId = undefined;
      }
      if (!containerId) {
        containerId = await createContainers(g, session, part, options);
        remembered.set(part.key, containerId);
      }
      const id = containerId;
      try {
        await waitForContainer('Instagram', id, () => client.containerState(g, token, id), pollOptions);
      } catch (error) {
        remembered.forget(part.key);
        throw error;
      }
      const quota = await client.publishingLimit(g, token, user);
      if (quota.total !== undefined && quota.usage >= quota.total) {
        throw new PlatformError('permanent', 'PLATFORM_QUOTA_EXHAUSTED', `The Instagram account has published ${quota.usage} of its ${quota.total} posts allowed in 24 hours; retry once the oldest is a day old.`);
      }
      const mediaId = await client.publishContainer(g, token, user, id);
      remembered.forget(part.key);
      const node = await client.mediaNode(g, token, mediaId).catch(() => ({ id: mediaId }) as client.IgMediaNode);
      const ref = options.first_comment?.trim() ? await firstComment(g, token, mediaId, options.first_comment) : undefined;
      return { id: mediaId, url: postUrl(session, node), ...(ref ? { ref } : {}) };
    },

    async findPublished(session, part) {
      const g = graphOf(session.http);
      const containerId = remembered.get(part.key);
      if (containerId) {
        const state = await client.containerState(g, session.credentials.accessToken, containerId).catch(() => undefined);
        // The container is the part's own record: anything but PUBLISHED means media_publish did not take effect.
        if (state && state.status !== 'PUBLISHED') return null;
      }
      return lookUp(g, session, part);
    },

    async deletePost() {
      throw new PlatformError('permanent', 'PLATFORM_REJECTED', 'Instagram does not let apps signed in with Instagram Login delete posts; delete it in the Instagram app.');
    },

    async refreshCredentials(session) {
      try {
        const body = await graphOf(session.http).call<{ access_token: string; expires_in?: number }>({ method: 'GET', path: '/refresh_access_token', unversioned: true, params: { grant_type: 'ig_refresh_token' }, token: session.credentials.accessToken });
        return credentialsOf(body.access_token, body.expires_in, session.clock.now().getTime());
      } catch (error) {
        throw asAuthFailure(error, 'to refresh the token');
      }
    },

    async fetchMetrics(session, post) {
      const m = await client.insights(graphOf(session.http), session.credentials.accessToken, post.id, ['views', 'reach', 'likes', 'comments', 'shares', 'saved']);
      return { impressions: m.views, reach: m.reach, likes: m.likes, replies: m.comments, shares: m.shares, saved: m.saved };
    },

    async listComments(session, post) {
      const list = await client.comments(graphOf(session.http), session.credentials.accessToken, post.id);
      return list.map((c) => ({ id: c.id, authorHandle: c.username ?? '', text: c.text ?? '', createdAt: c.timestamp ? new Date(Date.parse(c.timestamp.replace(/\+0000$/, 'Z'))).toISOString() : new Date(0).toISOString(), url: null }));
    },

    // Instagram has no reply posts: a reply is a comment on the media (platforms.md §3).
    async reply(session, post, text) {
      const id = await client.comment(graphOf(session.http), session.credentials.accessToken, post.id, text);
      return { id, url: post.url };
    },

    async verifyAccount(session) {
      const user = await client.me(graphOf(session.http), session.credentials.accessToken);
      return { accountId: user.user_id, handle: user.username, displayName: user.name ?? null };
    },

    async connectSandbox(http, { username }) {
      const state = randomBytes(12).toString('base64url');
      const redirect = 'http://127.0.0.1/herald/oauth/callback';
      const authorize = await http.request({ method: 'GET', path: '/oauth/authorize', query: { client_id: clientId, redirect_uri: redirect, response_type: 'code', scope: SCOPES.join(','), state, sandbox_username: username } });
      const location = authorize.headers.location;
      const back = typeof location === 'string' ? new URL(location) : undefined;
      if (authorize.status !== 302 || !back || back.searchParams.get('state') !== state || !back.searchParams.get('code')) {
        throw new PlatformError('permanent', 'PLATFORM_REJECTED', `The Instagram sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`);
      }
      const credentials = await exchange(http, true, back.searchParams.get('code')!, redirect, { id: clientId, secret: clientSecret });
      const user = await client.me(graphOf(http), credentials.accessToken);
      return { account: { accountId: user.user_id, handle: user.username, displayName: user.name ?? null }, credentials };
    },
  };
}
