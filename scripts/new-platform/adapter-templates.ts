// The templates of the other files of src/platforms/<p>/ (client, errors, limits, the contract test), and the
// adapter's file list. Tokens: __p__ name, __P__ Pascal, __PU__ upper, __D__ display, __MAX__ text limit.
import { ADAPTER_INDEX } from './adapter-index-template.ts';

const ADAPTER_CLIENT = `// The __D__ endpoints Herald calls, one function each.
// FILL IN: __D__'s real endpoints, bodies and answers (docs/platforms/__p__.md "Calls"); these are the simulator's
// generic placeholder API.
import type { Readable } from 'node:stream';
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { __PU___ERRORS } from './errors.ts';

/** Uploads carry the bytes: they get far longer than the API calls' deadline. */
export const UPLOAD_TIMEOUT_MS = 5 * 60_000;

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) throw classify(res, __PU___ERRORS, '__D__');
  return res;
}

export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
}

export async function token(http: PlatformHttp, form: Record<string, string>): Promise<TokenAnswer> {
  return (await call(http, { method: 'POST', path: '/oauth/token', form })).json<TokenAnswer>();
}

export async function revoke(http: PlatformHttp, form: Record<string, string>): Promise<void> {
  await call(http, { method: 'POST', path: '/oauth/revoke', form });
}

export interface __P__User {
  id: string;
  username: string;
  name: string;
  avatar_url?: string | null;
}

export async function me(http: PlatformHttp, token: string): Promise<__P__User> {
  return (await call(http, { method: 'GET', path: '/v1/me', bearer: token })).json<__P__User>();
}

export interface MediaState {
  id: string;
  status: 'processing' | 'ready' | 'failed';
  error?: string;
}

export async function uploadMedia(
  http: PlatformHttp,
  token: string,
  file: { data: Readable | Buffer; contentType: string; size: number },
): Promise<MediaState> {
  return (
    await call(http, {
      method: 'POST',
      path: '/v1/media',
      bearer: token,
      body: file,
      timeoutMs: UPLOAD_TIMEOUT_MS,
    })
  ).json<MediaState>();
}

export async function mediaStatus(http: PlatformHttp, token: string, id: string): Promise<MediaState> {
  return (
    await call(http, { method: 'GET', path: \`/v1/media/\${encodeURIComponent(id)}\`, bearer: token })
  ).json<MediaState>();
}

export interface __P__Post {
  id: string;
  url: string;
  created_at: string;
  reply_to: string | null;
}

export async function createPost(
  http: PlatformHttp,
  token: string,
  idempotencyKey: string,
  body: Record<string, unknown>,
): Promise<__P__Post> {
  return (
    await call(http, {
      method: 'POST',
      path: '/v1/posts',
      bearer: token,
      headers: { 'idempotency-key': idempotencyKey },
      json: body,
    })
  ).json<__P__Post>();
}

/** The post created with this Idempotency-Key, if the platform holds one. */
export async function findPostByKey(http: PlatformHttp, token: string, key: string): Promise<__P__Post | null> {
  const res = await call(http, { method: 'GET', path: '/v1/posts', bearer: token, query: { idempotency_key: key } });
  return res.json<{ data: __P__Post[] }>().data[0] ?? null;
}

export async function deletePost(http: PlatformHttp, token: string, id: string): Promise<void> {
  await call(http, { method: 'DELETE', path: \`/v1/posts/\${encodeURIComponent(id)}\`, bearer: token });
}
`;

const ADAPTER_ERRORS = `// __D__'s error answers → PlatformError kinds.
// FILL IN: __D__'s real error table (docs/platforms/__p__.md "Errors"): its statuses and body patterns, token
// expiry, duplicates, media refusals; unit-test it against the platform's real error bodies. These rows are the
// generic HTTP meanings the simulator's placeholder answers use.
import type { ErrorRule } from '../classify.ts';

export const __PU___ERRORS: ErrorRule[] = [
  { status: 401, kind: 'auth_expired' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 404, kind: 'permanent' },
  { status: 413, kind: 'media_rejected' },
  { status: 429, kind: 'rate_limited' },
  { status: [400, 422], body: /"error":"media_/, kind: 'media_rejected' },
  { status: 400, kind: 'invalid_content' },
  { status: 422, kind: 'invalid_content' },
  { status: [500, 599], kind: 'transient' },
];
`;

const ADAPTER_LIMITS = `// __D__ post limits: how __D__ counts text, and what media it takes.
// FILL IN: every number here from __D__'s documentation (docs/platforms/__p__.md "Limits"); the values are
// placeholders that keep the scaffold working, not __D__'s. The simulator enforces the same values.
import type { LimitIssue, PlatformLimits } from '../limits.ts';

/** FILL IN: __D__'s text limit, in the unit \`measure\` counts (test/openapi.test.ts pins it too). */
export const MAX_LENGTH = __MAX__;
const MB = 1_000_000;

/** FILL IN: __D__'s own counting rule (graphemes, UTF-16 units, weighted characters …); Unicode code points here. */
export function measure(text: string): number {
  return [...text].length;
}

/** Every text issue; empty text is not flagged (a media-only post is the caller's rule). */
function check(text: string): LimitIssue[] {
  const length = measure(text);
  return length > MAX_LENGTH
    ? [{ rule: 'text_too_long', message: \`Text is \${length} characters; __D__ allows \${MAX_LENGTH}.\` }]
    : [];
}

export const limits: PlatformLimits = {
  platform: '__p__',
  displayName: '__D__',
  text: { maxLength: MAX_LENGTH, unit: 'characters', measure, check },
  // FILL IN: __D__'s media rules: items per post, whether media is required (video-only platforms), the kinds,
  // types, sizes and durations it takes, and whether kinds mix.
  media: {
    maxItems: 4,
    required: false,
    mixKinds: false,
    kinds: {
      image: { contentTypes: ['image/jpeg', 'image/png'], maxBytes: 5 * MB, maxCount: 4 },
      video: { contentTypes: ['video/mp4'], maxBytes: 100 * MB, maxCount: 1 },
    },
  },
  // FILL IN: the longest reply chain Herald publishes; 0 when __D__ has none (the contract then skips threads).
  maxThreadParts: 25,
};
`;

const ADAPTER_TEST = `// The __p__ adapter against its simulator (the shared contract; platform specifics below when any).
// FILL IN: __D__'s own cases (its error table against real bodies, options, limits) as the other platforms have.
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';

adapterContract('__p__');
`;

/** The files of src/platforms/<p>/, path → template (not yet filled). */
export function adapterFiles(p: string): Record<string, string> {
  return {
    [`src/platforms/${p}/index.ts`]: ADAPTER_INDEX,
    [`src/platforms/${p}/client.ts`]: ADAPTER_CLIENT,
    [`src/platforms/${p}/errors.ts`]: ADAPTER_ERRORS,
    [`src/platforms/${p}/limits.ts`]: ADAPTER_LIMITS,
    [`src/platforms/${p}/${p}.test.ts`]: ADAPTER_TEST,
  };
}
