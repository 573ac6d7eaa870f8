// In-memory media for adapter and engine tests: real file headers (PNG, GIF, MP4) so the simulators' sniffing accepts
// them, wrapped as the MediaSource adapters receive.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after } from 'node:test';
import type { MediaSource } from '../../src/platforms/types.ts';
import type { MediaKind } from '../../src/platforms/limits.ts';
import { jpeg as decodableJpeg, png as decodablePng } from './media-fixtures.ts';

/**
 * A decodable `width`×`height` PNG (media-fixtures.ts), optionally padded to `size` bytes with trailing data after
 * its end: Herald re-encodes every PNG it sends (to strip its metadata), which decodes it.
 */
export function png(width = 1, height = 1, size = 0): Buffer {
  const base = decodablePng(width, height);
  return size > base.length ? Buffer.concat([base, Buffer.alloc(size - base.length)]) : base;
}

export function gif(): Buffer {
  return Buffer.from('47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b', 'hex');
}

/** An MP4 container header followed by `size` bytes (enough for sniffing; nothing decodes it). */
export function mp4(size = 64 * 1024): Buffer {
  const head = Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex');
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 7)]);
}

/**
 * A small decodable JPEG of the given size (media-fixtures.ts): Herald fits images to each platform (strips their
 * metadata, converts them), which decodes them, so a header alone no longer does.
 */
export function jpeg(width = 1, height = 1): Buffer {
  return decodableJpeg(width, height);
}

let counter = 0;

// Platforms that pull media (Instagram, Threads) fetch a URL: the test media are served over real HTTP from a
// loopback server started on first use, as Herald serves its signed GETs, and closed after the file's tests.
const served = new Map<string, { data: Buffer; contentType: string }>();
let server: Promise<string> | undefined;
let listening: Server | undefined;

after(async () => {
  const s = listening;
  if (!s) return;
  listening = undefined;
  server = undefined;
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
});

function mediaServer(): Promise<string> {
  server ??= new Promise<string>((resolve) => {
    const s: Server = createServer((req, res) => {
      const item = served.get(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
      if (!item) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such media');
        return;
      }
      res.writeHead(200, { 'content-type': item.contentType, 'content-length': item.data.length }).end(item.data);
    });
    listening = s;
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
  });
  return server;
}

/**
 * The simulator setting that lets a Meta simulator fetch from this file's media server (test only: a simulator
 * fetches nothing without `mediaFetchUrls`, and Herald allows its own signed URLs only).
 */
export async function mediaFetchSettings(): Promise<{ mediaFetchUrls: Array<{ prefix: string }> }> {
  return { mediaFetchUrls: [{ prefix: `${await mediaServer()}/` }] };
}

/** A URL that serves `data` (or answers 404 once `brokenUrl` is used). */
export async function servedUrl(id: string, data: Buffer, contentType: string): Promise<string> {
  served.set(id, { data, contentType });
  return `${await mediaServer()}/${id}`;
}

/** A URL of the media server that answers 404, like an expired signed URL. */
export async function brokenUrl(): Promise<string> {
  return `${await mediaServer()}/expired-${++counter}`;
}

export function mediaSource(
  data: Buffer,
  contentType: string,
  options: { kind?: MediaKind; altText?: string | null; width?: number; height?: number; durationMs?: number } = {},
): MediaSource {
  const kind: MediaKind =
    options.kind ?? (contentType === 'image/gif' ? 'gif' : contentType.startsWith('video/') ? 'video' : 'image');
  return {
    id: `med_test${++counter}`,
    kind,
    contentType,
    sizeBytes: data.length,
    width: options.width ?? (kind === 'image' ? data.readUInt32BE(16) : null),
    height: options.height ?? (kind === 'image' ? data.readUInt32BE(20) : null),
    durationMs: options.durationMs ?? (kind === 'video' ? 5000 : null),
    altText: options.altText ?? null,
    open: async () => Readable.from([data]),
    signedUrl: () => servedUrl(`med_url${counter}_${Math.random().toString(36).slice(2)}`, data, contentType),
  };
}
