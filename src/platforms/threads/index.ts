// The Threads adapter (docs/platforms/threads.md "Calls"): each part is a container (TEXT, IMAGE, VIDEO or a CAROUSEL
// of 2–20 children, media fetched by Threads from Herald's signed URLs), polled until FINISHED, checked against the
// rolling quotas (250 posts, 1,000 replies per 24 h, threads_publishing_limit) and published (threads_publish);
// thread parts reply to the part before (reply_to_id). As on Instagram, the container made for a part is recorded
// with the part (`part.remember`) before it is published, so that a re-send after an unknown outcome or a restart
// looks at it before anything else; a look-up of the account's recent posts or replies (text, reply target, time)
// finds what a published container became.
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
  graphTimeMs,
  waitForContainer,
  type ContainerPollOptions,
  type GraphClient,
  type GraphParams,
} from '../meta/graph.ts';
import { exchangeCode, refreshToken, sandboxCode, type CodeExchange } from '../meta/oauth.ts';
import type { PlatformHttp } from '../http-contract.ts';
import { partMemory } from '../part-memory.ts';
import {
  PlatformError,
  type AdapterConfig,
  type Credentials,
  type OAuthCapability,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../types.ts';
import { lookupSince, mayBeThisPart } from '../lookup.ts';
import * as client from './client.ts';
import { threadsInbox } from './inbox.ts';
import { limits } from './limits.ts';

/** The Threads API host (real connections). */
export const THREADS_API_URL = 'https://graph.threads.net';
const VERSION = 'v1.0'; // Threads versions its API apart from the Facebook Graph API
const SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  'threads_read_replies',
  'threads_manage_insights',
  'threads_delete',
] as const;

interface ThreadsOptions {
  reply_control?: string;
}

export function createThreadsAdapter(config: AdapterConfig, pollOptions: ContainerPollOptions = {}): PlatformAdapter {
  const clientId = config.clientId ?? 'herald-sandbox';
  const clientSecret = config.clientSecret ?? 'herald-sandbox-secret';
  const graphOf = (http: PlatformHttp): GraphClient =>
    createGraphClient({ http, version: VERSION, platform: 'Threads' });

  const postUrl = (session: PlatformSession, node: client.ThreadsNode): string => {
    if (session.connection.sandbox)
      return `${session.connection.baseUrl}/web/@${session.connection.handle}/post/${node.shortcode ?? node.id}`;
    return node.permalink ?? `https://www.threads.net/@${session.connection.handle}/post/${node.shortcode ?? node.id}`;
  };

  async function createContainers(g: GraphClient, session: PlatformSession, part: OutgoingPart): Promise<string> {
    const token = session.credentials.accessToken;
    const user = session.connection.accountId;
    const options = part.options as ThreadsOptions;
    const common: GraphParams = {
      text: part.text || undefined,
      reply_to_id: part.parent?.id,
      reply_control: part.index === 0 ? options.reply_control : undefined,
    };
    const item = (m: PreparedMedia, extra: GraphParams): GraphParams =>
      m.kind === 'video'
        ? { media_type: 'VIDEO', video_url: m.platformRef, alt_text: m.altText ?? undefined, ...extra }
        : { media_type: 'IMAGE', image_url: m.platformRef, alt_text: m.altText ?? undefined, ...extra };
    if (part.media.length === 0) {
      if (!part.text.trim())
        throw new PlatformError(
          'invalid_content',
          'PLATFORM_CONTENT_REJECTED',
          'A Threads post without media needs text.',
        );
      return client.createContainer(g, token, user, { media_type: 'TEXT', ...common });
    }
    if (part.media.length === 1) return client.createContainer(g, token, user, item(part.media[0]!, common));
    if (part.media.length > 20)
      throw new PlatformError(
        'invalid_content',
        'PLATFORM_CONTENT_REJECTED',
        `A Threads carousel holds 2 to 20 items; the post has ${part.media.length}.`,
      );
    const children: string[] = [];
    for (const m of part.media)
      children.push(await client.createContainer(g, token, user, item(m, { is_carousel_item: true })));
    for (const id of children)
      await waitForContainer('Threads', id, () => client.containerState(g, token, id), pollOptions);
    return client.createContainer(g, token, user, { media_type: 'CAROUSEL', children: children.join(','), ...common });
  }

  /**
   * The account's recent posts or replies that are provably the part's (text, reply target, media, made since its
   * first send, held by no other part), oldest first.
   */
  async function lookUp(g: GraphClient, session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
    const since = Math.floor(lookupSince(part) / 1000);
    const nodes = await client.recent(
      g,
      session.credentials.accessToken,
      session.connection.accountId,
      part.parent ? 'replies' : 'threads',
      since,
    );
    const wanted = comparable(part.text);
    const match = nodes
      .filter(
        (n) =>
          comparable(n.text) === wanted &&
          (n.replied_to?.id ?? null) === (part.parent?.id ?? null) &&
          mediaTypeFits(part, n.media_type) &&
          mayBeThisPart(part, { id: n.id, createdAt: graphTimeMs(n.timestamp) }),
      )
      .at(-1);
    return match ? { id: match.id, url: postUrl(session, match) } : null;
  }

  /** Code → short-lived token → long-lived token (th_exchange_token), all on graph.threads.net. */
  const codeExchange: CodeExchange = {
    platform: 'Threads',
    tokenPath: '/oauth/access_token',
    exchangeGrant: 'th_exchange_token',
    shortToken: (body) => body.access_token as string,
  };
  const exchange = (
    http: PlatformHttp,
    code: string,
    redirectUri: string,
    app: { id: string; secret: string },
  ): Promise<Credentials> => exchangeCode(graphOf(http), codeExchange, code, redirectUri, app);

  const containers = (g: GraphClient, session: PlatformSession, part: OutgoingPart): PartContainers => ({
    platform: 'Threads',
    part,
    read: (id) => client.containerState(g, session.credentials.accessToken, id),
    create: () => createContainers(g, session, part),
    lookUp: () => lookUp(g, session, part),
    pollOptions,
  });

  const oauth: OAuthCapability = {
    pkce: false,
    scopes: SCOPES,
    authorizeUrl(ctx, { state }) {
      const query = new URLSearchParams({
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        scope: SCOPES.join(','),
        response_type: 'code',
        state,
      });
      return `${ctx.webUrl.replace(/\/+$/, '')}/oauth/authorize?${query.toString()}`;
    },
    exchangeCode: (ctx, { code }) =>
      exchange(ctx.http, code, ctx.redirectUri, { id: ctx.app.clientId, secret: ctx.app.clientSecret ?? '' }),
    async accounts(ctx, credentials) {
      const user = await client.me(graphOf(ctx.http), credentials.accessToken);
      return [{ account: { accountId: user.id, handle: user.username, displayName: user.name ?? null }, credentials }];
    },
  };

  const adapter: PlatformAdapter = {
    platform: 'threads',
    limits,
    limitsFor: () => limits,
    oauth,
    inbox: threadsInbox({
      graphOf: (session) => graphOf(session.http),
      reply: (session, id, text) => adapter.reply!(session, { id, url: '' }, text),
    }),
    newPartKey: () => `th-${randomBytes(8).toString('hex')}`,

    prepareMedia: (_session, sources) => prepareUrlMedia('Threads', sources),

    async publish(session, part) {
      const g = graphOf(session.http);
      const token = session.credentials.accessToken;
      const user = session.connection.accountId;
      const ready = await readyContainer(containers(g, session, part));
      if ('found' in ready) return ready.found;
      const id = ready.id;
      const quota = await client.publishingLimit(g, token, user);
      const which = part.parent ? quota.replies : quota.posts;
      if (which.total !== undefined && which.usage >= which.total) {
        throw new PlatformError(
          'permanent',
          'PLATFORM_QUOTA_EXHAUSTED',
          `The Threads account has published ${which.usage} of its ${which.total} ${part.parent ? 'replies' : 'posts'} allowed in 24 hours; retry once the oldest is a day old.`,
        );
      }
      const mediaId = await client.publishContainer(g, token, user, id);
      const node = await client.node(g, token, mediaId).catch(() => ({ id: mediaId }) as client.ThreadsNode);
      return { id: mediaId, url: postUrl(session, node) };
    },

    findPublished: (session, part) => findPublishedPart(containers(graphOf(session.http), session, part)),

    async deletePost(session, post) {
      await client.remove(graphOf(session.http), session.credentials.accessToken, post.id);
    },

    refreshCredentials: (session) =>
      refreshToken(graphOf(session.http), 'Threads', 'th_refresh_token', session.credentials.accessToken, () =>
        session.clock.now().getTime(),
      ),

    async fetchMetrics(session, post) {
      const m = await client.insights(graphOf(session.http), session.credentials.accessToken, post.id, [
        'views',
        'likes',
        'replies',
        'reposts',
        'quotes',
      ]);
      return { impressions: m.views, likes: m.likes, comments: m.replies, shares: m.reposts, quotes: m.quotes };
    },

    async listComments(session, post) {
      const nodes = await client.repliesTo(graphOf(session.http), session.credentials.accessToken, post.id);
      return nodes.map((n) => ({
        id: n.id,
        authorHandle: n.username ?? '',
        text: n.text ?? '',
        createdAt: graphTime(n.timestamp),
        url: n.shortcode ? postUrl(session, n) : null,
      }));
    },

    // A reply is a part whose parent is the post: the same container flow, reply quota included. It is one call
    // that nothing resumes, so its container is kept for that call only.
    reply(session, post, text) {
      return adapter.publish(session, {
        index: 1,
        text,
        media: [],
        parent: post,
        root: post,
        key: `th-reply-${randomBytes(8).toString('hex')}`,
        firstSentAt: session.clock.now(),
        options: {},
        ...partMemory(),
      });
    },

    async verifyAccount(session) {
      const user = await client.me(graphOf(session.http), session.credentials.accessToken);
      return { accountId: user.id, handle: user.username, displayName: user.name ?? null };
    },

    async connectSandbox(http, { username, workspace }) {
      const back = await sandboxCode(http, 'Threads', (redirect, state) => ({
        client_id: clientId,
        redirect_uri: redirect,
        scope: SCOPES.join(','),
        response_type: 'code',
        state,
        sandbox_username: username,
        ...(workspace ? { sandbox_ws: workspace } : {}),
      }));
      const credentials = await exchange(http, back.code, back.redirect, { id: clientId, secret: clientSecret });
      const user = await client.me(graphOf(http), credentials.accessToken);
      return { account: { accountId: user.id, handle: user.username, displayName: user.name ?? null }, credentials };
    },
  };
  return adapter;
}
