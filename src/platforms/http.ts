// The HTTP client adapters talk through: bound to one platform host, built on the outbound primitive (deadline,
// response cap, no redirects), with the SSRF guard for user-chosen hosts (Mastodon instances, Bluesky PDSs).
// Network failures become PlatformErrors here, once: a mutation sent without an answer is `unknown_outcome`,
// never a plain failure. HTTP statuses are left to each adapter's error table; the rate-limit headers of every
// platform (X, Mastodon, IETF draft/Bluesky) and Retry-After are parsed here.
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { OutboundError, outboundRequest, type OutboundRequest, type OutboundResponse } from '../lib/outbound.ts';
import type { OutboundGuard } from '../lib/ssrf.ts';
import { PlatformError } from './types.ts';
import type { HttpMethod, MultipartFile, PlatformHttp, PlatformRequest, RateLimitInfo } from './http-contract.ts';

/** How bytes travel: the outbound primitive by default; in-process for the simulators (src/sandbox/inprocess.ts). */
export type Transport = (request: OutboundRequest) => Promise<OutboundResponse>;

export interface PlatformHttpOptions {
  baseUrl: string;
  /** Set for user-chosen hosts: the SSRF guard applies. Absent for configured hosts and the simulators. */
  guard?: OutboundGuard;
  timeoutMs?: number;
  userAgent?: string;
  transport?: Transport;
  now?: () => number;
}

const DEFAULT_TIMEOUT_MS = 15_000;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A reset given as epoch seconds (X, Bluesky), delta seconds (IETF draft) or a timestamp (Mastodon). */
export function parseReset(raw: string | undefined, now: number): Date | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const n = Number(trimmed);
    return new Date(n > 1_000_000_000 ? n * 1000 : now + n * 1000);
  }
  const parsed = Date.parse(trimmed);
  return Number.isNaN(parsed) ? undefined : new Date(parsed);
}

export function parseRateLimit(headers: IncomingHttpHeaders, now: number): RateLimitInfo {
  const num = (name: string) => {
    const v = header(headers, name);
    return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
  };
  return {
    limit: num('x-rate-limit-limit') ?? num('x-ratelimit-limit') ?? num('ratelimit-limit'),
    remaining: num('x-rate-limit-remaining') ?? num('x-ratelimit-remaining') ?? num('ratelimit-remaining'),
    resetAt: parseReset(
      header(headers, 'x-rate-limit-reset') ??
        header(headers, 'x-ratelimit-reset') ??
        header(headers, 'ratelimit-reset'),
      now,
    ),
  };
}

/** Retry-After (seconds or HTTP date); else, when the window is spent or the answer is a 429, its reset. */
export function retryAfterMs(
  status: number,
  headers: IncomingHttpHeaders,
  rateLimit: RateLimitInfo,
  now: number,
): number | undefined {
  const raw = header(headers, 'retry-after');
  if (raw !== undefined) {
    const at = /^\d+$/.test(raw.trim()) ? now + Number(raw) * 1000 : Date.parse(raw);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  if ((status === 429 || rateLimit.remaining === 0) && rateLimit.resetAt)
    return Math.max(0, rateLimit.resetAt.getTime() - now);
  return undefined;
}

function encodeQuery(query: PlatformRequest['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A multipart/form-data body streamed part by part, with its exact length (some platforms require one). */
async function multipartBody(
  fields: Record<string, string | MultipartFile>,
): Promise<{ stream: Readable; contentType: string; size: number }> {
  const boundary = `----herald${randomBytes(12).toString('hex')}`;
  const chunks: Array<Buffer | (() => Promise<Readable>)> = [];
  let size = 0;
  const push = (b: Buffer) => {
    chunks.push(b);
    size += b.length;
  };
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') {
      push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      const safeName = value.filename.replace(/["\r\n]/g, '_');
      push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${safeName}"\r\nContent-Type: ${value.contentType}\r\n\r\n`,
        ),
      );
      if (Buffer.isBuffer(value.data)) push(value.data);
      else {
        chunks.push(value.data);
        size += value.size;
      }
      push(Buffer.from('\r\n'));
    }
  }
  push(Buffer.from(`--${boundary}--\r\n`));
  const stream = new PassThrough();
  (async () => {
    for (const chunk of chunks) {
      if (Buffer.isBuffer(chunk)) {
        if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
      } else {
        for await (const piece of await chunk())
          if (!stream.write(piece)) await new Promise((r) => stream.once('drain', r));
      }
    }
    stream.end();
  })().catch((error: unknown) => stream.destroy(error as Error));
  return { stream, contentType: `multipart/form-data; boundary=${boundary}`, size };
}

export function createPlatformHttp(options: PlatformHttpOptions): PlatformHttp {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transport = options.transport ?? outboundRequest;
  const now = options.now ?? Date.now;
  return {
    baseUrl,
    async request(req) {
      const url = /^https?:\/\//.test(req.path)
        ? req.path
        : `${baseUrl}${req.path.startsWith('/') ? '' : '/'}${req.path}`;
      const headers: Record<string, string | number> = {
        accept: 'application/json',
        'user-agent': options.userAgent ?? 'Herald',
        ...req.headers,
      };
      if (req.bearer) headers.authorization = `Bearer ${req.bearer}`;
      let body: OutboundRequest['body'];
      if (req.json !== undefined) {
        body = JSON.stringify(req.json);
        headers['content-type'] = 'application/json';
      } else if (req.form) {
        body = new URLSearchParams(req.form).toString();
        headers['content-type'] = 'application/x-www-form-urlencoded';
      } else if (req.multipart) {
        const mp = await multipartBody(req.multipart);
        body = mp.stream;
        headers['content-type'] = mp.contentType;
        headers['content-length'] = mp.size;
      } else if (req.body) {
        body = req.body.data;
        headers['content-type'] = req.body.contentType;
        const size = Buffer.isBuffer(req.body.data) ? req.body.data.length : req.body.size;
        if (size !== undefined) headers['content-length'] = size;
      }
      if (typeof body === 'string') headers['content-length'] = Buffer.byteLength(body);
      let res: OutboundResponse;
      try {
        res = await transport({
          method: req.method,
          url: url + encodeQuery(req.query),
          headers,
          body,
          timeoutMs: req.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          guard: options.guard,
        });
      } catch (error) {
        throw networkError(error, req.method, new URL(url).host);
      }
      const at = now();
      const rateLimit = parseRateLimit(res.headers, at);
      return {
        status: res.status,
        headers: res.headers,
        body: res.body,
        text: () => res.body.toString('utf8'),
        json<T>() {
          try {
            return JSON.parse(res.body.toString('utf8')) as T;
          } catch {
            throw new PlatformError(
              'transient',
              'PLATFORM_UNAVAILABLE',
              `${new URL(url).host} answered ${res.status} with a body that is not JSON.`,
              { platformStatus: res.status, platformBody: res.body.toString('utf8') },
            );
          }
        },
        rateLimit,
        retryAfterMs: retryAfterMs(res.status, res.headers, rateLimit, at),
      };
    },
  };
}

/** A failure before any HTTP answer. Only a sent mutation has an unknown outcome: a GET can simply be repeated. */
export function networkError(error: unknown, method: HttpMethod, host: string): PlatformError {
  if (error instanceof OutboundError) {
    if (error.kind === 'blocked')
      return new PlatformError(
        'permanent',
        'PLATFORM_DESTINATION_BLOCKED',
        `Refused to contact ${host}: ${error.message}`,
        { cause: error },
      );
    if (error.sent && method !== 'GET' && (error.kind === 'timeout' || error.kind === 'reset')) {
      return new PlatformError(
        'unknown_outcome',
        'PLATFORM_UNKNOWN_OUTCOME',
        `${host} did not answer a ${method} that was sent (${error.kind}); it may have taken effect.`,
        { cause: error },
      );
    }
    return new PlatformError(
      'transient',
      'PLATFORM_NETWORK_ERROR',
      `${host} could not be reached (${error.kind}): ${error.message}`,
      { cause: error },
    );
  }
  return new PlatformError(
    'transient',
    'PLATFORM_NETWORK_ERROR',
    `${host}: ${(error as Error)?.message ?? String(error)}`,
    { cause: error },
  );
}

/** Reads a stream fully (media bytes for platforms that take them in one request). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}

export { Readable };
