// Uploads through Herald's signed URLs: POST /media/upload-url creates the media and a single-use URL, the bytes
// go there in one PUT with the headers Herald names (no bearer token), and the media is then `ready` or `failed`.
import { HeraldError } from './errors.js';
import { sleep } from './transport.js';
import type { OperationOf, Payload, Schemas } from './types.js';

type Media = Schemas extends { Media: infer M } ? M : never;
type UploadTicket = Payload<OperationOf<'/media/upload-url', 'post'>, object>;

/**
 * What to upload: a file path (or `file:` URL), read from disk as it is sent; a Blob or File; or a web
 * ReadableStream or any async iterable of bytes (a Node stream is one), read into memory first because the signed
 * URL needs the exact length before the first byte.
 */
export type UploadSource = string | URL | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface UploadOptions {
  /** The type of the bytes, e.g. `image/png` or `video/mp4`; Herald checks that the bytes are of this type. */
  contentType: string;
  /** The file name kept with the media; default: the path's last segment or the File's name. */
  filename?: string;
  /** How long to wait for the media to become `ready` once its bytes are sent (default 120 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface UploadContext {
  baseUrl: string;
  headers: Record<string, string>;
  /** The client's transport: idempotency keys and retries. */
  transport: (request: Request) => Promise<Response>;
  /** The plain fetch, for the signed URL (which must not carry the API key). */
  fetch: typeof globalThis.fetch;
  get(id: string): Promise<Media>;
}

async function toBlob(source: UploadSource): Promise<{ blob: Blob; name?: string }> {
  if (typeof source === 'string' || source instanceof URL) {
    const { openAsBlob } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const { basename } = await import('node:path');
    const file = source instanceof URL ? fileURLToPath(source) : source;
    return { blob: await openAsBlob(file), name: basename(file) };
  }
  if (source instanceof Blob) return { blob: source, name: 'name' in source ? (source as File).name : undefined };
  const chunks: Uint8Array[] = [];
  if (source instanceof ReadableStream) {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  } else {
    for await (const chunk of source) chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
  }
  return { blob: new Blob(chunks as BlobPart[]) };
}

async function send(context: UploadContext, method: 'POST', path: string, body?: unknown): Promise<unknown> {
  const headers = new Headers(context.headers);
  if (body !== undefined) headers.set('content-type', 'application/json');
  let response: Response;
  try {
    response = await context.transport(
      new Request(`${context.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  } catch (error) {
    throw new HeraldError({ status: 0, code: 'CLIENT_NETWORK_ERROR', message: (error as Error).message, cause: error });
  }
  if (!response.ok) throw await HeraldError.fromResponse(response);
  return ((await response.json()) as { data: unknown }).data;
}

function failed(media: Media): HeraldError {
  const m = media as { id?: string; failure_reason?: string | null };
  return new HeraldError({
    status: 0,
    code: 'CLIENT_MEDIA_FAILED',
    message: `media ${m.id ?? ''} failed: ${m.failure_reason ?? 'rejected by Herald'}`,
    details: [{ path: '', message: m.failure_reason ?? 'rejected by Herald', media }],
  });
}

export async function uploadFile(context: UploadContext, source: UploadSource, options: UploadOptions): Promise<Media> {
  const { blob, name } = await toBlob(source);
  const filename = options.filename ?? name;
  if (!filename) throw new TypeError('uploadFile: `filename` is required for a Blob or stream without a name');
  const ticket = (await send(context, 'POST', '/media/upload-url', {
    filename,
    content_type: options.contentType,
    size_bytes: blob.size,
  })) as UploadTicket;

  // The signed URL authorises exactly this PUT: its own headers, no Authorization, the body in one go.
  let put: Response;
  try {
    put = await context.fetch(ticket.upload.signed_url, {
      method: ticket.upload.method,
      headers: ticket.upload.headers,
      body: blob,
      signal: options.signal,
    });
  } catch (error) {
    throw new HeraldError({ status: 0, code: 'CLIENT_UPLOAD_FAILED', message: (error as Error).message, cause: error });
  }
  if (!put.ok) throw await HeraldError.fromResponse(put);

  // Herald's own storage answers the PUT with the checked media record; an object store answers for itself.
  let media: Media | undefined;
  const text = await put.text();
  try {
    const body = JSON.parse(text) as { data?: { object?: string; status?: string } };
    if (body.data?.object === 'media') media = body.data as Media;
  } catch {
    // Not Herald's answer: the bytes went to an object store.
  }
  const id = ticket.media_id;
  if (!media) media = (await send(context, 'POST', `/media/${encodeURIComponent(id)}/complete`)) as Media;

  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (let every = 100; ; every = Math.min(every * 2, 2000)) {
    const status = (media as { status?: string }).status;
    if (status === 'ready') return media;
    if (status === 'failed') throw failed(media);
    if (Date.now() > deadline) {
      throw new HeraldError({ status: 0, code: 'CLIENT_TIMEOUT', message: `media ${id} is still ${status}` });
    }
    await sleep(every, options.signal);
    media = await context.get(id);
  }
}
