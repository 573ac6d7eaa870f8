// Media by URL: the GET that brings the bytes, run by the `fetch_media` job. Every hop goes through the SSRF guard
// (src/lib/ssrf.ts) — its URL is checked, and the address connected to is checked again at connect time, so a
// redirect to a private address or a DNS answer that changes between the two is refused. The body is streamed
// to a file with a byte cap (the largest media cap; the kind's own cap once the bytes are sniffed), under one
// deadline for the whole exchange, redirects included. Failures are `FetchFailure`s phrased for the API client.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { http, https } from '../../lib/node-http.ts';
import { OutboundBlockedError, type OutboundGuard } from '../../lib/ssrf.ts';

/** Most redirects followed (each one checked like the first URL). */
export const MAX_REDIRECTS = 5;

/** Why a fetch failed, for `failure_reason`. */
export class FetchFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchFailure';
  }
}

export interface FetchLimits {
  guard: OutboundGuard;
  /** Largest body taken, in bytes. */
  maxBytes: number;
  /** Deadline for everything: connect, redirects and the last byte. */
  timeoutMs: number;
}

/** What a response body is written to: the local driver's temporary file, or one of ours for s3. */
export type BodySink = (body: Readable, maxBytes: number) => Promise<{ file: string; size: number; sha256: string }>;

/** Counts and hashes the bytes, refusing more than `maxBytes`. */
class Meter extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  private readonly maxBytes: number;
  constructor(maxBytes: number) {
    super();
    this.maxBytes = maxBytes;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new FetchFailure(tooLarge(this.maxBytes)));
    this.hash.update(chunk);
    done(null, chunk);
  }
}

const tooLarge = (maxBytes: number) => `The file at the URL is larger than the ${maxBytes} bytes Herald takes.`;

/** A sink writing to a fresh temporary directory of the system's; `cleanup` removes it. */
export async function temporarySink(): Promise<{ sink: BodySink; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-fetch-'));
  return {
    sink: async (body, maxBytes) => {
      const file = path.join(dir, 'body');
      const meter = new Meter(maxBytes);
      await pipeline(body, meter, createWriteStream(file));
      return { file, size: meter.size, sha256: meter.hash.digest('hex') };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

function blocked(error: unknown): OutboundBlockedError | undefined {
  if (error instanceof OutboundBlockedError) return error;
  const cause = (error as { cause?: unknown })?.cause;
  return cause instanceof OutboundBlockedError ? cause : undefined;
}

/** One GET, not following redirects: the response, its body unread. */
function get(url: URL, guard: OutboundGuard, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // An IP literal never goes through `lookup`; `guard.checkUrl`, run on every URL before this, has judged it.
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.get(url, {
      // A fresh connection per fetch: the guard's lookup runs for it, and no pooled socket outlives the job.
      agent: false,
      lookup: guard.lookup as never,
      headers: { accept: '*/*', 'user-agent': 'Herald media fetch' },
      signal,
    });
    request.on('response', resolve);
    request.on('error', reject);
  });
}

/**
 * Fetches `source` into `sink`, following at most MAX_REDIRECTS redirects, each checked by the guard. Throws a
 * FetchFailure that says what went wrong; the sink's file is the caller's to remove.
 */
export async function fetchToSink(
  source: string,
  limits: FetchLimits,
  sink: BodySink,
): Promise<{ file: string; size: number; sha256: string; finalUrl: string; contentType: string | null }> {
  const controller = new AbortController();
  const seconds = Math.round(limits.timeoutMs / 100) / 10;
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const late = () => new FetchFailure(`The server did not send the whole file within ${seconds} s.`);
  let url = source;
  try {
    for (let hop = 0; ; hop++) {
      let target: URL;
      let response: IncomingMessage;
      try {
        target = await limits.guard.checkUrl(url);
        response = await get(target, limits.guard, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) throw late();
        const refused = blocked(error);
        if (refused)
          throw new FetchFailure(
            hop === 0
              ? `The URL was refused: ${refused.message}`
              : `A redirect to ${url} was refused: ${refused.message}`,
          );
        throw new FetchFailure(`The URL could not be fetched: ${(error as Error).message}.`);
      }
      const status = response.statusCode ?? 0;
      // A body Herald does not want is not read (a redirect's or an error's could be endless): its socket is closed.
      if (status >= 300 && status < 400 && response.headers.location) {
        response.destroy();
        if (hop >= MAX_REDIRECTS) throw new FetchFailure(`The URL redirected more than ${MAX_REDIRECTS} times.`);
        url = new URL(response.headers.location, target).toString();
        continue;
      }
      if (status !== 200) {
        response.destroy();
        throw new FetchFailure(`The server answered HTTP ${status} to GET ${target.toString()}.`);
      }
      const announced = Number(response.headers['content-length']);
      if (Number.isFinite(announced) && announced > limits.maxBytes) {
        response.destroy();
        throw new FetchFailure(
          `The file at the URL is ${announced} bytes (Content-Length); Herald takes at most ${limits.maxBytes}.`,
        );
      }
      try {
        const written = await sink(response, limits.maxBytes);
        if (written.size === 0) throw new FetchFailure('The server sent an empty body.');
        return { ...written, finalUrl: target.toString(), contentType: response.headers['content-type'] ?? null };
      } catch (error) {
        if (controller.signal.aborted) throw late();
        if (error instanceof FetchFailure) throw error;
        // The local driver's sink speaks the upload's words for its cap: say it for a fetch.
        if ((error as { code?: string }).code === 'PUBLIC_API_PAYLOAD_TOO_LARGE')
          throw new FetchFailure(tooLarge(limits.maxBytes));
        throw new FetchFailure(`The download broke off: ${(error as Error).message}.`);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}
