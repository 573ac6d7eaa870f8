// The HTTP client as adapters see it: a request, a response with its rate-limit reading, and the client bound to
// one platform host. Types only; src/platforms/http.ts builds the client.
import type { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A file part of a multipart body: bytes in memory or a stream of known length. */
export interface MultipartFile {
  filename: string;
  contentType: string;
  data: Buffer | (() => Promise<Readable>);
  size: number;
}

export interface PlatformRequest {
  method: HttpMethod;
  /** Path relative to the base URL (`/2/tweets`), or an absolute URL on the same trust footing. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | readonly string[]>;
  headers?: Record<string, string>;
  bearer?: string;
  json?: unknown;
  form?: Record<string, string>;
  multipart?: Record<string, string | MultipartFile>;
  body?: { data: Buffer | Readable; contentType: string; size?: number };
  timeoutMs?: number;
}

export interface RateLimitInfo {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: Date | undefined;
}

export interface PlatformResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  /** The body as JSON; a PlatformError (transient) when the platform sent something else. */
  json<T = Record<string, unknown>>(): T;
  rateLimit: RateLimitInfo;
  /** Milliseconds until the platform accepts requests again (Retry-After, else a spent window's reset). */
  retryAfterMs: number | undefined;
}

export interface PlatformHttp {
  readonly baseUrl: string;
  request(request: PlatformRequest): Promise<PlatformResponse>;
}
