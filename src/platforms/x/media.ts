// X's media protocols (docs/platforms/x.md "Calls"): the one-shot upload for images; for GIFs and video the chunked
// initialize → append (4 MiB segments) → finalize → STATUS polling, honouring check_after_secs, until the
// platform says succeeded or failed. Alt text goes through /2/media/metadata (⚠ unverified: seen in the
// twitter-api-v2 client, not in X's docs).
import type { Readable } from 'node:stream';
import { sleep } from '../classify.ts';
import type { PlatformHttp } from '../http-contract.ts';
import { PlatformError, type MediaSource, type PreparedMedia } from '../types.ts';
import { call } from './client.ts';

const SEGMENT_BYTES = 4 * 1024 * 1024;
const PROCESSING_DEADLINE_MS = 10 * 60_000;
const UPLOAD_TIMEOUT_MS = 5 * 60_000; // requests that carry bytes get far longer than the API calls' deadline

interface ProcessingInfo {
  state: 'pending' | 'in_progress' | 'succeeded' | 'failed';
  check_after_secs?: number;
  error?: { message?: string };
}
interface MediaAnswer {
  data: { id: string; processing_info?: ProcessingInfo };
}

/** Yields the stream in segments of exactly `size` bytes (the last one shorter). */
async function* segments(stream: Readable, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    let data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    while (length + data.length >= size) {
      const take = size - length;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending);
      pending = [];
      length = 0;
      data = data.subarray(take);
    }
    if (data.length > 0) {
      pending.push(data);
      length += data.length;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}

async function waitForProcessing(
  http: PlatformHttp,
  token: string,
  id: string,
  info: ProcessingInfo | undefined,
): Promise<void> {
  const deadline = Date.now() + PROCESSING_DEADLINE_MS;
  let current = info;
  while (current && current.state !== 'succeeded') {
    if (current.state === 'failed')
      throw new PlatformError(
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
        `X could not process media ${id}: ${current.error?.message ?? 'processing failed'}`,
      );
    if (Date.now() > deadline)
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `X was still processing media ${id} after ${PROCESSING_DEADLINE_MS / 60_000} minutes.`,
      );
    await sleep(Math.min(Math.max(current.check_after_secs ?? 1, 1), 30) * 1000);
    const res = await call(http, {
      method: 'GET',
      path: '/2/media/upload',
      bearer: token,
      query: { command: 'STATUS', media_id: id },
    });
    current = res.json<MediaAnswer>().data.processing_info;
  }
}

async function uploadOne(http: PlatformHttp, token: string, media: MediaSource): Promise<string> {
  const category = media.kind === 'video' ? 'tweet_video' : media.kind === 'gif' ? 'tweet_gif' : 'tweet_image';
  if (category === 'tweet_image') {
    const res = await call(http, {
      method: 'POST',
      path: '/2/media/upload',
      bearer: token,
      multipart: {
        media_category: category,
        media_type: media.contentType,
        media: { filename: media.id, contentType: media.contentType, data: () => media.open(), size: media.sizeBytes },
      },
      timeoutMs: UPLOAD_TIMEOUT_MS,
    });
    const answer = res.json<MediaAnswer>().data;
    await waitForProcessing(http, token, answer.id, answer.processing_info);
    return answer.id;
  }
  const init = await call(http, {
    method: 'POST',
    path: '/2/media/upload/initialize',
    bearer: token,
    json: { media_type: media.contentType, total_bytes: media.sizeBytes, media_category: category },
  });
  const id = init.json<MediaAnswer>().data.id;
  let index = 0;
  for await (const segment of segments(await media.open(), SEGMENT_BYTES)) {
    await call(http, {
      method: 'POST',
      path: `/2/media/upload/${id}/append`,
      bearer: token,
      multipart: {
        segment_index: String(index++),
        media: {
          filename: `${media.id}.${index}`,
          contentType: 'application/octet-stream',
          data: segment,
          size: segment.length,
        },
      },
      timeoutMs: UPLOAD_TIMEOUT_MS,
    });
  }
  const done = await call(http, { method: 'POST', path: `/2/media/upload/${id}/finalize`, bearer: token });
  await waitForProcessing(http, token, id, done.json<MediaAnswer>().data.processing_info);
  return id;
}

export async function uploadMedia(http: PlatformHttp, token: string, items: MediaSource[]): Promise<PreparedMedia[]> {
  const out: PreparedMedia[] = [];
  for (const media of items) {
    const id = await uploadOne(http, token, media);
    if (media.altText) {
      await call(http, {
        method: 'POST',
        path: '/2/media/metadata',
        bearer: token,
        json: { id, metadata: { alt_text: { text: media.altText.slice(0, 1000) } } },
      });
    }
    out.push({ platformRef: id, kind: media.kind, altText: media.altText, width: media.width, height: media.height });
  }
  return out;
}
