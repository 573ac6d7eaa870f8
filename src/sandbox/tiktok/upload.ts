// TikTok's media transfer and status as the simulator plays them (content-posting-api-media-transfer-guide,
// -reference-get-video-status): the chunk rules checked at init; `PUT {upload_url}` with `Content-Range`, chunks
// taken strictly in order (206 for each but the last, 201 for the last), the upload URL valid for an hour; and
// `status/fetch` reporting PROCESSING_UPLOAD / PROCESSING_DOWNLOAD → PUBLISH_COMPLETE or FAILED with `fail_reason`,
// `uploaded_bytes` (what a resumed upload continues from) and `publicaly_available_post_id` (TikTok's spelling) as
// int64 numbers in the JSON, as TikTok sends them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { applyFault } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { keepMedia } from '../meta/media-files.ts';
import { logId } from './envelope.ts';
import { gate, str } from './gate.ts';
import { chunkBlob, KIND, statusOf, type TiktokContext, type TiktokPublish } from './state.ts';

const MiB = 1024 * 1024;
// ⚠ unverified: whether TikTok's "MB" is 10^6 or 2^20 bytes; the simulator takes the binary reading (Herald's
// chunks of 10,000,000 bytes satisfy both).
const MIN_CHUNK = 5 * MiB;
const MAX_CHUNK = 64 * MiB;
const MAX_FINAL_CHUNK = 128 * MiB;
const MAX_VIDEO = 4 * 1024 * MiB;
export const UPLOAD_URL_TTL_MS = 3600_000;
export const VIDEO_PROCESSING_MS = 1000;
const KEEP_BYTES = 16 * MiB;

/** TikTok's chunk rules for a FILE_UPLOAD init; the problem in words, or the accepted chunking. */
export function checkChunking(
  source: Record<string, unknown>,
): string | { videoSize: number; chunkSize: number; totalChunks: number } {
  const videoSize = source.video_size;
  const chunkSize = source.chunk_size;
  const total = source.total_chunk_count;
  if (![videoSize, chunkSize, total].every((n) => Number.isInteger(n) && (n as number) > 0))
    return 'video_size, chunk_size and total_chunk_count are required positive integers for FILE_UPLOAD.';
  const [size, chunk, count] = [videoSize, chunkSize, total] as [number, number, number];
  if (size > MAX_VIDEO) return 'video_size is over 4 GB.';
  if (size < MIN_CHUNK && (chunk !== size || count !== 1))
    return 'a video under 5 MB is uploaded whole: chunk_size must equal video_size and total_chunk_count be 1.';
  if (chunk > size) return 'chunk_size is larger than video_size.';
  if (
    size >= MIN_CHUNK &&
    (chunk < MIN_CHUNK || chunk > MAX_CHUNK) &&
    !(count === 1 && chunk === size && size <= MAX_CHUNK)
  )
    return 'chunk_size must be between 5 MB and 64 MB.';
  if (count !== Math.floor(size / chunk)) return 'total_chunk_count must be video_size / chunk_size, rounded down.';
  if (count > 1000) return 'a video has at most 1000 chunks.';
  if (size - (count - 1) * chunk > MAX_FINAL_CHUNK) return 'the final chunk would be over 128 MB.';
  return { videoSize: size, chunkSize: chunk, totalChunks: count };
}

interface UploadParams {
  publishId: string;
}

export function registerTiktokUpload(app: FastifyInstance, ctx: TiktokContext): void {
  app.put<{ Params: UploadParams; Querystring: { upload_token?: string } }>(
    '/upload/video/:publishId',
    (request, reply) => uploadChunk(ctx, request, reply),
  );
  app.post('/v2/post/publish/status/fetch/', (request, reply) => statusFetch(ctx, request, reply));
}

async function uploadChunk(
  ctx: TiktokContext,
  request: FastifyRequest<{ Params: UploadParams; Querystring: { upload_token?: string } }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const { store } = kit;
  const id = request.params.publishId;
  const check = kit.tokens.verify(request.query.upload_token ?? '', 'tiktok_upload');
  const publish = await store.get<TiktokPublish>(KIND.publish, id);
  // ⚠ unverified: TikTok's answer to an unknown or expired upload URL.
  if (!check.ok || check.claims.sub !== id || !publish || kit.now() > publish.uploadExpiresAt)
    return errorReply(reply, 404, 'invalid_params: The upload URL is invalid or expired.');
  const fault = kit.faults.take('upload_chunk', publish.accountId);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers['content-range'] ?? ''));
  const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (!/^video\/(mp4|quicktime|webm)$/.test(String(request.headers['content-type'] ?? '')))
    return errorReply(
      reply,
      400,
      'invalid_file_upload: Content-Type must be video/mp4, video/quicktime or video/webm.',
    );
  if (!range) return errorReply(reply, 400, 'invalid_file_upload: Content-Range must be bytes {first}-{last}/{total}.');
  const [first, last, total] = range.slice(1).map(Number) as [number, number, number];
  if (total !== publish.videoSize)
    return errorReply(reply, 400, `invalid_file_upload: the total ${total} is not the declared video_size.`);
  if (publish.receivedAt !== null && last === total - 1) return reply.code(201).send(); // the last chunk again
  if (first !== publish.uploadedBytes)
    return errorReply(
      reply,
      416,
      `invalid_file_upload: chunks are taken in order; the next chunk starts at byte ${publish.uploadedBytes}.`,
    );
  const index = Math.floor(first / publish.chunkSize);
  const isLast = index === publish.totalChunks - 1;
  const expected = isLast ? publish.videoSize - first : publish.chunkSize;
  if (last - first + 1 !== expected || data.length !== expected)
    return errorReply(reply, 400, `invalid_file_upload: chunk ${index + 1} must be ${expected} bytes.`);
  // The first chunk decides the file's fate: its type, and the media faults of the upload.
  let planned: Pick<TiktokPublish, 'plannedFail' | 'extraProcessingMs'> | undefined;
  if (index === 0) {
    const media = kit.faults.take('upload_media', publish.accountId);
    const type = sniff(data);
    planned = {
      plannedFail: media?.fault === 'media_failed' || !type?.startsWith('video/') ? 'file_format_check_failed' : null,
      extraProcessingMs: media?.fault === 'slow_media' ? (media.delayMs ?? 3000) : 0,
    };
  }
  const keep = publish.videoSize <= KEEP_BYTES;
  if (keep) await store.putBytes(chunkBlob(id, index), data);
  let mediaKey: string | null = null;
  if (isLast && keep) {
    const parts = await Promise.all(Array.from({ length: index + 1 }, (_, i) => store.getBytes(chunkBlob(id, i))));
    mediaKey = parts.every(Boolean) ? await keepMedia(store, Buffer.concat(parts as Buffer[])) : null;
  }
  let taken = false;
  await store.update<TiktokPublish>(KIND.publish, id, (p) => {
    if (p.uploadedBytes !== first) return undefined; // another request took this chunk meanwhile
    taken = true;
    const next: TiktokPublish = { ...p, ...planned, uploadedBytes: first + data.length };
    if (isLast) {
      next.receivedAt = kit.now();
      next.processingMs = VIDEO_PROCESSING_MS + next.extraProcessingMs;
      next.failReason = next.plannedFail;
      next.media = [{ key: mediaKey, kind: 'video', alt: null }];
    }
    return next;
  });
  if (!taken) return errorReply(reply, 416, 'invalid_file_upload: this chunk was already received.');
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return reply.code(isLast ? 201 : 206).send();
}

async function statusFetch(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'publish_status', 'video.publish', 'status');
  if (!g) return reply;
  const publishId = str(g.body, 'publish_id');
  if (!publishId) return errorReply(reply, 400, 'invalid_params: publish_id is required.');
  const publish = await kit.store.get<TiktokPublish>(KIND.publish, publishId);
  // ⚠ unverified: TikTok's answer for a publish_id of another user or none at all.
  if (!publish || publish.accountId !== g.account.id)
    return errorReply(reply, 400, 'invalid_params: The publish_id does not exist.');
  const status = statusOf(publish, kit.now());
  // Written by hand: the post ids are int64 numbers, beyond what JSON.stringify of a JS number keeps exact.
  // ⚠ unverified: that the id is given for SELF_ONLY posts too (the field's name says "publicly available").
  const ids = status === 'PUBLISH_COMPLETE' ? `[${publish.postId}]` : '[]';
  const fail = status === 'FAILED' ? `,"fail_reason":${JSON.stringify(publish.failReason)}` : '';
  const body =
    `{"data":{"status":"${status}"${fail},"publicaly_available_post_id":${ids},` +
    `"uploaded_bytes":${publish.uploadedBytes},"downloaded_bytes":${publish.downloadedBytes}},` +
    `"error":{"code":"ok","message":"","log_id":"${logId(kit.now())}"}}`;
  if (g.drop) return kit.dropConnection(request, reply);
  return reply.type('application/json; charset=utf-8').send(body);
}
