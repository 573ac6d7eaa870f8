// Shared by the Meta Graph tests: a Graph error answer as the platforms send it, in the envelope with an fbtrace_id.
// Not a test file itself (the runner only picks up *.test.ts).
import type { PlatformResponse } from '../http-contract.ts';

export function answer(
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
): PlatformResponse {
  const body = Buffer.from(JSON.stringify({ error: { type: 'OAuthException', fbtrace_id: 'AbCdEf123', ...error } }));
  return {
    status,
    headers,
    body,
    text: () => body.toString('utf8'),
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
    rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
    retryAfterMs: undefined,
  };
}
