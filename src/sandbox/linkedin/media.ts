// LinkedIn's media protocols (docs/platforms/linkedin.md "Calls"): Images and Documents (initializeUpload → one PUT of
// the bytes to the upload URL), Videos (initializeUpload with the size → a PUT per byte range of uploadInstructions,
// each answered with an ETag → finalizeUpload with the ETags in order), and the status reads every kind has (what
// processing decides: processing.ts). The video part size is a setting so tests can shorten it
// (`linkedinVideoPartBytes`). Assets are store documents; each uploaded part's bytes
// are a store blob of their own, and an available asset's bytes are served at its `downloadUrl` (/dms/<urn>).
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { applyFault, type SimulatorKit } from '../framework/simulator.ts';
import { imageSize } from '../framework/sniff.ts';
import { organizationOf } from './auth.ts';
import { hostOf, type LiContext } from './gate.ts';
import { assetStatus, MB, RULES, setting, sniffAll, startProcessing } from './processing.ts';
import { inputError, KIND, liError, type AssetKind, type LiAsset, type LiAssetPart, type LiMember } from './state.ts';
import { uploadedBytesHeaders } from '../framework/served-bytes.ts';

const DEFAULT_PART_BYTES = 4 * MB; // ⚠ unverified: the part size LinkedIn's uploadInstructions use
const UPLOAD_URL_TTL_MS = 24 * 3600_000;
const PREFIX: Record<AssetKind, string> = { image: 'D4D10AQ', video: 'D4D05AQ', document: 'D4D10AQH' };

/** May this member act as `owner` (themself, or the organization they administer)? */
export function mayActAs(member: LiMember, owner: string): boolean {
  return owner === `urn:li:person:${member.id}` || owner === `urn:li:organization:${organizationOf(member).id}`;
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
  // The downloadUrl of an available asset (LinkedIn's are signed media.licdn.com URLs): public, as a post's media are.
  app.get<{ Params: UrnParams }>('/dms/:urn', (request, reply) => download(ctx, request, reply));
}

/** initializeUpload of any kind: version, auth, faults, the owner check. */
async function initialize(
  ctx: LiContext,
  kind: AssetKind,
  request: FastifyRequest<ActionRoute>,
  reply: FastifyReply,
): Promise<FastifyReply | Record<string, unknown>> {
  const { kit, gate } = ctx;
  const g = await gate(request, reply, ['w_member_social', 'w_organization_social'], true);
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
  if (!mayActAs(g.member, init.owner))
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
  const parts: LiAssetPart[] = [];
  const part = (firstByte: number, lastByte: number) => ({
    firstByte,
    lastByte,
    blob: null,
    etag: null,
    sniffed: undefined,
  });
  if (declared !== null)
    for (let first = 0; first < declared; first += partBytes)
      parts.push(part(first, Math.min(declared, first + partBytes) - 1));
  else parts.push(part(0, -1));
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
  await kit.store.put(KIND.asset, urn, asset, g.member.id);
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

/** finalize of a video: every part uploaded, the ETags listed in order; then processing starts. */
async function finalize(
  ctx: LiContext,
  reply: FastifyReply,
  member: LiMember,
  fields: Record<string, unknown>,
): Promise<FastifyReply | Record<string, unknown>> {
  const { kit } = ctx;
  const f = fields.finalizeUploadRequest as Record<string, unknown> | undefined;
  if (!f || typeof f.video !== 'string')
    return reply.code(422).send(inputError('/finalizeUploadRequest/video', 'FIELD_REQUIRED', 'video is required'));
  const video = f.video;
  // Checked and started in one atomic update: a finalize racing another (or a part still arriving) sees one outcome.
  let refusal: { status: number; body: Record<string, unknown> } | undefined;
  const refuse = (status: number, body: Record<string, unknown>) => {
    refusal = { status, body };
    return undefined;
  };
  const a = await kit.store.update<LiAsset>(KIND.asset, video, (a) => {
    if (a.kind !== 'video') return refuse(404, liError(404, `Video ${video} does not exist`));
    if (a.memberId !== member.id)
      return refuse(403, liError(403, 'Accessing this video resource is forbidden', { serviceErrorCode: 100 }));
    if (a.uploadedAt !== null) return undefined;
    if ((f.uploadToken ?? '') !== a.uploadToken)
      return refuse(400, liError(400, 'The upload token does not match the video', { code: 'ILLEGAL_ARGUMENT' }));
    const ids = f.uploadedPartIds;
    if (!Array.isArray(ids) || ids.length !== a.parts.length)
      return refuse(
        400,
        liError(400, `uploadedPartIds must list the ${a.parts.length} part ETags in order`, {
          code: 'ILLEGAL_ARGUMENT',
        }),
      );
    for (const [i, part] of a.parts.entries()) {
      if (!part.etag)
        return refuse(
          400,
          liError(400, `Part ${i} (bytes ${part.firstByte}-${part.lastByte}) was not uploaded`, {
            code: 'ILLEGAL_ARGUMENT',
          }),
        );
      if (ids[i] !== part.etag)
        return refuse(
          400,
          liError(400, `uploadedPartIds[${i}] does not match the ETag of part ${i}`, { code: 'ILLEGAL_ARGUMENT' }),
        );
    }
    // Every part was checked against its byte range on upload, so the file is as large as declared.
    return startProcessing(kit, a, { bytes: a.declaredBytes ?? 0, sniffed: a.parts[0]?.sniffed, pixels: undefined });
  });
  if (!a) return reply.code(404).send(liError(404, `Video ${video} does not exist`));
  if (refusal) return reply.code(refusal.status).send(refusal.body);
  return reply.code(200).send();
}

async function uploadPart(ctx: LiContext, request: FastifyRequest<UploadPartRoute>, reply: FastifyReply) {
  const { kit } = ctx;
  const { urn, part } = request.params;
  const ut = String(request.query.ut ?? '');
  const check = kit.tokens.verify(ut, 'li_upload');
  if (!check.ok || check.claims.sub !== urn || String(check.claims.part) !== part)
    return reply.code(403).send(liError(403, 'The upload URL is invalid or has expired'));
  const index = Number(part);
  const a = await kit.store.get<LiAsset>(KIND.asset, urn);
  const p = a?.parts[index];
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
  } else {
    if (a.uploadedAt !== null) return reply.code(400).send(liError(400, 'The upload URL was already used'));
    if (data.length > RULES[a.kind].maxBytes)
      return reply.code(413).send(liError(413, `The ${a.kind} is larger than ${RULES[a.kind].maxBytes} bytes`));
  }
  const digest = createHash('sha256').update(data).digest('base64url');
  const blob = `${urn}/${index}/${digest}`;
  const uploaded = { blob, etag: `/ambry-video/signedId/${digest.slice(0, 22)}`, sniffed: sniffAll(data) };
  await kit.store.putBytes(blob, data);
  let used = false;
  await kit.store.update<LiAsset>(KIND.asset, urn, (current) => {
    const parts = current.parts.map((q, i) => (i === index ? { ...q, ...uploaded } : q));
    // A video's part may be sent again until finalize; an image or document is processed on its one PUT.
    if (current.kind === 'video') return current.uploadedAt === null ? { ...current, parts } : undefined;
    if (current.uploadedAt !== null) {
      used = true;
      return undefined;
    }
    const size = current.kind === 'image' ? imageSize(data) : undefined;
    const pixels = size ? size.width * size.height : undefined;
    return startProcessing(kit, { ...current, parts }, { bytes: data.length, sniffed: uploaded.sniffed, pixels });
  });
  if (used) return reply.code(400).send(liError(400, 'The upload URL was already used'));
  if (a.kind === 'video') return reply.code(200).header('etag', uploaded.etag).send();
  return reply.code(201).send();
}

async function readAsset(
  ctx: LiContext,
  kind: AssetKind,
  request: FastifyRequest<{ Params: UrnParams }>,
  reply: FastifyReply,
) {
  const { kit, gate } = ctx;
  const g = await gate(request, reply, ['w_member_social', 'w_organization_social'], true);
  if (!g) return reply;
  const applied = applyFault(kit, g.errors, kit.faults.take('media_status', g.member.id), request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const a = await kit.store.get<LiAsset>(KIND.asset, request.params.urn);
  if (!a || a.kind !== kind) return reply.code(404).send(liError(404, `${kind} ${request.params.urn} does not exist`));
  if (!mayActAs(g.member, a.owner))
    return reply
      .code(403)
      .send(liError(403, `Accessing this ${kind} resource is forbidden`, { serviceErrorCode: 100 }));
  return assetJson(kit, a, hostOf(request, ctx.prefix));
}

/**
 * An available asset's bytes, part after part (a video is never gathered into one buffer). Only the types
 * processing accepted are served, each as itself, with no sniffing and a sandboxed CSP: the bytes came from a client.
 */
async function download(ctx: LiContext, request: FastifyRequest<{ Params: UrnParams }>, reply: FastifyReply) {
  const { kit } = ctx;
  const a = await kit.store.get<LiAsset>(KIND.asset, request.params.urn);
  if (!a || assetStatus(kit, a) !== 'AVAILABLE' || !a.sniffed)
    return reply.code(404).send(liError(404, `${request.params.urn} does not exist`));
  const blobs = a.parts.map((p) => p.blob);
  async function* bytes() {
    for (const blob of blobs) {
      const data = blob ? await kit.store.getBytes(blob) : undefined;
      if (!data) throw new Error(`A part of ${a!.urn} has no bytes`);
      yield data;
    }
  }
  return reply
    .type(a.sniffed)
    .headers({
      'content-length': String(a.bytes),
      ...uploadedBytesHeaders(3600),
    })
    .send(blobs.length === 1 ? await kit.store.getBytes(blobs[0]!) : Readable.from(bytes()));
}
