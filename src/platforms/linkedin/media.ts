// LinkedIn's media protocols (docs/platforms/linkedin.md "Calls"): images and documents are initialized, PUT in one
// request to the upload URL and polled until AVAILABLE; videos are initialized with their size, PUT part by part to the
// byte ranges LinkedIn hands out (never a fixed chunk size), finalized with the parts' ETags in order, and polled until
// AVAILABLE or PROCESSING_FAILED. The owner of every upload is the post's author.
import type { Readable } from 'node:stream';
import { sleep } from '../classify.ts';
import { PlatformError, type MediaSource, type PreparedMedia } from '../types.ts';
import { call, rest, type LiApi } from './client.ts';

const PROCESSING_DEADLINE_MS = 10 * 60_000;
const UPLOAD_TIMEOUT_MS = 5 * 60_000;
const FIRST_POLL_MS = 300;
const MAX_POLL_MS = 10_000;

type Collection = 'images' | 'videos' | 'documents';

/** Yields the stream cut at the given sizes, in order. */
async function* ranges(stream: Readable, sizes: number[]): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  let index = 0;
  for await (const chunk of stream) {
    let data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    while (index < sizes.length && length + data.length >= sizes[index]!) {
      const take = sizes[index]! - length;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending);
      pending = [];
      length = 0;
      index++;
      data = data.subarray(take);
    }
    if (data.length > 0) {
      pending.push(data);
      length += data.length;
    }
  }
  if (index < sizes.length)
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `The media ended before byte ${sizes.slice(0, index + 1).reduce((a, b) => a + b, 0)} that LinkedIn expected.`,
    );
}

async function waitAvailable(api: LiApi, collection: Collection, urn: string): Promise<void> {
  const deadline = Date.now() + PROCESSING_DEADLINE_MS;
  let wait = FIRST_POLL_MS;
  for (;;) {
    const res = await rest(api, { method: 'GET', path: `/rest/${collection}/${encodeURIComponent(urn)}` });
    const body = res.json<{ status?: string; processingFailureReason?: string }>();
    if (body.status === 'AVAILABLE') return;
    if (body.status === 'PROCESSING_FAILED')
      throw new PlatformError(
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
        `LinkedIn could not process ${urn}: ${body.processingFailureReason ?? 'processing failed'}`,
        { platformBody: res.text() },
      );
    if (Date.now() > deadline)
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `LinkedIn was still processing ${urn} after ${PROCESSING_DEADLINE_MS / 60_000} minutes.`,
      );
    await sleep(wait);
    wait = Math.min(MAX_POLL_MS, Math.round(wait * 1.5));
  }
}

/** PUT of bytes to an upload URL LinkedIn handed out (absolute; the bearer token goes along). */
async function put(api: LiApi, url: string, data: Buffer | Readable, size: number) {
  return call(api.http, {
    method: 'PUT',
    path: url,
    bearer: api.token,
    body: { data, contentType: 'application/octet-stream', size },
    timeoutMs: UPLOAD_TIMEOUT_MS,
  });
}

async function uploadSingle(
  api: LiApi,
  owner: string,
  media: MediaSource,
  collection: 'images' | 'documents',
): Promise<string> {
  const res = await rest(api, {
    method: 'POST',
    path: `/rest/${collection}`,
    query: { action: 'initializeUpload' },
    json: { initializeUploadRequest: { owner } },
  });
  const value = res.json<{ value: { uploadUrl: string; image?: string; document?: string } }>().value;
  const urn = value.image ?? value.document;
  if (!urn || !value.uploadUrl)
    throw new PlatformError(
      'transient',
      'PLATFORM_UNAVAILABLE',
      `LinkedIn's initializeUpload answer has no upload URL or ${collection.slice(0, -1)} URN.`,
      { platformBody: res.text() },
    );
  await put(api, value.uploadUrl, await media.open(), media.sizeBytes);
  await waitAvailable(api, collection, urn);
  return urn;
}

async function uploadVideo(api: LiApi, owner: string, media: MediaSource): Promise<string> {
  const res = await rest(api, {
    method: 'POST',
    path: '/rest/videos',
    query: { action: 'initializeUpload' },
    json: {
      initializeUploadRequest: { owner, fileSizeBytes: media.sizeBytes, uploadCaptions: false, uploadThumbnail: false },
    },
  });
  const value = res.json<{
    value: {
      video: string;
      uploadToken?: string;
      uploadInstructions: Array<{ uploadUrl: string; firstByte: number; lastByte: number }>;
    };
  }>().value;
  const parts = [...value.uploadInstructions].sort((a, b) => a.firstByte - b.firstByte);
  const etags: string[] = [];
  let index = 0;
  for await (const bytes of ranges(
    await media.open(),
    parts.map((p) => p.lastByte - p.firstByte + 1),
  )) {
    const answer = await put(api, parts[index++]!.uploadUrl, bytes, bytes.length);
    const etag = answer.headers.etag;
    if (typeof etag !== 'string' || etag === '')
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `LinkedIn accepted part ${index} of ${value.video} without an ETag.`,
      );
    etags.push(etag);
  }
  await rest(api, {
    method: 'POST',
    path: '/rest/videos',
    query: { action: 'finalizeUpload' },
    json: {
      finalizeUploadRequest: { video: value.video, uploadToken: value.uploadToken ?? '', uploadedPartIds: etags },
    },
  });
  await waitAvailable(api, 'videos', value.video);
  return value.video;
}

export async function uploadMedia(api: LiApi, owner: string, items: MediaSource[]): Promise<PreparedMedia[]> {
  const out: PreparedMedia[] = [];
  for (const media of items) {
    const urn =
      media.kind === 'video'
        ? await uploadVideo(api, owner, media)
        : await uploadSingle(api, owner, media, media.kind === 'document' ? 'documents' : 'images');
    out.push({ platformRef: urn, kind: media.kind, altText: media.altText, width: media.width, height: media.height });
  }
  return out;
}
