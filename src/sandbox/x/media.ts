// X v2 media upload (docs/platforms/x.md "Calls"): the one-shot upload for images, and the chunked protocol for video,
// GIFs and large images — initialize (type, size, category) → append segments 0–999 → finalize → STATUS
// polling through pending / in_progress until succeeded or failed, with check_after_secs. Sizes, types and
// the bytes themselves (sniffed) are checked as X checks them. Each upload is a store document; each appended
// segment's bytes a blob of its own, so an append writes its segment and a few bytes of document, never the whole
// file. The bytes of processed media are served at a public URL (`/web/media/:id`, X's pbs.twimg.com).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { applyFault, windowHeaders, type SimulatorKit } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { authenticate } from './auth.ts';
import { KIND, segmentBlob, type XContext, type XMedia, type XSegment } from './state.ts';
import { uploadedBytesHeaders } from '../framework/served-bytes.ts';

const MB = 1_000_000;
const CATEGORIES: Record<string, { types: string[]; maxBytes: number; processingMs: number }> = {
  tweet_image: { types: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'], maxBytes: 5 * MB, processingMs: 0 },
  tweet_gif: { types: ['image/gif'], maxBytes: 15 * MB, processingMs: 1500 },
  // 512 MB: the smaller of the figures in docs/platforms/x.md "Limits" (older pages; the 2026 page says 8 GB).
  tweet_video: { types: ['video/mp4', 'video/quicktime'], maxBytes: 512 * MB, processingMs: 2500 },
};
const EXPIRES_AFTER_SECS = 86_400;
/** Enough leading bytes for `sniff` to recognise every type X takes. */
const SNIFF_BYTES = 16;

function invalid(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).send({
    errors: [{ message }],
    title: 'Invalid Request',
    detail: message,
    type: 'https://api.x.com/2/problems/invalid-request',
  });
}

/** Where processing stands: derived from the clock, so polling sees pending → in_progress → succeeded/failed. */
export function mediaState(
  kit: SimulatorKit,
  m: XMedia,
): { state: 'pending' | 'in_progress' | 'succeeded' | 'failed'; progress: number } {
  if (!m.finalized) return { state: 'pending', progress: 0 };
  const total = m.readyAt - m.startedAt;
  const elapsed = kit.now() - m.startedAt;
  if (elapsed >= total) return { state: m.failed ? 'failed' : 'succeeded', progress: 100 };
  const progress = Math.floor((elapsed / total) * 100);
  return { state: progress < 10 ? 'pending' : 'in_progress', progress };
}

/** X's media key: `<type>_<media id>` (7 for video, 3 for images and GIFs). */
export function mediaKey(m: Pick<XMedia, 'id' | 'category'>): string {
  return `${m.category === 'tweet_video' ? 7 : 3}_${m.id}`;
}

/** Where the simulator serves a media item's bytes (`host`: the request's origin and the mount prefix). */
export function mediaUrl(host: string, id: string): string {
  return `${host}/web/media/${id}`;
}

/** The segment indexes of an upload, in order. */
function segmentIndexes(m: XMedia): number[] {
  return Object.keys(m.segments)
    .map(Number)
    .sort((a, b) => a - b);
}

function mediaJson(kit: SimulatorKit, m: XMedia): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: m.id,
    media_key: mediaKey(m),
    size: m.totalBytes,
    expires_after_secs: EXPIRES_AFTER_SECS,
  };
  if (CATEGORIES[m.category]!.processingMs > 0 || m.failed || m.readyAt > m.startedAt) {
    const s = mediaState(kit, m);
    out.processing_info = {
      state: s.state,
      progress_percent: s.progress,
      ...(s.state === 'pending' || s.state === 'in_progress' ? { check_after_secs: 1 } : {}),
      ...(s.state === 'failed' ? { error: { code: 1, name: 'InvalidMedia', message: m.failed } } : {}),
    };
  }
  return out;
}

/** Common to every upload call: auth, the 1,875 / 15 min window, injected faults. */
async function gate(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const user = await authenticate(ctx, request, reply, ['media.write']);
  if (!user) return undefined;
  const window = kit.windows.hit(`media:${user.id}`, kit.limit(1875), 15 * 60_000);
  reply.headers(windowHeaders(window, 'x'));
  if (!window.allowed) {
    errorReply(reply, 429, 'Too Many Requests');
    return undefined;
  }
  const fault = kit.faults.take('upload_media', user.id);
  if (applyFault(kit, { errorReply }, fault, request, reply, 'x') === 'sent') return undefined;
  return { user, fault };
}

/**
 * The upload once finalized: processing starts, and the checks X makes on the file end in `failed`. `head` is the
 * file's first bytes (the type is sniffed from them); the size was checked from the segments' lengths.
 */
function finalized(
  kit: SimulatorKit,
  m: XMedia,
  head: Buffer,
  fault: { fault: string; delayMs?: number } | undefined,
): XMedia {
  const rule = CATEGORIES[m.category]!;
  const sniffed = sniff(head);
  const startedAt = kit.now();
  let readyAt = startedAt + rule.processingMs + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0);
  let failed: string | null = null;
  if (!sniffed || !rule.types.includes(sniffed))
    failed = `The bytes are not a ${m.category.replace('tweet_', '')} (${sniffed ?? 'unrecognised'}).`;
  if (fault?.fault === 'media_failed') failed = 'Media processing failed (injected).';
  if (failed && readyAt === startedAt) readyAt += 1; // failures surface through processing_info
  return { ...m, finalized: true, contentType: sniffed ?? null, startedAt, readyAt, failed };
}

/** The first bytes of an upload, from as few segments as hold them (usually the first alone). */
async function headOf(ctx: XContext, m: XMedia): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  for (const index of segmentIndexes(m)) {
    const bytes = await ctx.kit.store.getBytes(m.segments[index]!.blob);
    if (!bytes) break;
    parts.push(bytes);
    length += bytes.length;
    if (length >= SNIFF_BYTES) break;
  }
  return Buffer.concat(parts);
}

/** Writes a segment's bytes to a blob named by their digest, before any document notes them. */
async function keepSegment(ctx: XContext, mediaId: string, index: number, bytes: Buffer): Promise<XSegment> {
  const blob = segmentBlob(mediaId, index, createHash('sha256').update(bytes).digest('base64url'));
  await ctx.kit.store.putBytes(blob, bytes);
  return { bytes: bytes.length, blob };
}

/** A new upload's document (not yet stored). */
async function create(
  ctx: XContext,
  ownerId: string,
  mediaType: string,
  category: string,
  totalBytes: number,
): Promise<XMedia> {
  return {
    id: await ctx.kit.snowflake(),
    ownerId,
    mediaType,
    category,
    totalBytes,
    segments: {},
    contentType: null,
    finalized: false,
    readyAt: 0,
    failed: null,
    startedAt: 0,
    createdAt: ctx.kit.now(),
    altText: null,
    fault: undefined,
  };
}

function checkDeclared(mediaType: unknown, category: unknown, totalBytes: unknown): string | undefined {
  if (typeof category !== 'string' || !CATEGORIES[category])
    return `media_category must be one of ${Object.keys(CATEGORIES).join(', ')}.`;
  const rule = CATEGORIES[category]!;
  if (typeof mediaType !== 'string' || !rule.types.includes(mediaType))
    return `media_type ${String(mediaType)} is not accepted for ${category}.`;
  if (typeof totalBytes !== 'number' || !Number.isInteger(totalBytes) || totalBytes < 1)
    return 'total_bytes must be a positive integer.';
  if (totalBytes > rule.maxBytes) return `File size exceeds ${rule.maxBytes} bytes for ${category}.`;
  return undefined;
}

interface IdParams {
  id: string;
}

export function registerXMedia(app: FastifyInstance, ctx: XContext): void {
  app.post('/2/media/upload', (request, reply) => uploadWhole(ctx, request, reply));
  app.post('/2/media/upload/initialize', (request, reply) => initializeUpload(ctx, request, reply));
  app.post<{ Params: IdParams }>('/2/media/upload/:id/append', (request, reply) => appendSegment(ctx, request, reply));
  app.post<{ Params: IdParams }>('/2/media/upload/:id/finalize', (request, reply) =>
    finalizeUpload(ctx, request, reply),
  );
  app.get<{ Querystring: { command?: string; media_id?: string } }>('/2/media/upload', (request, reply) =>
    uploadStatus(ctx, request, reply),
  );
  // Alt text (⚠ unverified: from the twitter-api-v2 client, `createMediaMetadata`).
  app.post('/2/media/metadata', (request, reply) => setMetadata(ctx, request, reply));
  // The bytes, public as pbs.twimg.com's are: the sandbox page of a post shows its images and videos from here.
  app.get<{ Params: IdParams }>('/web/media/:id', (request, reply) => serveMedia(ctx, request, reply));
}

/** The one-shot upload: the whole file in one multipart (or base64) body. */
async function uploadWhole(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const g = await gate(ctx, request, reply);
  if (!g) return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  const file =
    body.files.media?.data ??
    (typeof body.fields.media === 'string' ? Buffer.from(body.fields.media, 'base64') : undefined);
  if (!file) return invalid(reply, 'media is required.');
  const category = String(body.fields.media_category ?? 'tweet_image');
  const mediaType = String(body.fields.media_type ?? sniff(file) ?? body.files.media?.contentType ?? '');
  const problemText = checkDeclared(mediaType, category, file.length);
  if (problemText) return invalid(reply, problemText);
  const created = await create(ctx, g.user.id, mediaType, category, file.length);
  const segment = await keepSegment(ctx, created.id, 0, file);
  const m = finalized(ctx.kit, { ...created, segments: { 0: segment } }, file, g.fault);
  await ctx.kit.store.put(KIND.media, m.id, m, m.ownerId);
  return { data: mediaJson(ctx.kit, m) };
}

async function initializeUpload(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const g = await gate(ctx, request, reply);
  if (!g) return reply;
  const { fields, valid } = parseBody(request.headers['content-type'], request.body);
  if (!valid) return invalid(reply, 'The body must be JSON.');
  const problemText = checkDeclared(fields.media_type, fields.media_category, fields.total_bytes);
  if (problemText) return invalid(reply, problemText);
  const m = {
    ...(await create(
      ctx,
      g.user.id,
      String(fields.media_type),
      String(fields.media_category),
      Number(fields.total_bytes),
    )),
    fault: g.fault,
  };
  await ctx.kit.store.put(KIND.media, m.id, m, m.ownerId);
  return { data: { id: m.id, media_key: mediaJson(ctx.kit, m).media_key, expires_after_secs: EXPIRES_AFTER_SECS } };
}

async function appendSegment(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply);
  if (!g) return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  const index = Number(body.fields.segment_index);
  const chunk =
    body.files.media?.data ??
    (typeof body.fields.media === 'string' ? Buffer.from(body.fields.media, 'base64') : undefined);
  if (!Number.isInteger(index) || index < 0 || index > 999)
    return invalid(reply, 'segment_index must be an integer from 0 to 999.');
  if (!chunk || chunk.length === 0) return invalid(reply, 'media (the segment bytes) is required.');
  const uploader = g.user.id;
  const known = await ctx.kit.store.get<XMedia>(KIND.media, request.params.id);
  if (!known || known.ownerId !== uploader) return invalid(reply, 'Unknown media id.');
  if (known.finalized) return invalid(reply, 'The upload was already finalized.');
  // The bytes first, in a blob of their own, then the segment is noted in the document atomically (appends may run
  // in parallel, on several nodes): a noted segment always has its bytes, whenever a node stops.
  const segment = await keepSegment(ctx, known.id, index, chunk);
  const outcome = { noted: false };
  const m = await ctx.kit.store.update<XMedia>(KIND.media, known.id, (doc) => {
    if (doc.finalized) return undefined;
    outcome.noted = true;
    return { ...doc, segments: { ...doc.segments, [index]: segment } };
  });
  if (!m) return invalid(reply, 'Unknown media id.');
  if (!outcome.noted) return invalid(reply, 'The upload was already finalized.');
  return { data: { expires_at: Math.floor(m.createdAt / 1000 + EXPIRES_AFTER_SECS) } };
}

async function finalizeUpload(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply);
  if (!g) return reply;
  const m = await ctx.kit.store.get<XMedia>(KIND.media, request.params.id);
  if (!m || m.ownerId !== g.user.id) return invalid(reply, 'Unknown media id.');
  if (m.finalized) return { data: mediaJson(ctx.kit, m) };
  const indexes = segmentIndexes(m);
  if (indexes.some((i, n) => i !== n)) return invalid(reply, 'Segments are missing.');
  // The size from the segments' lengths and the type from the first bytes: the whole file is never assembled.
  const size = indexes.reduce((sum, i) => sum + m.segments[i]!.bytes, 0);
  if (size !== m.totalBytes) return invalid(reply, `Appended ${size} bytes but total_bytes was ${m.totalBytes}.`);
  const head = await headOf(ctx, m);
  const fault = g.fault ?? m.fault;
  // A finalize that raced this one already started processing: its answer stands.
  const done = await ctx.kit.store.update<XMedia>(KIND.media, m.id, (doc) =>
    doc.finalized ? undefined : finalized(ctx.kit, doc, head, fault),
  );
  return { data: mediaJson(ctx.kit, done ?? m) };
}

async function uploadStatus(
  ctx: XContext,
  request: FastifyRequest<{ Querystring: { command?: string; media_id?: string } }>,
  reply: FastifyReply,
) {
  const user = await authenticate(ctx, request, reply, ['media.write']);
  if (!user) return reply;
  const q = request.query;
  if (q.command !== 'STATUS') return invalid(reply, 'command must be STATUS.');
  const m = q.media_id ? await ctx.kit.store.get<XMedia>(KIND.media, q.media_id) : undefined;
  if (!m || m.ownerId !== user.id) return invalid(reply, 'Unknown media id.');
  return { data: mediaJson(ctx.kit, m) };
}

async function setMetadata(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const user = await authenticate(ctx, request, reply, ['media.write']);
  if (!user) return reply;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const id = String(fields.id ?? '');
  const alt = (fields.metadata as { alt_text?: { text?: unknown } } | undefined)?.alt_text?.text;
  if (typeof alt !== 'string' || alt.length > 1000)
    return invalid(reply, 'metadata.alt_text.text must be a string of at most 1000 characters.');
  const m = await ctx.kit.store.update<XMedia>(KIND.media, id, (doc) =>
    doc.ownerId === user.id ? { ...doc, altText: alt } : undefined,
  );
  if (!m || m.ownerId !== user.id) return invalid(reply, 'Unknown media id.');
  return { data: { id: m.id, associated_metadata: { alt_text: { text: alt } } } };
}

/**
 * A processed upload's bytes, streamed segment by segment (one blob in memory at a time), as the type processing
 * sniffed, with no sniffing by the browser and a sandboxed CSP: the bytes came from a client.
 */
async function serveMedia(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const m = await ctx.kit.store.get<XMedia>(KIND.media, request.params.id);
  if (!m || !m.contentType || mediaState(ctx.kit, m).state !== 'succeeded')
    return reply.code(404).type('text/plain').send('Not found');
  return reply
    .type(m.contentType)
    .headers({
      'content-length': String(m.totalBytes),
      ...uploadedBytesHeaders(86400),
    })
    .send(Readable.from(segmentBytes(ctx, m)));
}

async function* segmentBytes(ctx: XContext, m: XMedia): AsyncGenerator<Buffer> {
  for (const index of segmentIndexes(m)) {
    const segment = await ctx.kit.store.getBytes(m.segments[index]!.blob);
    if (!segment) throw new Error(`Segment ${index} of media ${m.id} is missing.`);
    yield segment;
  }
}
