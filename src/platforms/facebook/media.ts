// Facebook media (docs/platforms/facebook.md "Calls"): each photo is uploaded unpublished (`published=false`, bytes as
// `source`, alt text as `alt_text_custom` ⚠ unverified) so the post can attach it with `attached_media`; a video
// goes through the resumable protocol — start (file_size) → transfer (each byte range the previous answer
// names) → finish, unpublished — and is polled (`?fields=status`) until Facebook has processed it. Publishing
// it is then a single update of the video (index.ts), so an upload that fails never leaves a post behind.
import type { Readable } from 'node:stream';
import type { GraphClient } from '../meta/graph.ts';
import { waitForContainer, type ContainerState } from '../meta/graph.ts';
import { PlatformError, type MediaSource, type PreparedMedia } from '../types.ts';
import { upload, video, type VideoState } from './client.ts';

const PROCESSING_TIMEOUT_MS = 10 * 60_000;
const POLL_INTERVALS_MS = [500, 1000, 2000, 3000, 5000];

/** Reads a stream in pieces of the sizes asked for (Facebook names each next byte range). */
function byteReader(stream: Readable): (size: number) => Promise<Buffer> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | Uint8Array>;
  let pending = Buffer.alloc(0);
  let done = false;
  return async (size) => {
    while (pending.length < size && !done) {
      const next = await iterator.next();
      if (next.done) done = true;
      else pending = Buffer.concat([pending, Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value)]);
    }
    const out = pending.subarray(0, size);
    pending = pending.subarray(out.length);
    return out;
  };
}

async function uploadPhoto(g: GraphClient, token: string, pageId: string, media: MediaSource): Promise<string> {
  const fields: Parameters<typeof upload>[3] = {
    published: 'false',
    source: { filename: media.id, contentType: media.contentType, data: () => media.open(), size: media.sizeBytes },
  };
  if (media.altText) fields.alt_text_custom = media.altText.slice(0, 1000);
  const answer = await upload<{ id: string }>(g, `/${encodeURIComponent(pageId)}/photos`, token, fields);
  return answer.id;
}

function stateOf(v: VideoState): ContainerState {
  const status = v.status?.video_status;
  if (status === 'ready') return { status: 'FINISHED', detail: null };
  if (status === 'error')
    return {
      status: 'ERROR',
      detail: v.status?.processing_phase?.errors?.[0]?.message ?? 'Facebook could not process the video',
    };
  if (status === 'expired') return { status: 'EXPIRED', detail: null };
  return { status: 'IN_PROGRESS', detail: null };
}

async function uploadVideo(g: GraphClient, token: string, pageId: string, media: MediaSource): Promise<string> {
  const path = `/${encodeURIComponent(pageId)}/videos`;
  const start = await g.call<{ video_id: string; upload_session_id: string; start_offset: string; end_offset: string }>(
    { method: 'POST', path, token, params: { upload_phase: 'start', file_size: media.sizeBytes } },
  );
  const read = byteReader(await media.open());
  let from = Number(start.start_offset);
  let to = Number(start.end_offset);
  while (from < to) {
    const chunk = await read(to - from);
    if (chunk.length !== to - from)
      throw new PlatformError(
        'permanent',
        'PLATFORM_REJECTED',
        `Media ${media.id} has fewer bytes than its recorded size ${media.sizeBytes}.`,
      );
    const next = await upload<{ start_offset: string; end_offset: string }>(g, path, token, {
      upload_phase: 'transfer',
      upload_session_id: start.upload_session_id,
      start_offset: String(from),
      video_file_chunk: {
        filename: `${media.id}.${from}`,
        contentType: 'application/octet-stream',
        data: chunk,
        size: chunk.length,
      },
    });
    from = Number(next.start_offset);
    to = Number(next.end_offset);
  }
  await g.call({
    method: 'POST',
    path,
    token,
    params: { upload_phase: 'finish', upload_session_id: start.upload_session_id, published: false },
  });
  await waitForContainer(
    'Facebook',
    start.video_id,
    async () => stateOf(await video(g, token, start.video_id, 'status')),
    { intervalsMs: POLL_INTERVALS_MS, timeoutMs: PROCESSING_TIMEOUT_MS },
  );
  return start.video_id;
}

export async function uploadMedia(
  g: GraphClient,
  token: string,
  pageId: string,
  items: MediaSource[],
): Promise<PreparedMedia[]> {
  const out: PreparedMedia[] = [];
  for (const media of items) {
    const ref =
      media.kind === 'video'
        ? `video:${await uploadVideo(g, token, pageId, media)}`
        : `photo:${await uploadPhoto(g, token, pageId, media)}`;
    out.push({ platformRef: ref, kind: media.kind, altText: media.altText, width: media.width, height: media.height });
  }
  return out;
}
