// TikTok's media, as Herald hands it over (docs/platforms/tiktok.md "Calls"): photos are pulled by TikTok from
// Herald's signed URLs (PULL_FROM_URL is the only source photo posts take); a video is either pulled the same way or
// pushed in chunks to the upload URL its init answers (FILE_UPLOAD, the default: it needs no verified domain).
//
// A TikTok upload belongs to the post's own init (the caption goes with it), so nothing is uploaded here: a video's
// prepared item carries what the init needs (size, type, duration, the pull URL), and its bytes are read when the
// part is published. The MediaSource is kept beside the prepared item (a WeakMap on that object, gone with it) for
// this attempt only; it is an input, not a pending reference: a later attempt prepares the media again and gets its
// own, while the upload's `publish_id` and URL go through `part.remember`.
import type { Readable } from 'node:stream';
import { PlatformError, type MediaSource, type PreparedMedia } from '../types.ts';
import { chunkPlan, chunkRange, readOptions } from './map.ts';
import type { PartOptions } from '../types.ts';

/** What a prepared item's `platformRef` holds (JSON). */
export type TiktokMediaRef =
  | { k: 'photo'; url: string }
  | { k: 'video'; size: number; type: string; durationMs: number | null; url: string | null };

const sources = new WeakMap<PreparedMedia, MediaSource>();

export function mediaRef(item: PreparedMedia): TiktokMediaRef {
  return JSON.parse(item.platformRef) as TiktokMediaRef;
}

/** The bytes of a video prepared in this attempt. */
export function videoSource(item: PreparedMedia): MediaSource | undefined {
  return sources.get(item);
}

/** The short-lived public URL TikTok pulls a media item from. */
async function pullUrl(source: MediaSource): Promise<string> {
  const url = source.signedUrl ? await source.signedUrl() : '';
  if (!/^https?:\/\//.test(url))
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `TikTok pulls photos from a public URL, and media ${source.id} has none (the media store cannot sign one).`,
    );
  return url;
}

export async function prepareTiktokMedia(media: MediaSource[], options: PartOptions): Promise<PreparedMedia[]> {
  const videos = media.filter((m) => m.kind === 'video');
  const other = media.find((m) => m.kind !== 'video' && m.kind !== 'image');
  if (other)
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `TikTok takes one video or JPEG/WebP photos, not ${other.kind} (media ${other.id}).`,
    );
  if (videos.length > 0 && media.length > 1)
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      'A TikTok post is one video, or photos only; this one mixes a video with other media.',
    );
  const out: PreparedMedia[] = [];
  for (const source of media) {
    const ref: TiktokMediaRef =
      source.kind === 'video'
        ? {
            k: 'video',
            size: source.sizeBytes,
            type: source.contentType,
            durationMs: source.durationMs,
            url: readOptions(options).video_source === 'pull_from_url' ? await pullUrl(source) : null,
          }
        : { k: 'photo', url: await pullUrl(source) };
    const item: PreparedMedia = {
      platformRef: JSON.stringify(ref),
      kind: source.kind,
      altText: source.altText,
      width: source.width,
      height: source.height,
    };
    if (source.kind === 'video') sources.set(item, source);
    out.push(item);
  }
  return out;
}

/**
 * The video's chunks from chunk `from` on, each as one buffer (at most 20 MB): the bytes before it are read and
 * dropped, since a media stream starts at the beginning.
 */
export async function* chunksFrom(
  stream: Readable,
  size: number,
  from: number,
): AsyncGenerator<{ index: number; first: number; data: Buffer }> {
  const { totalChunks } = chunkPlan(size);
  let index = from;
  let { first, end } = chunkRange(size, index);
  let offset = 0;
  let pending: Buffer[] = [];
  let held = 0;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    let buf = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
    // Skip what lies before the first chunk wanted.
    if (offset + buf.length <= first && held === 0) {
      offset += buf.length;
      continue;
    }
    if (held === 0 && offset < first) {
      buf = buf.subarray(first - offset);
      offset = first;
    }
    pending.push(buf);
    held += buf.length;
    offset += buf.length;
    while (index < totalChunks && first + held >= end) {
      const all = Buffer.concat(pending);
      const data = all.subarray(0, end - first);
      yield { index, first, data };
      const rest = all.subarray(end - first);
      pending = rest.length > 0 ? [rest] : [];
      held = rest.length;
      index++;
      if (index < totalChunks) ({ first, end } = chunkRange(size, index));
    }
  }
  if (index < totalChunks)
    throw new PlatformError(
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
      `The video ended after ${offset} bytes; it was ${size} bytes when it was prepared.`,
    );
}
