// createHerald: openapi-fetch over the generated types, with the transport (idempotency keys, retries), methods
// that return the envelope's `data` and throw HeraldError, an async iterator over every list, and uploads.
import createClient, { type Client } from 'openapi-fetch';
import type { HttpMethod } from 'openapi-typescript-helpers';
import { HeraldError } from './errors.js';
import { createTransport, sleep, type RetryOptions } from './transport.js';
import type { HeraldPaths, InitOf, InitParam, ListItem, ListPaths, Schemas, UnwrappedMethod } from './types.js';
import { uploadFile, type UploadOptions, type UploadSource } from './upload.js';

export interface HeraldOptions {
  /** Herald's address, e.g. `https://herald.example.com` (`/v1` is added when missing). */
  baseUrl: string;
  /** An API key (`hk_live_…` or `hk_test_…`). */
  apiKey: string;
  /** Sent as `x-herald-workspace-id`; needed when the key reaches more than one workspace. */
  workspaceId?: string;
  /** Sent as `x-herald-brand-id`. */
  brandId?: string;
  /** Retries of 409 in flight, 429, 5xx and network failures; see RetryOptions. */
  retry?: RetryOptions;
  /** Add an Idempotency-Key to every mutating call that has none (default true). Off, such calls are never
   * retried. */
  idempotencyKeys?: boolean;
  /** The fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every call. */
  headers?: Record<string, string>;
}

export type Media = Schemas extends { Media: infer M } ? M : never;
export type Post = Schemas extends { Post: infer P } ? P : never;

export interface Herald {
  /** The raw openapi-fetch client: answers `{ data, error, response }` instead of throwing. */
  readonly api: Client<HeraldPaths, 'application/json'>;
  GET: UnwrappedMethod<'get'>;
  POST: UnwrappedMethod<'post'>;
  PATCH: UnwrappedMethod<'patch'>;
  PUT: UnwrappedMethod<'put'>;
  DELETE: UnwrappedMethod<'delete'>;
  /**
   * Every item of a list, page after page, following `next_cursor` until the last page. Filters and `limit` (the
   * page size) go in `params.query` as for GET.
   */
  list<P extends ListPaths, Init extends InitOf<P, 'get'>>(
    url: P,
    ...init: InitParam<Init>
  ): AsyncIterableIterator<ListItem<P>>;
  /**
   * Uploads a file through a signed URL: creates the media, PUTs the bytes with the headers Herald asks for, and
   * waits until the media is `ready` (throws HeraldError `CLIENT_MEDIA_FAILED` when Herald rejects the content).
   */
  uploadFile(source: UploadSource, options: UploadOptions): Promise<Media>;
}

function v1(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

type AnyCall = (url: string, init?: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export function createHerald(options: HeraldOptions): Herald {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const transport = createTransport({
    fetch: (request) => baseFetch(request),
    retry: options.retry ?? {},
    idempotencyKeys: options.idempotencyKeys ?? true,
    newKey: () => crypto.randomUUID(),
    sleep,
  });
  const headers: Record<string, string> = { ...options.headers, authorization: `Bearer ${options.apiKey}` };
  if (options.workspaceId) headers['x-herald-workspace-id'] = options.workspaceId;
  if (options.brandId) headers['x-herald-brand-id'] = options.brandId;
  const baseUrl = v1(options.baseUrl);
  const api = createClient<HeraldPaths, 'application/json'>({ baseUrl, headers, fetch: transport });

  const unwrap = (method: Uppercase<HttpMethod>) => {
    const call = api[method] as unknown as AnyCall;
    return async (url: string, init?: unknown) => {
      let result: Awaited<ReturnType<AnyCall>>;
      try {
        result = await call(url, init);
      } catch (error) {
        if (error instanceof HeraldError) throw error;
        if ((error as { name?: string } | null)?.name === 'AbortError') throw error;
        throw new HeraldError({
          status: 0,
          code: 'CLIENT_NETWORK_ERROR',
          message: `${method} ${url}: ${(error as Error).message}`,
          cause: error,
        });
      }
      if (!result.response.ok) throw HeraldError.from(result.response, result.error);
      const body = result.data as { data?: unknown } | undefined;
      return body && typeof body === 'object' && 'data' in body ? body.data : body;
    };
  };

  const GET = unwrap('GET');
  const herald = {
    api,
    GET,
    POST: unwrap('POST'),
    PATCH: unwrap('PATCH'),
    PUT: unwrap('PUT'),
    DELETE: unwrap('DELETE'),
    async *list(url: string, init?: { params?: { query?: Record<string, unknown> } }) {
      let cursor: string | undefined;
      for (;;) {
        const query = { ...init?.params?.query, ...(cursor === undefined ? {} : { cursor }) };
        const page = (await GET(url, { ...init, params: { ...init?.params, query } })) as {
          items: unknown[];
          next_cursor: string | null;
        };
        yield* page.items;
        if (!page.next_cursor) return;
        cursor = page.next_cursor;
      }
    },
    uploadFile: (source: UploadSource, uploadOptions: UploadOptions) =>
      uploadFile(
        {
          baseUrl,
          headers,
          transport,
          fetch: baseFetch,
          get: (id: string) => GET('/media/{id}', { params: { path: { id } } }) as Promise<Media>,
        },
        source,
        uploadOptions,
      ),
  };
  return herald as unknown as Herald;
}
