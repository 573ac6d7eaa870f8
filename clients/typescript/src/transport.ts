// The fetch every call goes through: an Idempotency-Key on every POST, PATCH, PUT and DELETE, and retries of what
// is safe to send again. A mutating call is only ever re-sent with the key of its first attempt, so Herald replays
// the stored answer instead of acting twice; without a key it is never re-sent.

export interface RetryOptions {
  /** Retries after the first attempt (default 4; 0 disables retries). */
  maxRetries?: number;
  /** First backoff for 5xx and network failures, doubled on each retry with full jitter (default 300 ms). */
  baseDelayMs?: number;
  /** Longest backoff between two attempts (default 10 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned, as a HeraldError (default 60 s). */
  maxRetryAfterMs?: number;
}

export interface TransportOptions {
  fetch: (request: Request) => Promise<Response>;
  retry: RetryOptions;
  /** Whether to add an Idempotency-Key to mutating calls that have none (default true). */
  idempotencyKeys: boolean;
  /** Makes a key; default `crypto.randomUUID()`. */
  newKey: () => string;
  /** Waits; replaceable in tests. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** 409 codes that mean "the same request may succeed in a moment": the key's first request still runs, or a
 * platform call is in flight. Every other 409 is a state conflict that repeating will not change. */
const RETRYABLE_409 = new Set(['PUBLIC_API_IDEMPOTENCY_IN_PROGRESS', 'PUBLIC_API_PUBLISH_IN_FLIGHT']);
const RETRYABLE_5XX = new Set([500, 502, 503, 504]);

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(response: Response, now = Date.now()): number | null {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function backoff(attempt: number, retry: Required<RetryOptions>): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

async function errorCode(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

/** How long to wait before sending the request again, or null when its answer is final. */
async function delayBeforeRetry(response: Response, attempt: number, retry: Required<RetryOptions>) {
  const after = retryAfterMs(response);
  let wait: number;
  if (response.status === 429) wait = after ?? backoff(attempt, retry);
  else if (response.status === 409) {
    if (!RETRYABLE_409.has((await errorCode(response)) ?? '')) return null;
    wait = after ?? 1000;
  } else if (RETRYABLE_5XX.has(response.status)) wait = after ?? backoff(attempt, retry);
  else return null;
  return wait > retry.maxRetryAfterMs ? null : wait;
}

export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  const retry: Required<RetryOptions> = {
    maxRetries: options.retry.maxRetries ?? 4,
    baseDelayMs: options.retry.baseDelayMs ?? 300,
    maxDelayMs: options.retry.maxDelayMs ?? 10_000,
    maxRetryAfterMs: options.retry.maxRetryAfterMs ?? 60_000,
  };
  return async (input) => {
    const method = input.method.toUpperCase();
    const headers = new Headers(input.headers);
    const mutating = MUTATING.has(method);
    if (mutating && options.idempotencyKeys && !headers.has('idempotency-key')) {
      headers.set('idempotency-key', options.newKey());
    }
    const mayRepeat = !mutating || headers.has('idempotency-key');
    // Read once, so every attempt sends the same bytes.
    const body = input.body === null ? undefined : await input.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const request = new Request(input.url, {
        method,
        headers,
        body,
        signal: input.signal,
        redirect: input.redirect,
        credentials: input.credentials,
        cache: input.cache,
        keepalive: input.keepalive,
      });
      let response: Response;
      try {
        response = await options.fetch(request);
      } catch (error) {
        if (!mayRepeat || attempt >= retry.maxRetries || input.signal.aborted) throw error;
        await options.sleep(backoff(attempt, retry), input.signal);
        continue;
      }
      if (!mayRepeat || attempt >= retry.maxRetries) return response;
      const wait = await delayBeforeRetry(response, attempt, retry);
      if (wait === null) return response;
      await response.body?.cancel();
      await options.sleep(wait, input.signal);
    }
  };
}
