// The Display API as the simulator plays it (developers.tiktok.com display-api: video list, video query): the
// creator's published posts newest first with a `cursor` of create times, and posts by id with the fields asked
// for, their counts grown by the shared growth module (src/sandbox/framework/metrics-growth.ts); and the public page
// of a post (sandbox URLs point there) with its media.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { growMetrics } from '../framework/metrics-growth.ts';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { pageMedia, registerMediaFiles } from '../meta/media-files.ts';
import { ok } from './envelope.ts';
import { gate, obj } from './gate.ts';
import { KIND, statusOf, type TiktokAccount, type TiktokContext, type TiktokPublish } from './state.ts';

const ACCENT = '#FE2C55';
const VIDEO_FIELDS = [
  'id',
  'create_time',
  'title',
  'video_description',
  'duration',
  'share_url',
  'embed_link',
  'like_count',
  'comment_count',
  'share_count',
  'view_count',
] as const;

const hostOf = (ctx: TiktokContext, request: FastifyRequest) =>
  `${request.protocol}://${request.headers.host}${ctx.prefix}`;

/** A published post as the Display API's video object, with only the fields asked for. */
function videoObject(
  ctx: TiktokContext,
  request: FastifyRequest,
  p: TiktokPublish,
  username: string,
  fields: string[],
) {
  const published = p.receivedAt! + p.processingMs;
  const m = growMetrics(p.postId, published, ctx.kit.now(), { videoRate: p.mediaType === 'VIDEO' ? 0.9 : 0 });
  const all: Record<string, unknown> = {
    id: p.postId,
    create_time: Math.floor(published / 1000),
    // ⚠ unverified: how a photo post's title and caption appear in the video object.
    title: p.mediaType === 'PHOTO' ? p.description : p.title,
    video_description: p.mediaType === 'PHOTO' ? p.description : p.title,
    duration: 0,
    share_url: `${hostOf(ctx, request)}/@${username}/${p.mediaType === 'PHOTO' ? 'photo' : 'video'}/${p.postId}`,
    embed_link: `${hostOf(ctx, request)}/@${username}/video/${p.postId}`,
    like_count: m.likes,
    comment_count: m.comments,
    share_count: m.shares,
    view_count: m.video_views || m.impressions,
  };
  return Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]]));
}

/** The fields of a Display API call; a message when one is unknown. */
function fieldsOf(request: FastifyRequest): string[] | string {
  const fields = String((request.query as { fields?: string }).fields ?? '')
    .split(',')
    .filter(Boolean);
  if (fields.length === 0) return 'invalid_params: fields is required.';
  const unknown = fields.find((f) => !(VIDEO_FIELDS as readonly string[]).includes(f));
  return unknown ? `invalid_params: unknown field ${unknown}.` : fields;
}

/** The account's posts that are on its profile, newest first. */
async function published(ctx: TiktokContext, accountId: string): Promise<TiktokPublish[]> {
  const now = ctx.kit.now();
  return (await ctx.kit.store.list<TiktokPublish>(KIND.publish, { owner: accountId }))
    .filter((p) => statusOf(p, now) === 'PUBLISH_COMPLETE')
    .sort((a, b) => b.receivedAt! + b.processingMs - (a.receivedAt! + a.processingMs));
}

export function registerTiktokVideos(app: FastifyInstance, ctx: TiktokContext): void {
  app.post('/v2/video/list/', (request, reply) => list(ctx, request, reply));
  app.post('/v2/video/query/', (request, reply) => query(ctx, request, reply));
  app.get<{ Params: { handle: string; kind: string; id: string } }>('/:handle/:kind/:id', (request, reply) =>
    postPage(ctx, request, reply),
  );
  registerMediaFiles(app, ctx.kit.store, (reply) => ctx.errorReply(reply, 404, 'Not Found'));
}

/** `POST /v2/video/list/`: `max_count` (≤ 20) newest posts before `cursor` (ms), with `has_more`. */
async function list(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'lookup', 'video.list', 'display');
  if (!g) return reply;
  const fields = fieldsOf(request);
  if (typeof fields === 'string') return ctx.errorReply(reply, 400, fields);
  const max = g.body.max_count ?? 10;
  if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > 20)
    return ctx.errorReply(reply, 400, 'invalid_params: max_count must be 1 to 20.');
  const cursor = Number.isInteger(g.body.cursor) ? (g.body.cursor as number) : Infinity;
  const before = (await published(ctx, g.account.id)).filter((p) => p.receivedAt! + p.processingMs < cursor);
  const page = before.slice(0, max as number);
  const last = page.at(-1);
  return ok(ctx.kit, {
    videos: page.map((p) => videoObject(ctx, request, p, g.account.username, fields)),
    cursor: last ? last.receivedAt! + last.processingMs : 0,
    has_more: before.length > page.length,
  });
}

/** `POST /v2/video/query/`: the creator's own posts by id (`filters.video_ids`, at most 20). */
async function query(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'metrics', 'video.list', 'display');
  if (!g) return reply;
  const fields = fieldsOf(request);
  if (typeof fields === 'string') return ctx.errorReply(reply, 400, fields);
  const ids = obj(g.body, 'filters')?.video_ids;
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > 20 || !ids.every((id) => typeof id === 'string'))
    return ctx.errorReply(reply, 400, 'invalid_params: filters.video_ids must list 1 to 20 video ids.');
  const mine = new Map((await published(ctx, g.account.id)).map((p) => [p.postId, p]));
  return ok(ctx.kit, {
    videos: (ids as string[])
      .map((id) => mine.get(id))
      .filter((p): p is TiktokPublish => p !== undefined)
      .map((p) => videoObject(ctx, request, p, g.account.username, fields)),
  });
}

/** Sandbox URLs of posts point here (`/@user/video/<id>`, `/@user/photo/<id>`), as TikTok's web pages are. */
async function postPage(
  ctx: TiktokContext,
  request: FastifyRequest<{ Params: { handle: string; kind: string; id: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const { handle, kind, id } = request.params;
  if (!handle.startsWith('@') || (kind !== 'video' && kind !== 'photo')) return ctx.errorReply(reply, 404, 'Not Found');
  const index = await store.get<{ publishId: string }>(KIND.postIndex, id);
  const p = index ? await store.get<TiktokPublish>(KIND.publish, index.publishId) : undefined;
  if (!p || statusOf(p, ctx.kit.now()) !== 'PUBLISH_COMPLETE') return sendMissingPost(reply, 'TikTok');
  const account = await store.get<TiktokAccount>(KIND.account, p.accountId);
  return sendPostPage(reply, {
    platform: 'TikTok',
    accent: ACCENT,
    noun: p.mediaType === 'PHOTO' ? 'Photo' : 'Video',
    account: { name: account?.name ?? p.accountId, handle: `@${account?.username ?? p.accountId}` },
    parts: [
      {
        text: p.mediaType === 'PHOTO' ? [p.title, p.description].filter(Boolean).join('\n\n') : p.title,
        media: pageMedia(hostOf(ctx, request), p.media),
        createdAt: p.receivedAt! + p.processingMs,
      },
    ],
  });
}
