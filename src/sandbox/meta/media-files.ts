// The media a Meta simulator fetched for its containers, kept in its store as blobs and served back at a public URL
// of the simulator (`/cdn/<key>`, standing in for Meta's CDN), so a post's sandbox page shows its images and videos
// after a restart and from any node. Bytes go in pieces of at most PIECE_BYTES: no one query carries a whole video.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PagePart } from '../framework/post-page.ts';
import { sniff } from '../framework/sniff.ts';
import type { SandboxStore } from '../framework/store.ts';
import { typeUploadedBytes, uploadedBytesHeaders } from '../framework/served-bytes.ts';

/** One media item of a container or a post, as its page shows it. */
export interface MediaFile {
  /** Where its bytes are kept; null when they were not (a video over the kept size). */
  key: string | null;
  kind: 'image' | 'video';
  alt: string | null;
}

const PIECE_BYTES = 4 * 1024 * 1024;
// Unguessable, so the URL of a container's media is not found by counting.
const KEY = /^[A-Za-z0-9_-]{22}$/;

const pieceId = (key: string, n: number) => `${key}.${n}`;

/** Keeps fetched bytes; the key to serve them by, or null when there are none to keep. */
export async function keepMedia(store: SandboxStore, bytes: Buffer | undefined): Promise<string | null> {
  if (!bytes || bytes.length === 0) return null;
  const key = randomBytes(16).toString('base64url');
  for (let n = 0; n * PIECE_BYTES < bytes.length; n++)
    await store.putBytes(pieceId(key, n), bytes.subarray(n * PIECE_BYTES, (n + 1) * PIECE_BYTES));
  return key;
}

/** The kept bytes of a key: its pieces in order, the last one shorter than a piece (or missing). */
async function readMedia(store: SandboxStore, key: string): Promise<Buffer | undefined> {
  const pieces: Buffer[] = [];
  for (let n = 0; ; n++) {
    const piece = await store.getBytes(pieceId(key, n));
    if (piece) pieces.push(piece);
    if (!piece || piece.length < PIECE_BYTES) break;
  }
  return pieces.length > 0 ? Buffer.concat(pieces) : undefined;
}

/**
 * `GET /cdn/:key`: the kept bytes with their sniffed type (as a CDN answers, cacheable for good), with no sniffing
 * by the browser and a sandboxed CSP (the bytes came from a URL a client named); anything not an image or a video
 * comes back as an opaque download.
 */
export function registerMediaFiles(
  app: FastifyInstance,
  store: SandboxStore,
  notFound: (reply: FastifyReply) => unknown,
) {
  app.get<{ Params: { key: string } }>('/cdn/:key', async (request, reply) => {
    const bytes = KEY.test(request.params.key) ? await readMedia(store, request.params.key) : undefined;
    if (!bytes) return notFound(reply);
    return typeUploadedBytes(reply, sniff(bytes)).headers(uploadedBytesHeaders(31536000, true)).send(bytes);
  });
}

/**
 * Where the simulator is mounted, from a route under `/web/` (`/sandbox/instagram` in Herald, `/instagram` in a
 * standalone rig, `` at the root): the media URLs of a page are paths under it.
 */
export function mountPath(request: FastifyRequest): string {
  const route = request.routeOptions.url ?? '';
  const at = route.indexOf('/web/');
  return at > 0 ? route.slice(0, at) : '';
}

/** A post's media as its page shows them: the kept ones, at their public URLs. */
export function pageMedia(base: string, media: readonly MediaFile[]): PagePart['media'] {
  return media
    .filter((m): m is MediaFile & { key: string } => m.key !== null)
    .map((m) => ({ url: `${base}/cdn/${m.key}`, kind: m.kind, alt: m.alt }));
}
