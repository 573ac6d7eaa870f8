// LinkedIn's media protocols (docs/platforms/linkedin.md "Calls"): Images and Documents (initializeUpload → one PUT of
// the bytes to the upload URL), Videos (initializeUpload with the size → a PUT per byte range of uploadInstructions,
// each answered with an ETag → finalizeUpload with the ETags in order), and the status reads every kind has:
// WAITING_UPLOAD → PROCESSING → AVAILABLE | PROCESSING_FAILED, driven by the clock. Processing times and the video part
// size are settings so tests can shorten them (`linkedinImageProcessingMs`, `linkedinVideoProcessingMs`,
// `linkedinDocumentProcessingMs`, `linkedinVideoPartBytes`).
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { applyFault, type SimulatorKit } from '../framework/simulator.ts';
import { imageSize, sniff } from '../framework/sniff.ts';
import { organizationsOf } from './auth.ts';
import { hostOf, type LiContext } from './gate.ts';
import { inputError, liError, type AssetKind, type LiAsset, type LiMember, type LiState } from './state.ts';

const MB = 1024 * 1024;
const MAX_PIXELS = 36_152_320;
const RULES: Record<AssetKind, { maxBytes: number; types: string[]; processingSetting: string; processingMs: number }> =
  {
    image: {
      maxBytes: 8 * MB,
      types: ['image/jpeg', 'image/png', 'image/gif'],
      processingSetting: 'linkedinImageProcessingMs',
      processingMs: 300,
    }, // ⚠ size
    video: {
      maxBytes: 500 * MB,
      types: ['video/mp4'],
      processingSetting: 'linkedinVideoProcessingMs',
      processingMs: 2500,
    }, // ⚠ size
    document: {
      maxBytes: 100 * MB,
      types: ['application/pdf'],
      processingSetting: 'linkedinDocumentProcessingMs',
      processingMs: 800,
    }, // ⚠ size
  };
const DEFAULT_PART_BYTES = 4 * MB; // ⚠ unverified: the part size LinkedIn's uploadInstructions use
const UPLOAD_URL_TTL_MS = 24 * 3600_000;
const PREFIX: Record<AssetKind, string> = { image: 'D4D10AQ', video: 'D4D05AQ', document: 'D4D10AQH' };

function setting(kit: SimulatorKit, name: string, fallback: number): number {
  return typeof kit.settings[name] === 'number' ? (kit.settings[name] as number) : fallback;
}

/** May this member act as `owner` (themself, or an organization they administer)? */
export function mayActAs(state: LiState, member: LiMember, owner: string): boolean {
  if (owner === `urn:li:person:${member.id}`) return true;
  const org = /^urn:li:organization:(\d+)$/.exec(owner)?.[1];
  return org !== undefined && organizationsOf(state, member).some((o) => o.id === org);
}

export function assetStatus(
  kit: SimulatorKit,
  a: LiAsset,
): 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED' {
  if (a.uploadedAt === null) return 'WAITING_UPLOAD';
  if (kit.now() < a.readyAt) return 'PROCESSING';
  return a.failed ? 'PROCESSING_FAILED' : 'AVAILABLE';
}

function sniffAll(data: Buffer): string | undefined {
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  return sniff(data);
}

/** The bytes are complete: processing starts, and its outcome is decided now (shown once the clock gets there). */
function startProcessing(kit: SimulatorKit, a: LiAsset, data: Buffer): void {
  const rule = RULES[a.kind];
  a.uploadedAt = kit.now();
  a.bytes = data.length;
  a.sniffed = sniffAll(data);
  a.readyAt =
    a.uploadedAt +
    setting(kit, rule.processingSetting, rule.processingMs) +
    (a.fault?.fault === 'slow_media' ? (a.fault.delayMs ?? 3000) : 0);
  if (!a.sniffed || !rule.types.includes(a.sniffed))
    a.failed = `The file is not a supported ${a.kind} (${a.sniffed ?? 'unrecognised format'}).`;
  else if (data.length > rule.maxBytes)
    a.failed = `The ${a.kind} is ${data.length} bytes; at most ${rule.maxBytes} are accepted.`;
  else if (a.kind === 'image') {
    const size = imageSize(data);
    if (size && size.width * size.height > MAX_PIXELS)
      a.failed = `The image has ${size.width * size.height} pixels; at most ${MAX_PIXELS}.`;
  }
  if (a.fault?.fault === 'media_failed') a.failed = 'Media processing failed (injected).';
}

function assetJson(kit: SimulatorKit, a: LiAsset, host: string): Record<string, unknown> {
  const status = assetStatus(kit, a);
  const out: Record<string, unknown> = { id: a.urn, owner: a.owner, status };
  if (status === 'AVAILABLE')
    Object.assign(out, {
      downloadUrl: `${host}/dms/${encodeURIComponent(a.urn)}`,
      downloadUrlExpiresAt: kit.now() + 3600_000,
    });
  if (a.kind === 'video') {
    if (status === 'PROCESSING_FAILED') out.processingFailureReason = a.failed;
    out.duration = status === 'AVAILABLE' ? 5000 : undefined;
  }
  if (a.kind === 'document' && status === 'AVAILABLE') out.totalPageCount = 1;
  return out;
}

function readJson(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> | undefined {
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json') {
    reply.code(400).send(liError(400, 'Request body could not be converted to data map', { code: 'ILLEGAL_ARGUMENT' }));
    return undefined;
  }
  return body.fields;
}

function nextId(kind: AssetKind): string {
  return `urn:li:${kind}:${PREFIX[kind]}${randomBytes(12).toString('base64url').replace(/[-_]/g, 'Q')}`;
}

interface UrnParams {
  urn: string;
}

/** Images, documents and videos share one route shape: `?action=initializeUpload` (videos: also finalizeUpload). */
interface ActionRoute {
  Querystring: { action?: string };
}

/** The pre-signed upload URL of one part: the asset, the part's index, and the `ut` token that signs them. */
interface UploadPartRoute {
  Params: { urn: string; part: string };
  Querystring: { ut?: string };
}

export function registerLiMedia(app: FastifyInstance, ctx: LiContext): void {
  app.post<ActionRoute>('/rest/images', (request, reply) => initialize(ctx, 'image', request, reply));
  app.post<ActionRoute>('/rest/documents', (request, reply) => initialize(ctx, 'document', request, reply));
  app.post<ActionRoute>('/rest/videos', (request, reply) => initialize(ctx, 'video', request, reply));
  // The upload URLs: pre-signed (the `ut` token), so a bearer token is accepted but not required.
  app.put<UploadPartRoute>('/dms-uploads/:urn/:part', (request, reply) => uploadPart(ctx, request, reply));
  app.get<{ Params: UrnParams }>('/rest/images/:urn', (request, reply) => readAsset(ctx, 'image', request, reply));
  app.get<{ Params: UrnParams }>('/rest/videos/:urn', (request, reply) => readAsset(ctx, 'video', request, reply));
  app.get<{ Params: UrnParams }>('/rest/documents/:urn', (request, reply) =>
    readAsset(ctx, 'document', request, reply),
  );
}

/** initializeUpload of any kind: version, auth, faults, the owner check. */
async function initialize(
  ctx: LiContext,
  kind: AssetKind,
  request: FastifyRequest<ActionRoute>,
  reply: FastifyReply,
): Promise<FastifyReply | Record<string, unknown>> {
  const { kit, state, gate } = ctx;
  const g = gate(request, reply, ['w_member_social', 'w_organization_social'], true);
  if (!g) return reply;
  const action = request.query.action;
  if (action !== 'initializeUpload' && !(kind === 'video' && action === 'finalizeUpload')) {
    return reply.code(400).send(liError(400, `Unsupported action ${String(action)}`, { code: 'ILLEGAL_ARGUMENT' }));
  }
  const fields = readJson(request, reply);
  if (!fields) return reply;
  if (action === 'finalizeUpload') return finalize(ctx, reply, g.member, fields);
  const fault = kit.faults.take('upload_media', g.member.id);
  const applied = applyFault(kit, g.errors, fault, request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const init = fields.initializeUploadRequest as Record<string, unknown> | undefined;
  if (!init || typeof init !== 'object')
    return reply
      .code(422)
      .send(inputError('/initializeUploadRequest', 'FIELD_REQUIRED', 'initializeUploadRequest is required'));
  if (typeof init.owner !== 'string')
    return reply.code(422).send(inputError('/initializeUploadRequest/owner', 'FIELD_REQUIRED', 'owner is required'));
  if (!mayActAs(state, g.member, init.owner))
    return reply.code(403).send(
      liError(403, `Not enough permissions to upload on behalf of ${init.owner}`, {
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
      }),
    );
  let declared: number | null = null;
  if (kind === 'video') {
    const size = init.fileSizeBytes;
    if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0)
      return reply
        .code(422)
        .send(
          inputError(
            '/initializeUploadRequest/fileSizeBytes',
            'FIELD_REQUIRED',
            'fileSizeBytes must be a positive integer',
          ),
        );
    if (size > RULES.video.maxBytes)
      return reply
        .code(422)
        .send(
          inputError(
            '/initializeUploadRequest/fileSizeBytes',
            'INVALID_VALUE',
            `A video may be at most ${RULES.video.maxBytes} bytes`,
          ),
        );
    declared = size;
  }
  const urn = nextId(kind);
  const partBytes = Math.max(1, setting(kit, 'linkedinVideoPartBytes', DEFAULT_PART_BYTES));
  const parts: LiAsset['parts'] = [];
  if (declared !== null)
    for (let first = 0; first < declared; first += partBytes)
      parts.push({ firstByte: first, lastByte: Math.min(declared, first + partBytes) - 1, data: null, etag: null });
  else parts.push({ firstByte: 0, lastByte: -1, data: null, etag: null });
  const asset: LiAsset = {
    urn,
    kind,
    owner: init.owner,
    memberId: g.member.id,
    declaredBytes: declared,
    parts,
    uploadToken: parts.length > 1 ? randomBytes(18).toString('base64url') : '',
    uploadedAt: null,
    readyAt: 0,
    failed: null,
    fault:
      fault && (fault.fault === 'slow_media' || fault.fault === 'media_failed')
        ? { fault: fault.fault, delayMs: fault.delayMs }
        : undefined,
    sniffed: undefined,
    bytes: 0,
    createdAt: kit.now(),
  };
  state.assets.set(urn, asset);
  const host = hostOf(request, ctx.prefix);
  const urlOf = (index: number) =>
    `${host}/dms-uploads/${encodeURIComponent(urn)}/${index}?ut=${kit.tokens.sign({ sub: urn, typ: 'li_upload', part: index, ttlSeconds: UPLOAD_URL_TTL_MS / 1000 })}`;
  const expires = kit.now() + UPLOAD_URL_TTL_MS;
  const value =
    kind === 'video'
      ? {
          uploadUrlsExpireAt: expires,
          video: urn,
          uploadInstructions: parts.map((p, i) => ({
            uploadUrl: urlOf(i),
            firstByte: p.firstByte,
            lastByte: p.lastByte,
          })),
          uploadToken: asset.uploadToken,
        }
      : { uploadUrlExpiresAt: expires, uploadUrl: urlOf(0), [kind]: urn };
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return { value };
}

/** finalizeUpload of a video: every part uploaded, the ETags listed in order; then processing starts. */
function finalize(
  ctx: LiContext,
  reply: FastifyReply,
  member: LiMember,
  fields: Record<string, unknown>,
): FastifyReply | Record<string, unknown> {
  const { kit, state } = ctx;
  const f = fields.finalizeUploadRequest as Record<string, unknown> | undefined;
  if (!f || typeof f.video !== 'string')
    return reply.code(422).send(inputError('/finalizeUploadRequest/video', 'FIELD_REQUIRED', 'video is required'));
  const a = state.assets.get(f.video);
  if (!a || a.kind !== 'video') return reply.code(404).send(liError(404, `Video ${f.video} does not exist`));
  if (a.memberId !== member.id)
    return reply.code(403).send(liError(403, 'Accessing this video resource is forbidden', { serviceErrorCode: 100 }));
  if (a.uploadedAt !== null) return reply.code(200).send();
  if ((f.uploadToken ?? '') !== a.uploadToken)
    return reply
      .code(400)
      .send(liError(400, 'The upload token does not match the video', { code: 'ILLEGAL_ARGUMENT' }));
  const ids = f.uploadedPartIds;
  if (!Array.isArray(ids) || ids.length !== a.parts.length)
    return reply.code(400).send(
      liError(400, `uploadedPartIds must list the ${a.parts.length} part ETags in order`, {
        code: 'ILLEGAL_ARGUMENT',
      }),
    );
  for (const [i, part] of a.parts.entries()) {
    if (!part.etag)
      return reply.code(400).send(
        liError(400, `Part ${i} (bytes ${part.firstByte}-${part.lastByte}) was not uploaded`, {
          code: 'ILLEGAL_ARGUMENT',
        }),
      );
    if (ids[i] !== part.etag)
      return reply
        .code(400)
        .send(liError(400, `uploadedPartIds[${i}] does not match the ETag of part ${i}`, { code: 'ILLEGAL_ARGUMENT' }));
  }
  startProcessing(kit, a, Buffer.concat(a.parts.map((p) => p.data!)));
  return reply.code(200).send();
}

async function uploadPart(ctx: LiContext, request: FastifyRequest<UploadPartRoute>, reply: FastifyReply) {
  const { kit, state } = ctx;
  const { urn, part } = request.params;
  const ut = String(request.query.ut ?? '');
  const check = kit.tokens.verify(ut, 'li_upload');
  if (!check.ok || check.claims.sub !== urn || String(check.claims.part) !== part)
    return reply.code(403).send(liError(403, 'The upload URL is invalid or has expired'));
  const a = state.assets.get(urn);
  const p = a?.parts[Number(part)];
  if (!a || !p) return reply.code(404).send(liError(404, 'Unknown upload'));
  const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (data.length === 0) return reply.code(400).send(liError(400, 'The upload body is empty'));
  if (a.kind === 'video') {
    const expected = p.lastByte - p.firstByte + 1;
    if (data.length !== expected)
      return reply
        .code(400)
        .send(
          liError(
            400,
            `Part ${part} must be ${expected} bytes (bytes ${p.firstByte}-${p.lastByte}); got ${data.length}`,
          ),
        );
    p.data = data;
    p.etag = `/ambry-video/signedId/${createHash('sha256').update(data).digest('base64url').slice(0, 22)}`;
    return reply.code(200).header('etag', p.etag).send();
  }
  if (a.uploadedAt !== null) return reply.code(400).send(liError(400, 'The upload URL was already used'));
  if (data.length > RULES[a.kind].maxBytes)
    return reply.code(413).send(liError(413, `The ${a.kind} is larger than ${RULES[a.kind].maxBytes} bytes`));
  p.data = data;
  startProcessing(kit, a, data);
  return reply.code(201).send();
}

async function readAsset(
  ctx: LiContext,
  kind: AssetKind,
  request: FastifyRequest<{ Params: UrnParams }>,
  reply: FastifyReply,
) {
  const { kit, state, gate } = ctx;
  const g = gate(request, reply, ['w_member_social', 'w_organization_social'], true);
  if (!g) return reply;
  const applied = applyFault(kit, g.errors, kit.faults.take('media_status', g.member.id), request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const a = state.assets.get(request.params.urn);
  if (!a || a.kind !== kind) return reply.code(404).send(liError(404, `${kind} ${request.params.urn} does not exist`));
  if (!mayActAs(state, g.member, a.owner))
    return reply
      .code(403)
      .send(liError(403, `Accessing this ${kind} resource is forbidden`, { serviceErrorCode: 100 }));
  return assetJson(kit, a, hostOf(request, ctx.prefix));
}
