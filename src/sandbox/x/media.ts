// X v2 media upload (docs/platforms/x.md "Calls"): the one-shot upload for images, and the chunked protocol for video,
// GIFs and large images — initialize (type, size, category) → append segments 0–999 → finalize → STATUS
// polling through pending / in_progress until succeeded or failed, with check_after_secs. Sizes, types and
// the bytes themselves (sniffed) are checked as X checks them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { applyFault, snowflake, windowHeaders, type SimulatorKit } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { authenticate } from './auth.ts';
import type { XContext, XMedia } from './state.ts';

const MB = 1_000_000;
const CATEGORIES: Record<string, { types: string[]; maxBytes: number; processingMs: number }> = {
  tweet_image: { types: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'], maxBytes: 5 * MB, processingMs: 0 },
  tweet_gif: { types: ['image/gif'], maxBytes: 15 * MB, processingMs: 1500 },
  // 512 MB: the smaller of the figures in docs/platforms/x.md "Limits" (older pages; the 2026 page says 8 GB).
  tweet_video: { types: ['video/mp4', 'video/quicktime'], maxBytes: 512 * MB, processingMs: 2500 },
};
const EXPIRES_AFTER_SECS = 86_400;

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

function mediaJson(kit: SimulatorKit, m: XMedia): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: m.id,
    media_key: `${m.category === 'tweet_video' ? 7 : 3}_${m.id}`,
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
function gate(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state, errorReply } = ctx;
  const user = authenticate(kit, state, request, reply, ['media.write']);
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

/** Starts processing at finalize; the checks X makes on the whole file end in `failed`. */
function finalize(
  kit: SimulatorKit,
  m: XMedia,
  data: Buffer,
  fault: { fault: string; delayMs?: number } | undefined,
): string | undefined {
  const rule = CATEGORIES[m.category]!;
  const sniffed = sniff(data);
  if (data.length !== m.totalBytes) return `Appended ${data.length} bytes but total_bytes was ${m.totalBytes}.`;
  m.finalized = true;
  m.startedAt = kit.now();
  m.readyAt = m.startedAt + rule.processingMs + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0);
  if (!sniffed || !rule.types.includes(sniffed))
    m.failed = `The bytes are not a ${m.category.replace('tweet_', '')} (${sniffed ?? 'unrecognised'}).`;
  if (fault?.fault === 'media_failed') m.failed = 'Media processing failed (injected).';
  if (m.failed && m.readyAt === m.startedAt) m.readyAt += 1; // failures surface through processing_info
  return undefined;
}

function create(ctx: XContext, ownerId: string, mediaType: string, category: string, totalBytes: number): XMedia {
  const m: XMedia = {
    id: snowflake(ctx.kit.now()),
    ownerId,
    mediaType,
    category,
    totalBytes,
    segments: new Map(),
    finalized: false,
    readyAt: 0,
    failed: null,
    startedAt: 0,
    createdAt: ctx.kit.now(),
    altText: null,
    fault: undefined,
  };
  ctx.state.media.set(m.id, m);
  return m;
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
}

/** The one-shot upload: the whole file in one multipart (or base64) body. */
async function uploadWhole(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const g = gate(ctx, request, reply);
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
  const m = create(ctx, g.user.id, mediaType, category, file.length);
  m.segments.set(0, file);
  const failure = finalize(ctx.kit, m, file, g.fault);
  if (failure) return invalid(reply, failure);
  return { data: mediaJson(ctx.kit, m) };
}

async function initializeUpload(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const g = gate(ctx, request, reply);
  if (!g) return reply;
  const { fields, valid } = parseBody(request.headers['content-type'], request.body);
  if (!valid) return invalid(reply, 'The body must be JSON.');
  const problemText = checkDeclared(fields.media_type, fields.media_category, fields.total_bytes);
  if (problemText) return invalid(reply, problemText);
  const m = create(
    ctx,
    g.user.id,
    String(fields.media_type),
    String(fields.media_category),
    Number(fields.total_bytes),
  );
  m.fault = g.fault;
  return { data: { id: m.id, media_key: mediaJson(ctx.kit, m).media_key, expires_after_secs: EXPIRES_AFTER_SECS } };
}

async function appendSegment(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = gate(ctx, request, reply);
  if (!g) return reply;
  const m = ctx.state.media.get(request.params.id);
  if (!m || m.ownerId !== g.user.id) return invalid(reply, 'Unknown media id.');
  if (m.finalized) return invalid(reply, 'The upload was already finalized.');
  const body = parseBody(request.headers['content-type'], request.body);
  const index = Number(body.fields.segment_index);
  const chunk =
    body.files.media?.data ??
    (typeof body.fields.media === 'string' ? Buffer.from(body.fields.media, 'base64') : undefined);
  if (!Number.isInteger(index) || index < 0 || index > 999)
    return invalid(reply, 'segment_index must be an integer from 0 to 999.');
  if (!chunk || chunk.length === 0) return invalid(reply, 'media (the segment bytes) is required.');
  m.segments.set(index, chunk);
  return { data: { expires_at: Math.floor(m.createdAt / 1000 + EXPIRES_AFTER_SECS) } };
}

async function finalizeUpload(ctx: XContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = gate(ctx, request, reply);
  if (!g) return reply;
  const m = ctx.state.media.get(request.params.id);
  if (!m || m.ownerId !== g.user.id) return invalid(reply, 'Unknown media id.');
  if (m.finalized) return { data: mediaJson(ctx.kit, m) };
  const indexes = [...m.segments.keys()].sort((a, b) => a - b);
  if (indexes.some((i, n) => i !== n)) return invalid(reply, 'Segments are missing.');
  const failure = finalize(ctx.kit, m, Buffer.concat(indexes.map((i) => m.segments.get(i)!)), g.fault ?? m.fault);
  if (failure) return invalid(reply, failure);
  return { data: mediaJson(ctx.kit, m) };
}

async function uploadStatus(
  ctx: XContext,
  request: FastifyRequest<{ Querystring: { command?: string; media_id?: string } }>,
  reply: FastifyReply,
) {
  const user = authenticate(ctx.kit, ctx.state, request, reply, ['media.write']);
  if (!user) return reply;
  const q = request.query;
  if (q.command !== 'STATUS') return invalid(reply, 'command must be STATUS.');
  const m = ctx.state.media.get(q.media_id ?? '');
  if (!m || m.ownerId !== user.id) return invalid(reply, 'Unknown media id.');
  return { data: mediaJson(ctx.kit, m) };
}

async function setMetadata(ctx: XContext, request: FastifyRequest, reply: FastifyReply) {
  const user = authenticate(ctx.kit, ctx.state, request, reply, ['media.write']);
  if (!user) return reply;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const m = ctx.state.media.get(String(fields.id ?? ''));
  if (!m || m.ownerId !== user.id) return invalid(reply, 'Unknown media id.');
  const alt = (fields.metadata as { alt_text?: { text?: unknown } } | undefined)?.alt_text?.text;
  if (typeof alt !== 'string' || alt.length > 1000)
    return invalid(reply, 'metadata.alt_text.text must be a string of at most 1000 characters.');
  m.altText = alt;
  return { data: { id: m.id, associated_metadata: { alt_text: { text: alt } } } };
}
