// Comments as the simulator plays the Data API (docs/inbox.md "Platforms"): `commentThreads.list` with
// `allThreadsRelatedToChannelId` (the threads on the channel's videos, most recently active first, `part=snippet,replies`,
// paged by `pageToken`, 1 unit) and `comments.insert` (`part=snippet`, a reply to a top-level comment named by
// `snippet.parentId`, 50 units), and `commentThreads.insert` (a top-level comment: Herald's first comments). Other people's comments come from the trickle and the control switch
// (src/sandbox/framework/inbox.ts). Faults: `list_inbox` on the list; `create_post` on the insert, where
// `item_deleted` is the 404 a deleted parent gives. ⚠ unverified: the order of threads (by latest activity) and the
// reason of the 404 (`commentNotFound`).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { applyFault } from '../framework/simulator.ts';
import { authenticate, channelFor, type Caller } from './auth.ts';
import { QUOTA_EXCEEDED, spend } from './quota.ts';
import { KIND, type YoutubeContext, type YoutubeVideo } from './state.ts';

const API = '/youtube/v3';
const COMMENT = 'comment';
/** Thread documents, owned by the channel, keyed by the top-level comment id; `at` moves with every reply. */
const THREAD = 'comment-thread';
export const COMMENT_COST = { list: 1, insert: 50 } as const;

export interface YoutubeComment {
  id: string;
  videoId: string;
  /** The channel that owns the video. */
  channelId: string;
  /** The top-level comment a reply answers; null for a top-level comment. */
  parentId: string | null;
  authorChannelId: string;
  authorName: string;
  text: string;
  createdAt: number;
  deleted: boolean;
}

interface ThreadRef {
  id: string;
  at: number;
}

/** A comment id in YouTube's form (`Ug…` top level, `<top>.<tail>` for a reply). */
function commentId(seed: string, parent: string | null): string {
  const tail = createHash('sha256').update(seed).digest('base64url').slice(0, 22);
  return parent ? `${parent}.${tail}` : `Ugz${tail}`;
}

async function writeComment(
  ctx: YoutubeContext,
  video: YoutubeVideo,
  author: string,
  text: string,
  parent: YoutubeComment | undefined,
): Promise<YoutubeComment> {
  const { kit } = ctx;
  const channel = channelFor(author);
  const parentId = parent ? (parent.parentId ?? parent.id) : null;
  const id = commentId(`${video.id}:${await kit.snowflake()}`, parentId);
  const comment: YoutubeComment = {
    id,
    videoId: video.id,
    channelId: video.channelId,
    parentId,
    authorChannelId: channel.id,
    authorName: channel.title,
    text,
    createdAt: kit.now(),
    deleted: false,
  };
  await kit.store.put(COMMENT, id, comment, video.channelId);
  await kit.store.put<ThreadRef>(THREAD, parentId ?? id, { id: parentId ?? id, at: kit.now() }, video.channelId);
  return comment;
}

/** The control switch: comments on the channel's video, replies to one of them. */
export async function injectYoutube(ctx: YoutubeContext, input: InboxInjection): Promise<InjectResult> {
  if (input.kind !== 'comment' && input.kind !== 'reply')
    return { error: `YouTube gives Herald comments and replies, not ${input.kind}s (docs/inbox.md).` };
  const channel = channelFor(input.account);
  const videoId =
    input.post_id ??
    (await ctx.kit.store.list<YoutubeVideo>(KIND.video, { owner: channel.id, match: { deleted: false }, limit: 1 }))[0]
      ?.id;
  const video = videoId ? await ctx.kit.store.get<YoutubeVideo>(KIND.video, videoId) : undefined;
  if (!video || video.deleted) return { error: videoId ? `No video ${videoId}.` : `${input.account} has no video.` };
  const parent = input.parent_id ? await ctx.kit.store.get<YoutubeComment>(COMMENT, input.parent_id) : undefined;
  if (input.parent_id && !parent) return { error: `No comment ${input.parent_id}.` };
  let replyTo = parent;
  if (input.kind === 'reply' && !replyTo) replyTo = await writeComment(ctx, video, 'grace_ho', 'First!', undefined);
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push((await writeComment(ctx, video, author, text, input.kind === 'reply' ? replyTo : undefined)).id);
  }
  return { ids };
}

export function commentJson(c: YoutubeComment) {
  const at = new Date(c.createdAt).toISOString();
  return {
    kind: 'youtube#comment',
    etag: `${c.id}-${c.createdAt}`,
    id: c.id,
    snippet: {
      channelId: c.channelId,
      videoId: c.videoId,
      textDisplay: c.text,
      textOriginal: c.text,
      ...(c.parentId ? { parentId: c.parentId } : {}),
      authorDisplayName: c.authorName,
      authorProfileImageUrl: `https://yt3.ggpht.com/${c.authorChannelId}`,
      authorChannelUrl: `http://www.youtube.com/channel/${c.authorChannelId}`,
      authorChannelId: { value: c.authorChannelId },
      canRate: true,
      viewerRating: 'none',
      likeCount: 0,
      publishedAt: at,
      updatedAt: at,
    },
  };
}

async function gate(
  ctx: YoutubeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  units: number,
): Promise<{ caller: Caller; fault: string | undefined } | undefined> {
  const caller = await authenticate(ctx, request, reply);
  if (!caller) return undefined;
  const fault = ctx.kit.faults.take(operation, caller.channel.id);
  if (applyFault(ctx.kit, { errorReply: ctx.errorReply }, fault, request, reply, 'ietf') === 'sent') return undefined;
  if (!(await spend(ctx, caller, units))) {
    ctx.errorReply(reply, 403, QUOTA_EXCEEDED);
    return undefined;
  }
  return { caller, fault: fault?.fault };
}

interface ThreadsQuery {
  part?: string;
  allThreadsRelatedToChannelId?: string;
  maxResults?: string;
  pageToken?: string;
}

export function registerYoutubeComments(app: FastifyInstance, ctx: YoutubeContext): void {
  app.get<{ Querystring: ThreadsQuery }>(`${API}/commentThreads`, (request, reply) => threads(ctx, request, reply));
  app.post<{ Querystring: { part?: string } }>(`${API}/comments`, (request, reply) => insert(ctx, request, reply));
  app.post<{ Querystring: { part?: string } }>(`${API}/commentThreads`, (request, reply) =>
    insertThread(ctx, request, reply),
  );
}

/**
 * `commentThreads.insert` (`part=snippet`, `snippet.videoId` and `snippet.topLevelComment.snippet.textOriginal`, 50
 * units): a top-level comment on a video, as the caller's channel (Herald's first comments). Faults: `create_comment`.
 */
async function insertThread(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: { part?: string } }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'create_comment', COMMENT_COST.insert);
  if (!g) return reply;
  if (!request.query.part)
    return errorReply(reply, 400, 'missingRequiredParameter: No filter selected. Expected one of: part');
  const body = parseBody(request.headers['content-type'], request.body);
  const snippet = (body.valid && body.contentType === 'application/json' ? body.fields.snippet : undefined) as
    { videoId?: unknown; topLevelComment?: { snippet?: { textOriginal?: unknown } } } | undefined;
  const text = snippet?.topLevelComment?.snippet?.textOriginal;
  if (typeof snippet?.videoId !== 'string')
    return errorReply(reply, 400, 'invalidVideoId: The snippet.videoId property is required.');
  if (typeof text !== 'string' || text.trim() === '')
    return errorReply(reply, 400, 'commentTextRequired: The comment resource must contain a snippet.textOriginal.');
  if ([...text].length > 10_000) return errorReply(reply, 400, 'commentTextTooLong: The comment text is too long.');
  const video = await kit.store.get<YoutubeVideo>(KIND.video, snippet.videoId);
  if (!video || video.deleted || g.fault === 'item_deleted')
    return errorReply(reply, 404, 'videoNotFound: The video could not be found.');
  const made = await writeComment(ctx, video, g.caller.channel.username, text, undefined);
  if (g.fault === 'lost_response') return kit.dropConnection(request, reply);
  return {
    kind: 'youtube#commentThread',
    etag: `${made.id}-${made.createdAt}`,
    id: made.id,
    snippet: { channelId: made.channelId, videoId: made.videoId, topLevelComment: commentJson(made), canReply: true },
  };
}

async function threads(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: ThreadsQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'list_inbox', COMMENT_COST.list);
  if (!g) return reply;
  const q = request.query;
  if (!q.part) return errorReply(reply, 400, 'missingRequiredParameter: No filter selected. Expected one of: part');
  const channelId = q.allThreadsRelatedToChannelId;
  if (!channelId)
    return errorReply(reply, 400, 'No filter selected. Expected one of: allThreadsRelatedToChannelId, id, videoId');
  if (channelId !== g.caller.channel.id)
    return errorReply(reply, 403, 'forbidden: The comment threads could not be retrieved.');
  const max = q.maxResults === undefined ? 20 : Number(q.maxResults);
  if (!Number.isInteger(max) || max < 1 || max > 100)
    return errorReply(reply, 400, 'invalidParameter: maxResults must be between 1 and 100.');
  const videos = await kit.store.list<YoutubeVideo>(KIND.video, {
    owner: channelId,
    match: { deleted: false },
    limit: 50,
  });
  await runTrickle(kit, videos, async (video, n) => {
    const { author, text } = trickleItem(video.id, n);
    await writeComment(ctx, video, author, text, undefined);
  });
  const refs = (await kit.store.list<ThreadRef>(THREAD, { owner: channelId })).sort(
    (a, b) => b.at - a.at || (a.id < b.id ? 1 : -1),
  );
  const start = q.pageToken ? Number(Buffer.from(q.pageToken, 'base64url').toString()) : 0;
  if (!Number.isInteger(start) || start < 0)
    return errorReply(reply, 400, 'invalidPageToken: The request specifies an invalid page token.');
  const page = refs.slice(start, start + max);
  const all = await kit.store.list<YoutubeComment>(COMMENT, { owner: channelId, ascending: true });
  const items = [];
  for (const ref of page) {
    const top = all.find((c) => c.id === ref.id);
    if (!top || top.deleted) continue;
    const replies = all.filter((c) => c.parentId === top.id && !c.deleted);
    items.push({
      kind: 'youtube#commentThread',
      etag: `${top.id}-${ref.at}`,
      id: top.id,
      snippet: {
        channelId,
        videoId: top.videoId,
        topLevelComment: commentJson(top),
        canReply: true,
        totalReplyCount: replies.length,
        isPublic: true,
      },
      ...(replies.length > 0 && String(q.part).includes('replies')
        ? { replies: { comments: replies.map(commentJson) } }
        : {}),
    });
  }
  return {
    kind: 'youtube#commentThreadListResponse',
    etag: `threads-${start}-${refs.length}`,
    ...(start + max < refs.length ? { nextPageToken: Buffer.from(String(start + max)).toString('base64url') } : {}),
    pageInfo: { totalResults: refs.length, resultsPerPage: max },
    items,
  };
}

async function insert(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: { part?: string } }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'create_post', COMMENT_COST.insert);
  if (!g) return reply;
  if (!request.query.part)
    return errorReply(reply, 400, 'missingRequiredParameter: No filter selected. Expected one of: part');
  const body = parseBody(request.headers['content-type'], request.body);
  const snippet = (body.valid && body.contentType === 'application/json' ? body.fields.snippet : undefined) as
    { parentId?: unknown; textOriginal?: unknown } | undefined;
  if (!snippet || typeof snippet.parentId !== 'string')
    return errorReply(reply, 400, 'operationNotSupported: Use commentThreads.insert to post a top-level comment.');
  if (typeof snippet.textOriginal !== 'string' || snippet.textOriginal.trim() === '')
    return errorReply(reply, 400, 'commentTextRequired: The comment resource must contain a snippet.textOriginal.');
  if ([...snippet.textOriginal].length > 10_000)
    return errorReply(reply, 400, 'commentTextTooLong: The comment text is too long.');
  const parent = await kit.store.get<YoutubeComment>(COMMENT, snippet.parentId);
  if (!parent || parent.deleted || parent.parentId !== null || g.fault === 'item_deleted')
    return errorReply(
      reply,
      404,
      'commentNotFound: The comment identified by the parentId parameter could not be found.',
    );
  const video = await kit.store.get<YoutubeVideo>(KIND.video, parent.videoId);
  if (!video || video.deleted) return errorReply(reply, 404, 'videoNotFound: The video could not be found.');
  const made = await writeComment(ctx, video, g.caller.channel.username, snippet.textOriginal, parent);
  return commentJson(made);
}

/** The channel's own replies, for the control surface's post list. */
export async function ownReplies(ctx: YoutubeContext): Promise<YoutubeComment[]> {
  const all = await ctx.kit.store.list<YoutubeComment>(COMMENT, { ascending: true });
  return all.filter((c) => c.parentId !== null && c.authorChannelId === c.channelId);
}
