// YouTube's resumable upload as the simulator plays it (docs/platforms/youtube.md "Calls"): the session start
// (POST …/upload/youtube/v3/videos?uploadType=resumable with the video resource; `Location` names the session), the
// bytes (PUT to the session, in one request or in chunks with `Content-Range`, every chunk but the last a multiple
// of 256 KiB; 308 with `Range` until the last), and the status query (PUT with `Content-Range: bytes */total`: 308
// with the bytes held, or the video once complete). The last byte makes the video; processing follows.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  measure,
  MAX_LENGTH,
  MAX_TAGS_LENGTH,
  MAX_TITLE_LENGTH,
  ANGLE_BRACKETS,
  tagsLength,
} from '../../platforms/youtube/limits.ts';
import { parseBody } from '../framework/body.ts';
import type { FaultRule } from '../framework/faults.ts';
import { applyFault } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { authenticate, type Caller } from './auth.ts';
import { COST, QUOTA_EXCEEDED, spend } from './quota.ts';
import {
  chunkBlob,
  KIND,
  videoBlob,
  type UploadSession,
  type VideoMetadata,
  type YoutubeContext,
  type YoutubeVideo,
} from './state.ts';
import { videoJson } from './videos.ts';

/** Chunks other than the last are multiples of this (resumable upload guide). */
export const CHUNK_QUANTUM = 256 * 1024;
const VIDEO_PROCESSING_MS = 1000;
/** Video categories the simulator knows (videoCategories.list for the US; ⚠ unverified: the list varies by region). */
const CATEGORIES = new Set(['1', '2', '10', '15', '17', '19', '20', '22', '23', '24', '25', '26', '27', '28', '29']);
const PRIVACY = new Set(['public', 'unlisted', 'private']);
const UPLOAD_PATH = '/upload/youtube/v3/videos';

interface UploadQuery {
  uploadType?: string;
  part?: string;
  upload_id?: string;
  notifySubscribers?: string;
}

/**
 * Every upload call: the token, then the operation's faults. The fault comes back when it is the route's own
 * business (media faults) or when the work must be done before the connection is dropped (`drop`).
 */
async function gate(
  ctx: YoutubeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
): Promise<{ caller: Caller; drop: boolean; fault: FaultRule | undefined } | undefined> {
  const caller = await authenticate(ctx, request, reply);
  if (!caller) return undefined;
  const fault = ctx.kit.faults.take(operation, caller.channel.id);
  const applied = applyFault(ctx.kit, { errorReply: ctx.errorReply }, fault, request, reply, 'ietf');
  return applied === 'sent' ? undefined : { caller, drop: applied === 'drop', fault };
}

export function registerYoutubeUploads(app: FastifyInstance, ctx: YoutubeContext): void {
  app.post<{ Querystring: UploadQuery }>(UPLOAD_PATH, (request, reply) => startSession(ctx, request, reply));
  app.put<{ Querystring: UploadQuery }>(UPLOAD_PATH, (request, reply) => putBytes(ctx, request, reply));
}

/** The video resource's snippet and status as the session keeps them, or the reason YouTube refuses them. */
function readMetadata(fields: Record<string, unknown>): VideoMetadata | string {
  const snippet = (fields.snippet ?? {}) as Record<string, unknown>;
  const status = (fields.status ?? {}) as Record<string, unknown>;
  const title = typeof snippet.title === 'string' ? snippet.title : '';
  const description = typeof snippet.description === 'string' ? snippet.description : '';
  const tags = Array.isArray(snippet.tags) ? snippet.tags : [];
  if (title.trim() === '') return 'invalidTitle: The request must specify a video title.';
  if ([...title].length > MAX_TITLE_LENGTH || ANGLE_BRACKETS.test(title))
    return 'invalidTitle: The request metadata specifies an invalid video title.';
  if (measure(description) > MAX_LENGTH || ANGLE_BRACKETS.test(description))
    return 'invalidDescription: The request metadata specifies an invalid video description.';
  if (!tags.every((t) => typeof t === 'string') || tagsLength(tags as string[]) > MAX_TAGS_LENGTH)
    return 'invalidTags: The request metadata specifies invalid video keywords.';
  const categoryId = snippet.categoryId === undefined ? '22' : String(snippet.categoryId);
  if (!CATEGORIES.has(categoryId))
    return 'invalidCategoryId: The snippet.categoryId property specifies an invalid category ID.';
  const privacyStatus = status.privacyStatus ?? 'public';
  if (typeof privacyStatus !== 'string' || !PRIVACY.has(privacyStatus))
    return 'invalidVideoMetadata: The request metadata is invalid.';
  const kids = status.selfDeclaredMadeForKids ?? false;
  if (typeof kids !== 'boolean') return 'invalidVideoMetadata: The request metadata is invalid.';
  return {
    title,
    description,
    tags: tags as string[],
    categoryId,
    privacyStatus: privacyStatus as VideoMetadata['privacyStatus'],
    selfDeclaredMadeForKids: kids,
  };
}

async function startSession(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: UploadQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'upload_media');
  if (!g) return reply;
  const q = request.query;
  if (q.uploadType !== 'resumable')
    return errorReply(reply, 400, 'badRequest: The simulator takes resumable uploads only (uploadType=resumable).');
  const parts = (q.part ?? '').split(',').map((p) => p.trim());
  if (!parts.includes('snippet')) return errorReply(reply, 400, 'required: Required parameter: part');
  const total = Number(request.headers['x-upload-content-length']);
  const type = String(request.headers['x-upload-content-type'] ?? '');
  // ⚠ unverified: the guide lists both headers; whether YouTube refuses a session without the length is not said.
  if (!Number.isSafeInteger(total) || total <= 0)
    return errorReply(reply, 400, 'badRequest: X-Upload-Content-Length must give the file size.');
  if (!/^video\/[\w.+-]+$|^application\/octet-stream$/.test(type))
    return errorReply(reply, 400, 'badRequest: X-Upload-Content-Type must be video/* or application/octet-stream.');
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json')
    return errorReply(reply, 400, 'parseError: The body must be a video resource in JSON.');
  const metadata = readMetadata(body.fields);
  if (typeof metadata === 'string') return errorReply(reply, 400, metadata);
  if (!(await spend(ctx, g.caller, COST.insert))) return errorReply(reply, 403, QUOTA_EXCEEDED);
  const n = await kit.store.next('upload-session');
  const session: UploadSession = {
    id: createHash('sha256').update(`${kit.name}:session:${n}`).digest('base64url').slice(0, 40),
    channelId: g.caller.channel.id,
    total,
    contentType: type,
    metadata,
    received: 0,
    chunks: [],
    videoId: null,
    createdAt: kit.now(),
    processingDelayMs: g.fault?.fault === 'slow_media' ? (g.fault.delayMs ?? 3000) : 0,
    processingFails: g.fault?.fault === 'media_failed',
  };
  await kit.store.put(KIND.session, session.id, session, session.channelId);
  if (g.drop) return kit.dropConnection(request, reply);
  const location = `${request.protocol}://${request.headers.host}${ctx.prefix}${UPLOAD_PATH}?uploadType=resumable&upload_id=${session.id}`;
  return reply.code(200).header('location', location).send();
}

/** `Range: bytes=0-N` of what the session holds; absent while it holds nothing. */
function rangeHeader(session: UploadSession): Record<string, string> {
  return session.received > 0 ? { range: `bytes=0-${session.received - 1}` } : {};
}

async function putBytes(
  ctx: YoutubeContext,
  request: FastifyRequest<{ Querystring: UploadQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const session = await kit.store.get<UploadSession>(KIND.session, request.query.upload_id ?? '');
  const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const range = String(request.headers['content-range'] ?? '');
  const query = /^bytes \*\/(\d+|\*)$/.exec(range);
  const chunk = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
  const final = query ? false : chunk ? Number(chunk[2]) + 1 === Number(chunk[3]) : true;
  const g = await gate(ctx, request, reply, query ? 'upload_status' : final ? 'create_post' : 'upload_chunk');
  if (!g) return reply;
  // An unknown or expired session is 404: the upload starts again from a new session (resumable upload guide).
  if (!session || session.channelId !== g.caller.channel.id)
    return errorReply(reply, 404, 'notFound: The upload session was not found or has expired.');
  if (session.videoId) {
    // Complete: every later PUT, the status query included, answers the video (⚠ unverified: 200, like a read).
    const video = await kit.store.get<YoutubeVideo>(KIND.video, session.videoId);
    if (video) return reply.code(200).send(videoJson(ctx, request, video, ['snippet', 'status']));
  }
  if (query) return reply.code(308).headers(rangeHeader(session)).send();
  const start = chunk ? Number(chunk[1]) : 0;
  const end = chunk ? Number(chunk[2]) : data.length - 1;
  const total = chunk ? Number(chunk[3]) : data.length;
  if (total !== session.total || end < start || end - start + 1 !== data.length)
    return errorReply(reply, 400, 'badRequest: Content-Range does not match the body or the session size.');
  if (!final && data.length % CHUNK_QUANTUM !== 0)
    return errorReply(reply, 400, 'badRequest: Every chunk but the last must be a multiple of 256 KiB.');
  // A chunk that does not continue from the last byte held is not taken; the 308 says where to go on from
  // (⚠ unverified: the guide does not say what YouTube answers to such a chunk).
  if (start !== session.received) return reply.code(308).headers(rangeHeader(session)).send();
  await kit.store.putBytes(chunkBlob(session.id, start), data);
  const videoId = final ? await newVideoId(ctx) : null;
  // Advanced under the session's lock: of two PUTs of the same range (two API nodes), one is taken.
  let taken = false;
  const after = await kit.store.update<UploadSession>(KIND.session, session.id, (s) => {
    if (s.received !== start || s.videoId) return undefined;
    taken = true;
    return { ...s, received: end + 1, chunks: [...s.chunks, start], videoId };
  });
  if (!after) return errorReply(reply, 404, 'notFound: The upload session was not found or has expired.');
  if (!taken) return reply.code(308).headers(rangeHeader(after)).send();
  if (!final) {
    if (g.drop) return kit.dropConnection(request, reply);
    return reply.code(308).headers(rangeHeader(after)).send();
  }
  const video = await completeUpload(ctx, after, videoId!);
  if (g.drop) return kit.dropConnection(request, reply);
  return reply.code(201).send(videoJson(ctx, request, video, ['snippet', 'status']));
}

/** An 11-character id from a counter of the store (YouTube's are 11 URL-safe characters): never handed out twice. */
async function newVideoId(ctx: YoutubeContext): Promise<string> {
  const n = await ctx.kit.store.next('video');
  return createHash('sha256').update(`${ctx.kit.name}:video:${n}`).digest('base64url').slice(0, 11);
}

/** The last byte is in: the chunks become the video's bytes, and the video is made. */
async function completeUpload(ctx: YoutubeContext, session: UploadSession, videoId: string): Promise<YoutubeVideo> {
  const { kit } = ctx;
  const pieces = await Promise.all(session.chunks.map((offset) => kit.store.getBytes(chunkBlob(session.id, offset))));
  const bytes = Buffer.concat(pieces.map((p) => p ?? Buffer.alloc(0)));
  const sniffed = sniff(bytes);
  const video: YoutubeVideo = {
    id: videoId,
    channelId: session.channelId,
    sessionId: session.id,
    metadata: session.metadata,
    contentType: sniffed ?? session.contentType,
    size: bytes.length,
    createdAt: kit.now(),
    processedAt: kit.now() + VIDEO_PROCESSING_MS + session.processingDelayMs,
    // YouTube takes any bytes and fails them in processing when they are no video.
    failed: session.processingFails || !sniffed?.startsWith('video/'),
    failureReason: session.processingFails ? 'conversion' : 'invalidFile',
    deleted: false,
  };
  await Promise.all([
    kit.store.putBytes(videoBlob(video.id), bytes),
    kit.store.put(KIND.video, video.id, video, video.channelId),
  ]);
  return video;
}
