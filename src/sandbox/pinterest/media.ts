// Pinterest's video upload as the simulator plays it (docs/platforms/pinterest.md "Calls"): `POST /v5/media`
// registers an upload and answers an `upload_url` with `upload_parameters`; the client posts the file there as an
// S3-style multipart form (the parameters, then `file`), which answers 204 with no body; `GET /v5/media/{id}` reports
// `registered`, `processing`, then `succeeded` or `failed`. The upload URL is the simulator's own stand-in for S3, and
// its signed `policy` is what authorises the form, as on S3: no bearer token goes there.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { sniff } from '../framework/sniff.ts';
import { keepMedia } from '../meta/media-files.ts';
import { gate, hostOf } from './gate.ts';
import { KIND, type PinterestContext, type PinterestUpload } from './state.ts';

/** ⚠ unverified: how long Pinterest takes to process a video; a second here. */
const VIDEO_PROCESSING_MS = 1000;
/** How long a registered upload's form stays valid (⚠ unverified; S3 policies carry their own expiry). */
const POLICY_TTL = 3600;
/** Videos Pinterest takes (docs/platforms/pinterest.md "Limits"): MP4, MOV, M4V. */
const VIDEO_TYPES = /^video\/(mp4|quicktime)$/;
/** The largest video whose bytes the simulator keeps for the Pin's page. */
const KEEP_BYTES = 64 * 1024 * 1024;

interface IdParams {
  id: string;
}

export function mediaJson(u: PinterestUpload, now: number) {
  const status =
    u.uploadedAt === null
      ? 'registered'
      : u.readyAt !== null && now < u.readyAt
        ? 'processing'
        : u.failed
          ? 'failed'
          : 'succeeded';
  return { media_id: u.id, media_type: 'video', status };
}

export function registerPinterestMedia(app: FastifyInstance, ctx: PinterestContext): void {
  app.post('/v5/media', (request, reply) => register(ctx, request, reply));
  app.get<{ Params: IdParams }>('/v5/media/:id', (request, reply) => status(ctx, request, reply));
  app.post('/s3-upload/', (request, reply) => upload(ctx, request, reply));
}

async function register(ctx: PinterestContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const g = await gate(ctx, request, reply, 'register_media', 'org_write');
  if (!g) return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json')
    return ctx.errorReply(reply, 400, 'The body must be JSON.');
  if (body.fields.media_type !== 'video') return ctx.errorReply(reply, 400, 'media_type must be video.');
  const id = String(await kit.store.next('media', 5_212_123_920_968_240_000n));
  const u: PinterestUpload = {
    id,
    accountId: g.account.id,
    key: `uploads/${id.slice(-2)}/${id.slice(-4, -2)}/${g.account.id}:video:${id}`,
    uploadedAt: null,
    readyAt: null,
    failed: false,
    contentType: null,
    size: 0,
    bytesKey: null,
  };
  await kit.store.put(KIND.upload, u.id, u, u.accountId);
  if (g.drop) return kit.dropConnection(request, reply);
  const policy = kit.tokens.sign({ sub: u.id, typ: 'pinterest_upload', key: u.key, ttlSeconds: POLICY_TTL });
  return reply.code(201).send({
    media_id: u.id,
    media_type: 'video',
    upload_url: `${hostOf(ctx, request)}/s3-upload/`,
    upload_parameters: {
      'x-amz-date': new Date(kit.now()).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, ''),
      'x-amz-signature': policy.slice(-64),
      'x-amz-security-token': 'sandbox',
      'x-amz-algorithm': 'AWS4-HMAC-SHA256',
      key: u.key,
      policy,
      'x-amz-credential': 'SANDBOX/us-east-1/s3/aws4_request',
      'Content-Type': 'multipart/form-data',
    },
  });
}

/** S3 answers its own XML errors; the simulator answers their gist (⚠ unverified shape, S3's codes). */
function s3Error(reply: FastifyReply, status: number, code: string, message: string) {
  return reply
    .code(status)
    .type('application/xml')
    .send(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

async function upload(ctx: PinterestContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || !body.contentType.startsWith('multipart/form-data'))
    return s3Error(
      reply,
      400,
      'MalformedPOSTRequest',
      'The body of your POST request is not well-formed multipart/form-data.',
    );
  const check = kit.tokens.verify(String(body.fields.policy ?? ''), 'pinterest_upload');
  if (!check.ok || check.claims.key !== body.fields.key)
    return s3Error(reply, 403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed.');
  const file = body.files.file;
  if (!file) return s3Error(reply, 400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
  const u = await kit.store.get<PinterestUpload>(KIND.upload, check.claims.sub);
  if (!u) return s3Error(reply, 403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed.');
  const fault = kit.faults.take('upload_media', u.accountId);
  if (fault?.fault === 'server_error') return s3Error(reply, 503, 'SlowDown', 'Please reduce your request rate.');
  if (fault?.fault === 'hang') return kit.hang(request, reply);
  const type = sniff(file.data);
  const bytesKey = await keepMedia(kit.store, file.data.length <= KEEP_BYTES ? file.data : undefined);
  const now = kit.now();
  await kit.store.put(
    KIND.upload,
    u.id,
    {
      ...u,
      uploadedAt: now,
      readyAt: now + VIDEO_PROCESSING_MS + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0),
      // What is not a video Pinterest takes fails in processing, as the upload itself is plain S3.
      failed: fault?.fault === 'media_failed' || !type || !VIDEO_TYPES.test(type),
      contentType: type ?? null,
      size: file.data.length,
      bytesKey,
    } satisfies PinterestUpload,
    u.accountId,
  );
  if (fault?.fault === 'lost_response') return kit.dropConnection(request, reply);
  return reply.code(204).send();
}

async function status(ctx: PinterestContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'media_status', 'org_read');
  if (!g) return reply;
  const u = await ctx.kit.store.get<PinterestUpload>(KIND.upload, request.params.id);
  if (!u || u.accountId !== g.account.id) return ctx.errorReply(reply, 404, 'Media upload not found.');
  return mediaJson(u, ctx.kit.now());
}
