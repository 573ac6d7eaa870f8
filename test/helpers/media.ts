// Media test helpers: an app with its own data directory listening on a real port (uploads are real HTTP
// streams), a local S3-compatible server (s3rver, in this process), and the upload flow as a client does it.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { signedReadUrlRules } from '../../src/features/media/storage/read-url-rules.ts';
import type { Clock } from '../../src/lib/clock.ts';
import type { LookupFn } from '../../src/lib/ssrf.ts';
import { buildTestApp, type TestApp } from './app.ts';

export interface MediaTestApp extends TestApp {
  /** Where the app listens; signed URLs name http://herald.test, which `send` maps here. */
  origin: string;
  dataDir: string;
}

/** A clock a test can move forward (signed URLs expire by it). */
export function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
}

export async function buildMediaTestApp(
  options: { env?: Record<string, string>; clock?: Clock; lookup?: LookupFn } = {},
): Promise<MediaTestApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'herald-media-'));
  const t = await buildTestApp({
    env: { HERALD_DATA_DIR: dataDir, ...options.env },
    clock: options.clock,
    lookup: options.lookup,
  });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const close = t.close;
  return Object.assign(t, {
    origin: address,
    dataDir,
    async close() {
      await close();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

/**
 * Lets the sandbox's Meta simulators fetch Herald's signed read URLs (variants' too), as Meta fetches them from a
 * correctly configured public URL: signed URLs name http://herald.test (HERALD_PUBLIC_URL in tests), so the
 * simulators are told to take URLs signed for the listening app (`settings` as handed to `startSandbox`), and the
 * app's media library hands out URLs naming it.
 */
export function serveMediaToSimulators(t: MediaTestApp, settings: Record<string, unknown>): void {
  settings.mediaFetchUrls = signedReadUrlRules({ ...t.config, publicUrl: t.origin });
  const library = t.container.mediaLibrary;
  t.container.mediaLibrary = {
    async sources(workspaceId, ids, target) {
      return (await library.sources(workspaceId, ids, target)).map((s) => ({
        ...s,
        signedUrl: async () => (await s.signedUrl!()).replace('http://herald.test', t.origin),
      }));
    },
  };
}

export interface SentResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * An HTTP request with a body from a buffer or a stream, to `url` (a Herald URL is sent to `origin`). Resolves
 * with the response even when the server answers before reading the whole body (an early 413).
 */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | Readable; origin?: string } = {},
): Promise<SentResponse> {
  const target = new URL(url);
  const base = options.origin && target.host === 'herald.test' ? new URL(options.origin) : target;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    // Node frames a DELETE body with neither length nor chunking unless told; say the length of a buffer.
    if (Buffer.isBuffer(options.body) && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
      headers['content-length'] = String(options.body.length);
    const request = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? 'PUT',
        path: target.pathname + target.search,
        headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            json: () => JSON.parse(body.toString('utf8')),
          });
        });
        response.on('error', reject);
      },
    );
    // The server may refuse and close while we still write (an early 413): the response is what counts.
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    const body = options.body;
    if (body === undefined) request.end();
    else if (Buffer.isBuffer(body)) request.end(body);
    else body.pipe(request);
  });
}

/** `POST /v1/media/upload-url`; returns the parsed response. */
export async function requestUpload(t: TestApp, key: string, body: Record<string, unknown>) {
  return t.inject({ method: 'POST', url: '/v1/media/upload-url', key, payload: body });
}

/** The whole client flow: ask for a URL, PUT the bytes with the given headers; returns the PUT's response. */
export async function uploadBytes(
  t: MediaTestApp,
  key: string,
  bytes: Buffer,
  contentType: string,
  options: { filename?: string; declareSize?: boolean } = {},
) {
  const res = await requestUpload(t, key, {
    filename: options.filename ?? 'file',
    content_type: contentType,
    ...(options.declareSize === false ? {} : { size_bytes: bytes.length }),
  });
  if (res.statusCode !== 201) throw new Error(`upload-url answered ${res.statusCode}: ${res.body}`);
  const { media_id: mediaId, upload } = res.json().data;
  const put = await send(upload.signed_url, { origin: t.origin, headers: upload.headers, body: bytes });
  return { mediaId, upload, put };
}

/** Everything a stream yields, as one buffer. */
export async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `GET /v1/media/{id}`'s data. */
export async function mediaRecord(t: TestApp, key: string, id: string) {
  return (await t.inject({ url: `/v1/media/${id}`, key })).json().data;
}

/** Files under the local media directory (temporary ones included), relative to it. */
export async function storedFiles(t: MediaTestApp): Promise<string[]> {
  const dir = path.join(t.dataDir, 'media');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

// ---- a local S3-compatible server ----------------------------------------------------------------------

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLocalS3(): Promise<LocalS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'herald-s3-'));
  const bucket = 'herald-media';
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      HERALD_MEDIA_STORAGE: 's3',
      HERALD_S3_BUCKET: bucket,
      HERALD_S3_ENDPOINT: endpoint,
      HERALD_S3_REGION: 'us-east-1',
      HERALD_S3_ACCESS_KEY_ID: 'S3RVER',
      HERALD_S3_SECRET_ACCESS_KEY: 'S3RVER',
      HERALD_S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
