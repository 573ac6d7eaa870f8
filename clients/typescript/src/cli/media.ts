// `--media` of `herald-client post`: a URL becomes media by URL (Herald fetches it); a file goes up through the
// signed-URL flow, streamed with its exact length so the progress bar (on a terminal) follows the bytes. Each
// call carries a key derived from the post's, so a re-run finds the media it already made instead of another.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename, extname } from 'node:path';
import type { Herald } from '../client.js';
import { HeraldError } from '../errors.js';
import { sleep } from '../transport.js';
import { progressBar, UsageError } from './output.js';

/** File extensions Herald takes as uploads, by type (docs/api.md "Media"). */
const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.heic': 'image/heic',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.pdf': 'application/pdf',
};

export interface MediaSource {
  /** As given on the command line. */
  given: string;
  url?: string;
  file?: { path: string; size: number; contentType: string };
  /** What identifies it in the post's content hash: the URL, or the file's name and SHA-256. */
  identity: string;
}

export async function readMediaSource(given: string): Promise<MediaSource> {
  if (/^https?:\/\//i.test(given)) return { given, url: given, identity: given };
  let size: number;
  try {
    const info = await stat(given);
    if (!info.isFile()) throw new UsageError(`--media ${given} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--media ${given}: no such file (give a path or an http(s) URL)`);
  }
  const contentType = TYPES[extname(given).toLowerCase()];
  if (!contentType)
    throw new UsageError(
      `--media ${given}: unknown file type; use one of ${Object.keys(TYPES).join(', ')}, or a URL Herald fetches`,
    );
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(given)) hash.update(chunk as Buffer);
  return {
    given,
    file: { path: given, size, contentType },
    identity: `${basename(given)}:${hash.digest('hex')}`,
  };
}

interface Ticket {
  media_id: string;
  upload: { signed_url: string; method: string; headers: Record<string, string> };
}
interface MediaView {
  id: string;
  status: string;
  failure_reason?: string | null;
}

/** One PUT of the file to the signed URL, with its exact length, reporting bytes sent. */
function put(ticket: Ticket, path: string, size: number, onProgress: (sent: number) => void): Promise<string> {
  const target = new URL(ticket.upload.signed_url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method: ticket.upload.method, headers: { ...ticket.upload.headers, 'content-length': String(size) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          if ((res.statusCode ?? 0) < 300) return resolve(body);
          let parsed: unknown;
          try {
            parsed = JSON.parse(body);
          } catch {
            parsed = undefined;
          }
          reject(HeraldError.from(new Response(null, { status: res.statusCode ?? 0 }), parsed));
        });
      },
    );
    req.on('error', (error) =>
      reject(new HeraldError({ status: 0, code: 'CLIENT_UPLOAD_FAILED', message: error.message, cause: error })),
    );
    let sent = 0;
    const file = createReadStream(path);
    file.on('data', (chunk) => {
      sent += chunk.length;
      onProgress(sent);
    });
    file.on('error', reject);
    file.pipe(req);
  });
}

async function untilSettled(herald: Herald, media: MediaView, timeoutMs: number): Promise<MediaView> {
  const deadline = Date.now() + timeoutMs;
  for (let every = 200; ; every = Math.min(every * 2, 2000)) {
    if (media.status === 'ready') return media;
    if (media.status === 'failed')
      throw new HeraldError({
        status: 422,
        code: 'CLIENT_MEDIA_FAILED',
        message: `media ${media.id} failed: ${media.failure_reason ?? 'rejected by Herald'}`,
      });
    if (Date.now() > deadline)
      throw new HeraldError({
        status: 0,
        code: 'CLIENT_TIMEOUT',
        message: `media ${media.id} is still ${media.status}`,
      });
    await sleep(every);
    media = (await herald.GET('/media/{id}', { params: { path: { id: media.id } } })) as MediaView;
  }
}

/** Creates the media of one --media and returns its id; `key` (if any) makes a re-run find the same media. */
export async function createMedia(
  herald: Herald,
  source: MediaSource,
  key: string | undefined,
  stderr: NodeJS.WriteStream,
): Promise<string> {
  const headers = key ? { 'idempotency-key': key } : {};
  if (source.url) {
    // Herald fetches it; the post's targets wait for the fetch, so there is nothing to wait for here.
    const media = (await herald.POST('/media', { body: { url: source.url } as never, headers })) as MediaView;
    return media.id;
  }
  const file = source.file!;
  const ticket = (await herald.POST('/media/upload-url', {
    body: { filename: basename(file.path), content_type: file.contentType, size_bytes: file.size },
    headers,
  })) as Ticket;
  // A re-run gets the first run's ticket back: its bytes may be there already.
  let media = (await herald.GET('/media/{id}', { params: { path: { id: ticket.media_id } } })) as MediaView;
  if (media.status === 'pending_upload') {
    const text = await put(
      ticket,
      file.path,
      file.size,
      progressBar(stderr, `uploading ${basename(file.path)}`, file.size),
    );
    try {
      const body = JSON.parse(text) as { data?: MediaView & { object?: string } };
      if (body.data?.object === 'media') media = body.data;
    } catch {
      // An object store's answer: Herald completes the media when asked.
    }
    if (media.status === 'pending_upload')
      media = (await herald.POST('/media/{id}/complete', {
        params: { path: { id: ticket.media_id } },
        headers: key ? { 'idempotency-key': `${key}:complete` } : {},
      })) as MediaView;
  }
  return (await untilSettled(herald, media, 120_000)).id;
}
