// One primitive for every HTTP request Herald sends: an overall deadline, a cap on the response size, no
// redirects followed (the caller decides), and — for user-chosen destinations — the SSRF guard applied to the
// address actually connected to. Failures say whether the request had been fully sent, because a request
// that was sent and then timed out has an unknown outcome and must not be retried blindly.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { http, https } from './node-http.ts';
import { isBlockedAddress, OutboundBlockedError, type OutboundGuard } from './ssrf.ts';

export interface OutboundRequest {
  method: string;
  url: string | URL;
  headers?: Record<string, string | number | string[]>;
  body?: string | Buffer | Uint8Array | Readable;
  /** Deadline for the whole exchange, connect to last byte. */
  timeoutMs: number;
  /** Bytes of response body kept; the rest is discarded and `truncated` set. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Present for user-chosen destinations: refuses private and reserved addresses. Absent: a trusted destination. */
  guard?: OutboundGuard;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  durationMs: number;
}

export type OutboundFailure = 'timeout' | 'connect' | 'reset' | 'blocked' | 'aborted';

export class OutboundError extends Error {
  readonly kind: OutboundFailure;
  /** True when the request was completely written before the failure: its effect on the other side is unknown. */
  readonly sent: boolean;
  constructor(kind: OutboundFailure, message: string, sent: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
    this.kind = kind;
    this.sent = sent;
  }
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

export function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  const url = typeof request.url === 'string' ? new URL(request.url) : request.url;
  const started = performance.now();
  const limit = request.maxResponseBytes ?? 1024 * 1024;
  return new Promise<OutboundResponse>((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return reject(new OutboundError('blocked', `Unsupported scheme ${url.protocol}`, false));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal never goes through `lookup`, so the guard checks it here.
    if (request.guard && isIP(host) && !request.guard.isAllowlisted(host) && isBlockedAddress(host)) {
      return reject(
        new OutboundError('blocked', `${host} is a private or reserved address`, false, {
          cause: new OutboundBlockedError('address_blocked', host),
        }),
      );
    }
    const transport = url.protocol === 'https:' ? https : http;
    let sent = false;
    let settled = false;
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = transport.request(url, {
      method: request.method,
      headers: request.headers,
      agent: agents[url.protocol === 'https:' ? 'https' : 'http'],
      ...(request.guard ? { lookup: request.guard.lookup as never } : {}),
    });
    const timer = setTimeout(
      () =>
        fail(new OutboundError('timeout', `No complete answer from ${url.host} within ${request.timeoutMs} ms`, sent)),
      request.timeoutMs,
    );
    request.signal?.addEventListener('abort', () => fail(new OutboundError('aborted', 'Request aborted', sent)), {
      once: true,
    });
    req.on('finish', () => {
      sent = true;
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (
        error instanceof OutboundBlockedError ||
        (error as { cause?: unknown }).cause instanceof OutboundBlockedError
      ) {
        return fail(new OutboundError('blocked', error.message, false, { cause: error }));
      }
      const connectPhase =
        !sent &&
        ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'].includes(
          error.code ?? '',
        );
      fail(
        new OutboundError(connectPhase ? 'connect' : 'reset', `${url.host}: ${error.message}`, sent, { cause: error }),
      );
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (size >= limit) {
          truncated = true;
          return;
        }
        const room = limit - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        if (chunk.length > room) truncated = true;
        size += Math.min(chunk.length, room);
      });
      res.on('error', (error) =>
        fail(new OutboundError('reset', `${url.host}: ${error.message}`, true, { cause: error })),
      );
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          truncated,
          durationMs: Math.round(performance.now() - started),
        });
      });
    });
    const body = request.body;
    if (body === undefined) req.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else body.pipe(req);
  });
}
