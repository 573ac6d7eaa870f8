// YouTube's read and delete calls as the simulator plays them (docs/platforms/youtube.md "Calls"): channels.list
// (mine=true: the signed-in channel and its uploads playlist), videos.list (snippet, status, processingDetails,
// statistics), videos.delete, playlistItems.list (the uploads playlist, newest first), and the watch page of a video
// (sandbox URLs point there) with its bytes. Every call spends quota and takes the shared faults.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { growMetrics } from '../framework/metrics-growth.ts';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { applyFault } from '../framework/simulator.ts';
import { authenticate, type Caller } from './auth.ts';
import { COST, QUOTA_EXCEEDED, spend } from './quota.ts';
import { KIND, videoBlob, type YoutubeChannel, type YoutubeContext, type YoutubeVideo } from './state.ts';

/** YouTube's red, for the watch page. */
const ACCENT = '#FF0000';
const API = '/youtube/v3';

const hostOf = (ctx: YoutubeContext, request: FastifyRequest) =>
  `${request.protocol}://${request.headers.host}${ctx.prefix}`;

/** A video resource with the parts asked for (`part=snippet,status,…`). */
export function videoJson(ctx: YoutubeContext, request: FastifyRequest, v: YoutubeVideo, parts: readonly string[]) {
  const now = ctx.kit.now();
  const processing = now < v.processedAt;
  const m = v.metadata;
  const out: Record<string, unknown> = { kind: 'youtube#video', etag: `${v.id}-${v.processedAt}`, id: v.id };
  if (parts.includes('snippet'))
    out.snippet = {
      publishedAt: new Date(v.createdAt).toISOString(),
      channelId: v.channelId,
      title: m.title,
      description: m.description,
      ...(m.tags.length > 0 && { tags: m.tags }),
      categoryId: m.categoryId,
      thumbnails: { default: { url: `${hostOf(ctx, request)}/vi/${v.id}/default.jpg`, width: 120, height: 90 } },
      liveBroadcastContent: 'none',
    };
  if (parts.includes('status'))
    out.status = {
      uploadStatus: processing ? 'uploaded' : v.failed ? 'failed' : 'processed',
      ...(!processing && v.failed && { failureReason: v.failureReason ?? 'conversion' }),
      privacyStatus: m.privacyStatus,
      license: 'youtube',
      embeddable: true,
      publicStatsViewable: true,
      madeForKids: m.selfDeclaredMadeForKids,
      selfDeclaredMadeForKids: m.selfDeclaredMadeForKids,
    };
  if (parts.includes('processingDetails'))
    out.processingDetails = { processingStatus: processing ? 'processing' : v.failed ? 'failed' : 'succeeded' };
  if (parts.includes('statistics')) {
    // Views grow through the shared growth model; YouTube gives no share count (statistics has none).
    const g = growMetrics(v.id, v.createdAt, now, { videoRate: 0.9 });
    out.statistics = {
      viewCount: String(g.video_views),
      likeCount: String(g.likes),
      favoriteCount: '0',
      commentCount: String(g.comments),
    };
  }
  return out;
}

/** Every data call: the token, the call's quota units, then the operation's faults. */
async function gate(
  ctx: YoutubeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  units: number,
): Promise<Caller | undefined> {
  const caller = await authenticate(ctx, request, reply);
  if (!caller) return undefined;
  const fault = ctx.kit.faults.take(operation, caller.channel.id);
  if (applyFault(ctx.kit, { errorReply: ctx.errorReply }, fault, request, reply, 'ietf') === 'sent') return undefined;
  if (!(await spend(ctx, caller, units))) {
    ctx.errorReply(reply, 403, QUOTA_EXCEEDED);
    return undefined;
  }
  return caller;
}

const partsOf = (part: string | undefined) =>
  (part ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

interface ListQuery {
  part?: string;
  id?: string;
  mine?: string;
  playlistId?: string;
  maxResults?: string;
}

export function registerYoutubeVideos(app: FastifyInstance, ctx: YoutubeContext): void {
  app.get<{ Querystring: ListQuery }>(`${API}/channels`, (request, reply) => channels(ctx, request, reply));
  app.get<{ Querystring: ListQuery }>(`${API}/videos`, (request, reply) => listVideos(ctx, request, reply));
  app.delete<{ Querystring: ListQuery }>(`${API}/videos`, (request, reply) => deleteVideo(ctx, request, reply));
  app.get<{ Querystring: ListQuery }>(`${API}/playlistItems`, (request, reply) => playlistItems(ctx, request, reply));
  app.get<{ Querystring: { v?: string } }>('/watch', (request, reply) =>
    watchPage(ctx, request, reply, request.query.v),
  );
  app.get<{ Params: { id: string } }>('/shorts/:id', (request, reply) =>
    watchPage(ctx, request, reply, request.params.id),
  );
  app.get<{ Params: { id: string } }>('/videoplayback/:id', (request, reply) => videoBytes(ctx, request, reply));
}

async function channels(ctx: YoutubeContext, request: FastifyRequest<{ Querystring: ListQuery }>, reply: FastifyReply) {
  const caller = await gate(ctx, request, reply, 'channels', COST.list);
  if (!caller) return reply;
  if (request.query.mine !== 'true' || partsOf(request.query.part).length === 0)
    return ctx.errorReply(reply, 400, 'missingRequiredParameter: The simulator answers part=… with mine=true.');
  const c = caller.channel;
  return {
    kind: 'youtube#channelListResponse',
    pageInfo: { totalResults: 1, resultsPerPage: 5 },
    items: [
      {
        kind: 'youtube#channel',
        id: c.id,
        snippet: { title: c.title, customUrl: `@${c.username.toLowerCase()}`, thumbnails: {} },
        contentDetails: { relatedPlaylists: { likes: '', uploads: c.uploads } },
      },
    ],
  };
}

async function listVideos(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: ListQuery }>,
  reply: FastifyReply,
) {
  const caller = await gate(ctx, request, reply, 'media_status', COST.list);
  if (!caller) return reply;
  const parts = partsOf(request.query.part);
  if (parts.length === 0) return ctx.errorReply(reply, 400, 'required: Required parameter: part');
  const ids = (request.query.id ?? '').split(',').filter(Boolean).slice(0, 50);
  const found = await Promise.all(ids.map((id) => ctx.kit.store.get<YoutubeVideo>(KIND.video, id)));
  // Another channel's private and unlisted videos are not listed; deleted ones never are.
  const visible = found.filter(
    (v): v is YoutubeVideo =>
      !!v && !v.deleted && (v.channelId === caller.channel.id || v.metadata.privacyStatus === 'public'),
  );
  return {
    kind: 'youtube#videoListResponse',
    pageInfo: { totalResults: visible.length, resultsPerPage: visible.length },
    items: visible.map((v) => videoJson(ctx, request, v, parts)),
  };
}

async function deleteVideo(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: ListQuery }>,
  reply: FastifyReply,
) {
  const caller = await gate(ctx, request, reply, 'delete', COST.delete);
  if (!caller) return reply;
  // Changed under the document's lock: of two deletes at once, one succeeds and the other meets 404.
  const outcome = { deleted: false };
  await ctx.kit.store.update<YoutubeVideo>(KIND.video, request.query.id ?? '', (v) => {
    if (v.deleted || v.channelId !== caller.channel.id) return undefined;
    outcome.deleted = true;
    return { ...v, deleted: true };
  });
  if (!outcome.deleted)
    return ctx.errorReply(reply, 404, 'videoNotFound: The video that you are trying to delete cannot be found.');
  return reply.code(204).send();
}

/** The uploads playlist (`UU…`) of the caller's channel, newest first, one page of up to 50. */
async function playlistItems(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: ListQuery }>,
  reply: FastifyReply,
) {
  const caller = await gate(ctx, request, reply, 'lookup', COST.list);
  if (!caller) return reply;
  if (request.query.playlistId !== caller.channel.uploads)
    return ctx.errorReply(
      reply,
      404,
      'playlistNotFound: The playlist identified with the playlistId parameter cannot be found.',
    );
  const max = Math.min(50, Math.max(0, Number(request.query.maxResults ?? 5) || 5));
  const videos = await ctx.kit.store.list<YoutubeVideo>(KIND.video, {
    owner: caller.channel.id,
    match: { deleted: false },
    limit: max,
  });
  return {
    kind: 'youtube#playlistItemListResponse',
    pageInfo: { totalResults: videos.length, resultsPerPage: max },
    items: videos.map((v, position) => ({
      kind: 'youtube#playlistItem',
      id: `${caller.channel.uploads}.${v.id}`,
      snippet: {
        publishedAt: new Date(v.createdAt).toISOString(),
        channelId: v.channelId,
        title: v.metadata.title,
        description: v.metadata.description,
        playlistId: caller.channel.uploads,
        position,
        resourceId: { kind: 'youtube#video', videoId: v.id },
      },
      contentDetails: { videoId: v.id, videoPublishedAt: new Date(v.createdAt).toISOString() },
    })),
  };
}

/** Sandbox URLs of videos point here: the video as YouTube shows it (channel, title, description, player). */
async function watchPage(ctx: YoutubeContext, request: FastifyRequest, reply: FastifyReply, id: string | undefined) {
  const { store } = ctx.kit;
  const video = id ? await store.get<YoutubeVideo>(KIND.video, id) : undefined;
  if (!video || video.deleted) return sendMissingPost(reply, 'YouTube');
  const channel = await store.get<YoutubeChannel>(KIND.channel, video.channelId);
  return sendPostPage(reply, {
    platform: 'YouTube',
    accent: ACCENT,
    noun: 'Video',
    account: { name: channel?.title ?? video.channelId, handle: `@${channel?.username ?? video.channelId}` },
    parts: [
      {
        text: `${video.metadata.title}\n\n${video.metadata.description}`,
        media: [{ url: `${hostOf(ctx, request)}/videoplayback/${video.id}`, kind: 'video' }],
        createdAt: video.createdAt,
      },
    ],
  });
}

/** A video's bytes, as the watch page plays them. */
async function videoBytes(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const [video, bytes] = await Promise.all([
    store.get<YoutubeVideo>(KIND.video, request.params.id),
    store.getBytes(videoBlob(request.params.id)),
  ]);
  if (!video || video.deleted || !bytes) return ctx.errorReply(reply, 404, 'notFound: No such video.');
  return reply.type(video.contentType).header('cache-control', 'public, max-age=86400').send(bytes);
}
