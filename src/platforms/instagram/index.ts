// The Instagram adapter (docs/platforms/instagram.md "Calls"), Instagram API with Instagram Login: Instagram fetches
// each media item from Herald's short-lived signed URL into a container; Herald polls the container until FINISHED,
// checks the rolling 24-hour quota (content_publishing_limit), publishes it (media_publish), reads the permalink and
// posts the first comment. The container made for a part is recorded with the part before it is published
// (`part.remember`, kept on the part's row by the engine), so a re-send after an unknown outcome or a restart looks
// at that container (PUBLISHED: find the media; otherwise publish that same container) rather than making a
// second post; the account's recent media are searched by caption and time to find what a container became.
import { randomBytes } from 'node:crypto';
import {
  comparable,
  findPublishedPart,
  graphTime,
  mediaTypeFits,
  prepareUrlMedia,
  readyContainer,
  type PartContainers,
} from '../meta/containers.ts';
import {
  createGraphClient,
  DEFAULT_GRAPH_VERSION,
  graphTimeMs,
  waitForContainer,
  type ContainerPollOptions,
  type GraphClient,
  type GraphParams,
} from '../meta/graph.ts';
import { exchangeCode, refreshToken, sandboxCode, type CodeExchange } from '../meta/oauth.ts';
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  type AdapterConfig,
  type Credentials,
  type OAuthCapability,
  type OAuthContext,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../types.ts';
import { mayBeThisPart } from '../lookup.ts';
import * as client from './client.ts';
import { instagramInbox } from './inbox.ts';
import { limits } from './limits.ts';

const SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
] as const;
const TOKEN_URL = 'https://api.instagram.com/oauth/access_token';
/** The Graph host of Instagram Login tokens (real connections). */
export const INSTAGRAM_API_URL = 'https://graph.instagram.com';

interface InstagramOptions {
  type?: 'feed' | 'reel' | 'story';
  share_to_feed?: boolean;
}

export function createInstagramAdapter(config: AdapterConfig, pollOptions: ContainerPollOptions = {}): PlatformAdapter {
  const version = config.apiVersion ?? DEFAULT_GRAPH_VERSION;
  const clientId = config.clientId ?? 'herald-sandbox';
  const clientSecret = config.clientSecret ?? 'herald-sandbox-secret';
  const graphOf = (http: PlatformHttp): GraphClient => createGraphClient({ http, version, platform: 'Instagram' });

  const postUrl = (session: PlatformSession, node: client.IgMediaNode): string => {
    const path = `${node.media_product_type === 'REELS' ? 'reel' : 'p'}/${node.shortcode ?? node.id}/`;
    if (session.connection.sandbox) return `${session.connection.baseUrl}/web/${path}`;
    return node.permalink ?? `https://www.instagram.com/${path}`;
  };

  /** Creates the container(s) of a part and returns the one to publish (children first for a carousel). */
  async function createContainers(
    g: GraphClient,
    session: PlatformSession,
    part: OutgoingPart,
    options: InstagramOptions,
  ): Promise<string> {
    const token = session.credentials.accessToken;
    const user = session.connection.accountId;
    const media = part.media;
    const type = options.type ?? 'feed';
    if (media.length === 0)
      throw new PlatformError(
        'invalid_content',
        'PLATFORM_CONTENT_REJECTED',
        'An Instagram post needs an image or a video.',
      );
    const itemParams = (m: PreparedMedia, extra: GraphParams): GraphParams =>
      m.kind === 'video'
        ? { video_url: m.platformRef, ...extra }
        : { image_url: m.platformRef, alt_text: m.altText ?? undefined, ...extra };
    if (type === 'story') {
      if (media.length !== 1)
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          `An Instagram story is one image or video; the post has ${media.length}.`,
        );
      const m = media[0]!;
      return client.createContainer(
        g,
        token,
        user,
        m.kind === 'video'
          ? { media_type: 'STORIES', video_url: m.platformRef }
          : { media_type: 'STORIES', image_url: m.platformRef },
      );
    }
    if (type === 'reel' && (media.length !== 1 || media[0]!.kind !== 'video'))
      throw new PlatformError(
        'invalid_content',
        'PLATFORM_CONTENT_REJECTED',
        'An Instagram Reel is exactly one video.',
      );
    if (media.length === 1) {
      const m = media[0]!;
      if (m.kind === 'video')
        return client.createContainer(g, token, user, {
          media_type: 'REELS',
          video_url: m.platformRef,
          caption: part.text,
          share_to_feed: options.share_to_feed ?? true,
        });
      return client.createContainer(g, token, user, itemParams(m, { caption: part.text }));
    }
    if (media.length > 10)
      throw new PlatformError(
        'invalid_content',
        'PLATFORM_CONTENT_REJECTED',
        `An Instagram carousel holds 2 to 10 items; the post has ${media.length}.`,
      );
    const children: string[] = [];
    for (const m of media)
      children.push(
        await client.createContainer(
          g,
          token,
          user,
          itemParams(m, { is_carousel_item: true, media_type: m.kind === 'video' ? 'VIDEO' : 'IMAGE' }),
        ),
      );
    // Every child must be FINISHED before the carousel container can be made.
    for (const id of children)
      await waitForContainer('Instagram', id, () => client.containerState(g, token, id), pollOptions);
    return client.createContainer(g, token, user, {
      media_type: 'CAROUSEL',
      children: children.join(','),
      caption: part.text,
    });
  }

  /**
   * The account's published media that are provably the part's (caption, media, made since its first send, held by
   * no other part), oldest first. A story has no caption: its media and time tell.
   */
  async function lookUp(g: GraphClient, session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
    const token = session.credentials.accessToken;
    const edge = (part.options as InstagramOptions).type === 'story' ? 'stories' : 'media';
    const wanted = comparable(part.text);
    const nodes = await client.recentMedia(g, token, session.connection.accountId, edge);
    const match = nodes
      .filter(
        (n) =>
          (edge === 'stories' || comparable(n.caption) === wanted) &&
          mediaTypeFits(part, n.media_type) &&
          mayBeThisPart(part, { id: n.id, createdAt: graphTimeMs(n.timestamp) }),
      )
      .at(-1);
    return match ? { id: match.id, url: postUrl(session, match) } : null;
  }

  /** Code → short-lived token (api.instagram.com) → long-lived token (graph.instagram.com, ig_exchange_token). */
  const exchange = (
    http: PlatformHttp,
    sandbox: boolean,
    code: string,
    redirectUri: string,
    app: { id: string; secret: string },
  ): Promise<Credentials> => {
    const spec: CodeExchange = {
      platform: 'Instagram',
      tokenPath: sandbox ? '/oauth/access_token' : TOKEN_URL,
      exchangeGrant: 'ig_exchange_token',
      shortToken: (body) => {
        const token =
          (body as { access_token?: string; data?: Array<{ access_token: string }> }).data?.[0]?.access_token ??
          (body.access_token as string | undefined);
        if (!token)
          throw new PlatformError(
            'permanent',
            'PLATFORM_REJECTED',
            'Instagram answered the code exchange without an access token.',
          );
        return token;
      },
    };
    return exchangeCode(graphOf(http), spec, code, redirectUri, app);
  };

  const containers = (g: GraphClient, session: PlatformSession, part: OutgoingPart): PartContainers => ({
    platform: 'Instagram',
    part,
    read: (id) => client.containerState(g, session.credentials.accessToken, id),
    create: () => createContainers(g, session, part, part.options as InstagramOptions),
    lookUp: () => lookUp(g, session, part),
    pollOptions,
  });

  const oauth: OAuthCapability = {
    pkce: false,
    scopes: SCOPES,
    authorizeUrl(ctx: OAuthContext, { state }) {
      const query = new URLSearchParams({
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        response_type: 'code',
        scope: SCOPES.join(','),
        state,
      });
      return `${ctx.webUrl.replace(/\/+$/, '')}/oauth/authorize?${query.toString()}`;
    },
    exchangeCode: (ctx, { code }) =>
      exchange(ctx.http, ctx.sandbox, code, ctx.redirectUri, {
        id: ctx.app.clientId,
        secret: ctx.app.clientSecret ?? '',
      }),
    async accounts(ctx, credentials) {
      const user = await client.me(graphOf(ctx.http), credentials.accessToken);
      return [
        { account: { accountId: user.user_id, handle: user.username, displayName: user.name ?? null }, credentials },
      ];
    },
  };

  return {
    platform: 'instagram',
    limits,
    limitsFor: () => limits,
    inbox: instagramInbox({ graphOf: (session) => graphOf(session.http), mediaUrl: postUrl }),
    oauth,
    newPartKey: () => `ig-${randomBytes(8).toString('hex')}`,

    prepareMedia: (_session, sources) => prepareUrlMedia('Instagram', sources),

    async publish(session, part) {
      if (part.index > 0)
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          'Instagram has no threads; a follow-up goes in platform_options.instagram.first_comment.',
        );
      const g = graphOf(session.http);
      const token = session.credentials.accessToken;
      const user = session.connection.accountId;
      const ready = await readyContainer(containers(g, session, part));
      if ('found' in ready) return ready.found;
      const id = ready.id;
      const quota = await client.publishingLimit(g, token, user);
      if (quota.total !== undefined && quota.usage >= quota.total) {
        throw new PlatformError(
          'permanent',
          'PLATFORM_QUOTA_EXHAUSTED',
          `The Instagram account has published ${quota.usage} of its ${quota.total} posts allowed in 24 hours; retry once the oldest is a day old.`,
        );
      }
      const mediaId = await client.publishContainer(g, token, user, id);
      const node = await client.mediaNode(g, token, mediaId).catch(() => ({ id: mediaId }) as client.IgMediaNode);
      return { id: mediaId, url: postUrl(session, node) };
    },

    findPublished: (session, part) => findPublishedPart(containers(graphOf(session.http), session, part)),

    async deletePost() {
      throw new PlatformError(
        'permanent',
        'PLATFORM_REJECTED',
        'Instagram does not let apps signed in with Instagram Login delete posts; delete it in the Instagram app.',
      );
    },

    refreshCredentials: (session) =>
      refreshToken(graphOf(session.http), 'Instagram', 'ig_refresh_token', session.credentials.accessToken, () =>
        session.clock.now().getTime(),
      ),

    async fetchMetrics(session, post) {
      const m = await client.insights(graphOf(session.http), session.credentials.accessToken, post.id, [
        'views',
        'reach',
        'likes',
        'comments',
        'shares',
        'saved',
      ]);
      return {
        impressions: m.views,
        reach: m.reach,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        saves: m.saved,
      };
    },

    async listComments(session, post) {
      const list = await client.comments(graphOf(session.http), session.credentials.accessToken, post.id);
      return list.map((c) => ({
        id: c.id,
        authorHandle: c.username ?? '',
        text: c.text ?? '',
        createdAt: graphTime(c.timestamp),
        url: null,
      }));
    },

    // First comments: a comment on the media, found again among its comments by the account's name and the text
    // (docs/platforms/instagram.md "First comments").
    ownComments: {
      async create(session, post, part) {
        const id = await client.comment(graphOf(session.http), session.credentials.accessToken, post.id, part.text);
        return { id, url: post.url };
      },
      async find(session, post, part) {
        const list = await client.comments(graphOf(session.http), session.credentials.accessToken, post.id);
        const wanted = comparable(part.text);
        const match = list
          .filter(
            (c) =>
              c.username === session.connection.handle &&
              comparable(c.text) === wanted &&
              mayBeThisPart(part, { id: c.id, createdAt: graphTimeMs(c.timestamp) }),
          )
          .at(-1);
        return match ? { id: match.id, url: post.url } : null;
      },
    },

    // Instagram has no reply posts: a reply is a comment on the media
    // (docs/platforms/instagram.md "Metrics and inbox").
    async reply(session, post, text) {
      const id = await client.comment(graphOf(session.http), session.credentials.accessToken, post.id, text);
      return { id, url: post.url };
    },

    async verifyAccount(session) {
      const user = await client.me(graphOf(session.http), session.credentials.accessToken);
      return { accountId: user.user_id, handle: user.username, displayName: user.name ?? null };
    },

    async connectSandbox(http, { username, workspace }) {
      const back = await sandboxCode(http, 'Instagram', (redirect, state) => ({
        client_id: clientId,
        redirect_uri: redirect,
        response_type: 'code',
        scope: SCOPES.join(','),
        state,
        sandbox_username: username,
        ...(workspace ? { sandbox_ws: workspace } : {}),
      }));
      const credentials = await exchange(http, true, back.code, back.redirect, { id: clientId, secret: clientSecret });
      const user = await client.me(graphOf(http), credentials.accessToken);
      return {
        account: { accountId: user.user_id, handle: user.username, displayName: user.name ?? null },
        credentials,
      };
    },
  };
}
