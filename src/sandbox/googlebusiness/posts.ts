// Local posts as the simulator plays the My Business v4 API (docs/platforms/googlebusiness.md "Calls"): create on a
// location the user manages (the photo fetched from its `sourceUrl`, as Google does), the post PROCESSING while it is
// reviewed and then LIVE or REJECTED, get, list (newest first, paged) and delete; the public page of a post (its
// `searchUrl` in the sandbox) and the kept photo bytes. Every route takes the shared faults; the photo fetch takes the
// `upload_media` ones (`media_failed` refuses it, `slow_media` lengthens the review).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { fetchMedia } from '../meta/fetch.ts';
import { keepMedia, pageMedia, registerMediaFiles } from '../meta/media-files.ts';
import { gate } from './accounts.ts';
import { reviewRejection, validateLocalPost } from './validate.ts';
import { KIND, stateOf, type GbpContext, type GbpLocalPost, type GbpUser } from './state.ts';

/** How long review takes in the sandbox (⚠ unverified: Google gives no figure; minutes are reported). */
const REVIEW_MS = 300;
const MAX_PHOTO_BYTES = 5_000_000;
const ACCENT = '#1A73E8';

interface LocationParams {
  account: string;
  location: string;
}
interface PostParams extends LocationParams {
  post: string;
}

const hostOf = (ctx: GbpContext, request: FastifyRequest) =>
  `${request.protocol}://${request.headers.host}${ctx.prefix}`;

/** The location resource `accounts/{a}/locations/{l}` when the user manages it. */
function ownLocation(user: GbpUser, p: LocationParams): string | undefined {
  return `accounts/${p.account}` === user.account && user.locations.some((l) => l.name === `locations/${p.location}`)
    ? `accounts/${p.account}/locations/${p.location}`
    : undefined;
}

export function localPostJson(ctx: GbpContext, post: GbpLocalPost, host: string) {
  const state = stateOf(post, ctx.kit.now());
  return {
    name: post.name,
    ...(post.languageCode ? { languageCode: post.languageCode } : {}),
    summary: post.summary,
    ...(post.callToAction ? { callToAction: post.callToAction } : {}),
    createTime: new Date(post.createdAt).toISOString(),
    updateTime: new Date(Math.min(ctx.kit.now(), post.reviewedAt)).toISOString(),
    ...(post.event ? { event: post.event } : {}),
    state,
    media: post.media.map((m, i) => ({
      name: `${post.parent}/media/${post.localPostId}-${i}`,
      mediaFormat: 'PHOTO',
      googleUrl: m.key ? `${host}/cdn/${m.key}` : post.sourceUrls[i],
    })),
    ...(state === 'LIVE' ? { searchUrl: `${host}/p/${post.localPostId}` } : {}),
    topicType: post.topicType,
    ...(post.offer ? { offer: post.offer } : {}),
  };
}

export function registerGbpPosts(app: FastifyInstance, ctx: GbpContext): void {
  const base = '/v4/accounts/:account/locations/:location/localPosts';
  app.post<{ Params: LocationParams }>(base, (request, reply) => createPost(ctx, request, reply));
  app.get<{ Params: LocationParams; Querystring: { pageSize?: string; pageToken?: string } }>(base, (request, reply) =>
    listPosts(ctx, request, reply),
  );
  app.get<{ Params: PostParams }>(`${base}/:post`, (request, reply) => getPost(ctx, request, reply));
  app.delete<{ Params: PostParams }>(`${base}/:post`, (request, reply) => deletePost(ctx, request, reply));
  app.get<{ Params: { id: string } }>('/p/:id', (request, reply) => postPage(ctx, request, reply));
  registerMediaFiles(app, ctx.kit.store, (reply) => ctx.errorReply(reply, 404, 'Requested entity was not found.'));
}

async function createPost(ctx: GbpContext, request: FastifyRequest<{ Params: LocationParams }>, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'create_post');
  if (!g) return reply;
  const parent = ownLocation(g.user, request.params);
  if (!parent) return errorReply(reply, 403, 'The caller does not have permission');
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json')
    return errorReply(reply, 400, 'Invalid JSON payload received.');
  const valid = validateLocalPost(body.fields);
  if ('refused' in valid) return errorReply(reply, 400, valid.refused);
  // The photo is fetched now, as Google fetches it: an unreadable one refuses the post.
  let extraReview = 0;
  const media: GbpLocalPost['media'] = [];
  for (const url of valid.sourceUrls) {
    const fault = kit.faults.take('upload_media', g.user.account);
    const got = await fetchMedia(url, kit.settings, { keepBytes: MAX_PHOTO_BYTES });
    const bad = !got.ok
      ? `media: the photo could not be fetched (${got.reason}).`
      : got.contentType !== 'image/jpeg' && got.contentType !== 'image/png'
        ? 'media: the photo is not a JPEG or PNG.'
        : got.size > MAX_PHOTO_BYTES
          ? 'media: the photo is larger than 5 MB.'
          : fault?.fault === 'media_failed'
            ? 'media: the photo could not be processed.'
            : null;
    if (bad || !got.ok) return errorReply(reply, 400, `media_invalid: ${bad}`);
    if (fault?.fault === 'slow_media') extraReview += fault.delayMs ?? 3000;
    media.push({ key: await keepMedia(kit.store, got.bytes), kind: 'image', alt: null });
  }
  const localPostId = await kit.snowflake();
  const now = kit.now();
  const post: GbpLocalPost = {
    name: `${parent}/localPosts/${localPostId}`,
    parent,
    localPostId,
    languageCode: valid.languageCode,
    summary: valid.summary,
    topicType: valid.topicType,
    callToAction: valid.callToAction,
    event: valid.event,
    offer: valid.offer,
    media,
    sourceUrls: valid.sourceUrls,
    createdAt: now,
    reviewedAt: now + REVIEW_MS + extraReview,
    rejection: reviewRejection(valid.summary),
    deleted: false,
  };
  await kit.store.put(KIND.post, localPostId, post, parent);
  if (g.drop) return kit.dropConnection(request, reply);
  return localPostJson(ctx, post, hostOf(ctx, request));
}

/**
 * The location's posts, newest first (⚠ unverified: the reference gives no order), `pageSize` (default 20, at most
 * 100) a page; deleted ones are gone.
 */
async function listPosts(
  ctx: GbpContext,
  request: FastifyRequest<{ Params: LocationParams; Querystring: { pageSize?: string; pageToken?: string } }>,
  reply: FastifyReply,
) {
  const g = await gate(ctx, request, reply, 'lookup');
  if (!g) return reply;
  const parent = ownLocation(g.user, request.params);
  if (!parent) return ctx.errorReply(reply, 403, 'The caller does not have permission');
  const size = Math.min(100, Math.max(1, Number(request.query.pageSize ?? 20) || 20));
  const page = await ctx.kit.store.list<GbpLocalPost>(KIND.post, {
    owner: parent,
    match: { deleted: false },
    limit: size + 1,
    ...(request.query.pageToken ? { beforeId: request.query.pageToken } : {}),
  });
  const host = hostOf(ctx, request);
  const shown = page.slice(0, size);
  return {
    localPosts: shown.map((p) => localPostJson(ctx, p, host)),
    ...(page.length > size ? { nextPageToken: shown[shown.length - 1]!.localPostId } : {}),
  };
}

async function findOwn(ctx: GbpContext, user: GbpUser, p: PostParams): Promise<GbpLocalPost | undefined> {
  const parent = ownLocation(user, p);
  const post = parent ? await ctx.kit.store.get<GbpLocalPost>(KIND.post, p.post) : undefined;
  return post && post.parent === parent && !post.deleted ? post : undefined;
}

async function getPost(ctx: GbpContext, request: FastifyRequest<{ Params: PostParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'post_status');
  if (!g) return reply;
  const post = await findOwn(ctx, g.user, request.params);
  if (!post) return ctx.errorReply(reply, 404, 'Requested entity was not found.');
  return localPostJson(ctx, post, hostOf(ctx, request));
}

async function deletePost(ctx: GbpContext, request: FastifyRequest<{ Params: PostParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'delete');
  if (!g) return reply;
  const parent = ownLocation(g.user, request.params);
  // Changed under the document's lock: of two deletes at once, one succeeds and the other meets 404.
  const outcome = { deleted: false };
  if (parent)
    await ctx.kit.store.update<GbpLocalPost>(KIND.post, request.params.post, (post) => {
      if (post.deleted || post.parent !== parent) return undefined;
      outcome.deleted = true;
      return { ...post, deleted: true };
    });
  if (!outcome.deleted) return ctx.errorReply(reply, 404, 'Requested entity was not found.');
  return {};
}

/** A LIVE post as Google Search shows it: the location, the summary with the event or offer, the photo. */
async function postPage(ctx: GbpContext, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const { store } = ctx.kit;
  const post = await store.get<GbpLocalPost>(KIND.post, request.params.id);
  if (!post || post.deleted || stateOf(post, ctx.kit.now()) !== 'LIVE')
    return sendMissingPost(reply, 'Google Business Profile');
  const username = await locationTitle(ctx, post.parent);
  const extra = [
    post.event?.title ? `${post.topicType === 'OFFER' ? 'Offer' : 'Event'}: ${String(post.event.title)}` : '',
    post.offer?.couponCode ? `Code: ${String(post.offer.couponCode)}` : '',
    post.callToAction
      ? `[${post.callToAction.actionType}]${post.callToAction.url ? ` ${post.callToAction.url}` : ''}`
      : '',
  ].filter(Boolean);
  return sendPostPage(reply, {
    platform: 'Google Business Profile',
    accent: ACCENT,
    noun: 'Update',
    account: { name: username, handle: post.parent },
    parts: [
      {
        text: [post.summary, ...extra].join('\n'),
        media: pageMedia(hostOf(ctx, request), post.media),
        createdAt: post.createdAt,
      },
    ],
  });
}

/** The location's title from the users signed in (the page needs no token). */
async function locationTitle(ctx: GbpContext, parent: string): Promise<string> {
  const users = await ctx.kit.store.list<GbpUser>(KIND.user, { match: { account: parent.split('/locations/')[0] } });
  const location = users[0]?.locations.find((l) => parent.endsWith(l.name));
  return location?.title ?? parent;
}
