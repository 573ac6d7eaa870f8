// Reviews as the simulator plays the My Business v4 API (docs/inbox.md "Platforms"): `GET
// /v4/accounts/{a}/locations/{l}/reviews` (most recently updated first, `pageSize` up to 50, `pageToken`, with
// `averageRating` and `totalReviewCount`), `PUT …/reviews/{r}/reply` (`{comment}`: creates or replaces the owner's
// reply, answering the reply) and `DELETE …/reviews/{r}/reply`. Reviews are written by the trickle (one more per
// location post as the clock moves) and the control switch (src/sandbox/framework/inbox.ts). Faults: `list_inbox` on
// the list; `create_post` on the reply, where `item_deleted` is the 404 of a review its author removed.
// ⚠ unverified: the default order (updateTime descending assumed) and the reply's 4,096-character limit.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { gate } from './accounts.ts';
import { userFor } from './auth.ts';
import { KIND, type GbpContext, type GbpLocalPost } from './state.ts';

const REVIEW = 'review';
const STARS = ['ONE', 'TWO', 'THREE', 'FOUR', 'FIVE'] as const;
const MAX_REPLY = 4096;

export interface GbpReview {
  /** `accounts/{a}/locations/{l}/reviews/{id}` */
  name: string;
  reviewId: string;
  parent: string;
  reviewer: string;
  stars: number;
  comment: string;
  createdAt: number;
  updatedAt: number;
  reply: { comment: string; updatedAt: number } | null;
  deleted: boolean;
}

interface LocationParams {
  account: string;
  location: string;
}

/** The location a control-switch `account` names: a location resource, or the user's first location. */
function locationFor(account: string): string {
  if (/^accounts\/[^/]+\/locations\/[^/]+$/.test(account)) return account;
  const user = userFor(account);
  return `${user.account}/${user.locations[0]!.name}`;
}

async function writeReview(
  ctx: GbpContext,
  parent: string,
  author: string,
  text: string,
  n: number,
): Promise<GbpReview> {
  const { kit } = ctx;
  const reviewId = `AbFvOq${await kit.snowflake()}`;
  const review: GbpReview = {
    name: `${parent}/reviews/${reviewId}`,
    reviewId,
    parent,
    reviewer: author,
    stars: 5 - (n % 3),
    comment: text,
    createdAt: kit.now(),
    updatedAt: kit.now(),
    reply: null,
    deleted: false,
  };
  await kit.store.put(REVIEW, reviewId, review, parent);
  return review;
}

/** The control switch: reviews of the location. */
export async function injectGbp(ctx: GbpContext, input: InboxInjection): Promise<InjectResult> {
  if (input.kind !== 'review')
    return { error: `Google Business Profile gives Herald reviews, not ${input.kind}s (docs/inbox.md).` };
  const parent = locationFor(input.account);
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push((await writeReview(ctx, parent, author, text, i)).name);
  }
  return { ids };
}

function reviewJson(r: GbpReview) {
  return {
    name: r.name,
    reviewId: r.reviewId,
    reviewer: {
      displayName: r.reviewer,
      profilePhotoUrl: `https://lh3.googleusercontent.com/a/${r.reviewer}`,
      isAnonymous: false,
    },
    starRating: STARS[r.stars - 1],
    ...(r.comment ? { comment: r.comment } : {}),
    createTime: new Date(r.createdAt).toISOString(),
    updateTime: new Date(r.updatedAt).toISOString(),
    ...(r.reply
      ? { reviewReply: { comment: r.reply.comment, updateTime: new Date(r.reply.updatedAt).toISOString() } }
      : {}),
  };
}

export function registerGbpReviews(app: FastifyInstance, ctx: GbpContext): void {
  const base = '/v4/accounts/:account/locations/:location/reviews';
  app.get<{ Params: LocationParams; Querystring: { pageSize?: string; pageToken?: string } }>(base, (request, reply) =>
    listReviews(ctx, request, reply),
  );
  app.put<{ Params: LocationParams & { review: string } }>(`${base}/:review/reply`, (request, reply) =>
    putReply(ctx, request, reply),
  );
}

async function owned(
  ctx: GbpContext,
  request: FastifyRequest<{ Params: LocationParams }>,
  reply: FastifyReply,
  op: string,
) {
  const g = await gate(ctx, request, reply, op);
  if (!g) return undefined;
  const p = request.params;
  if (
    `accounts/${p.account}` !== g.user.account ||
    !g.user.locations.some((l) => l.name === `locations/${p.location}`)
  ) {
    ctx.errorReply(reply, 403, 'The caller does not have permission');
    return undefined;
  }
  return { ...g, parent: `accounts/${p.account}/locations/${p.location}` };
}

async function listReviews(
  ctx: GbpContext,
  request: FastifyRequest<{ Params: LocationParams; Querystring: { pageSize?: string; pageToken?: string } }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const g = await owned(ctx, request, reply, 'list_inbox');
  if (!g) return reply;
  const size = request.query.pageSize === undefined ? 50 : Number(request.query.pageSize);
  if (!Number.isInteger(size) || size < 1 || size > 50)
    return errorReply(reply, 400, 'Request contains an invalid argument: page_size.');
  const posts = await kit.store.list<GbpLocalPost>(KIND.post, {
    owner: g.parent,
    match: { deleted: false },
    limit: 50,
  });
  const trickle = posts.map((p) => ({ id: p.localPostId, createdAt: p.createdAt }));
  await runTrickle(kit, trickle, async (post, n) => {
    const { author, text } = trickleItem(post.id, n);
    await writeReview(ctx, g.parent, author, text, n);
  });
  const all = (await kit.store.list<GbpReview>(REVIEW, { owner: g.parent, match: { deleted: false } })).sort(
    (a, b) => b.updatedAt - a.updatedAt || (a.reviewId < b.reviewId ? 1 : -1),
  );
  const start = request.query.pageToken ? Number(Buffer.from(request.query.pageToken, 'base64url').toString()) : 0;
  if (!Number.isInteger(start) || start < 0)
    return errorReply(reply, 400, 'Request contains an invalid argument: page_token.');
  const page = all.slice(start, start + size);
  return {
    reviews: page.map(reviewJson),
    ...(all.length > 0
      ? { averageRating: Math.round((all.reduce((s, r) => s + r.stars, 0) / all.length) * 10) / 10 }
      : {}),
    totalReviewCount: all.length,
    ...(start + size < all.length ? { nextPageToken: Buffer.from(String(start + size)).toString('base64url') } : {}),
  };
}

async function putReply(
  ctx: GbpContext,
  request: FastifyRequest<{ Params: LocationParams & { review: string } }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const g = await owned(ctx, request, reply, 'create_post');
  if (!g) return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  const comment = body.valid && body.contentType === 'application/json' ? body.fields.comment : undefined;
  if (typeof comment !== 'string' || comment.trim() === '')
    return errorReply(reply, 400, 'Request contains an invalid argument: comment.');
  if ([...comment].length > MAX_REPLY)
    return errorReply(reply, 400, 'Request contains an invalid argument: comment is too long.');
  const review = await kit.store.get<GbpReview>(REVIEW, request.params.review);
  if (!review || review.deleted || review.parent !== g.parent || g.fault?.fault === 'item_deleted')
    return errorReply(reply, 404, 'Requested entity was not found.');
  const at = kit.now();
  await kit.store.put(
    REVIEW,
    review.reviewId,
    { ...review, reply: { comment, updatedAt: at }, updatedAt: at },
    g.parent,
  );
  return { comment, updateTime: new Date(at).toISOString() };
}

/** The owners' replies, for the control surface's post list. */
export async function ownerReplies(ctx: GbpContext) {
  const all = await ctx.kit.store.list<GbpReview>(REVIEW, { ascending: true });
  return all.filter((r) => r.reply !== null);
}
