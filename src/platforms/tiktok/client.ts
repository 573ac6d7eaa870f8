// The TikTok endpoints Herald calls, one function each (docs/platforms/tiktok.md "Calls"): OAuth v2 token and
// revoke, user info, the Content Posting API (creator info, video and photo init, chunk upload, status) and the
// Display API (video list, video query). Every answer is `{ data, error }`; an `error.code` other than "ok" is an
// error whatever the status.
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { PlatformError } from '../types.ts';
import { ERROR_HINTS, TIKTOK_ERRORS } from './errors.ts';

/** A chunk carries up to 20 MB: it gets far longer than the API calls' deadline. */
export const UPLOAD_TIMEOUT_MS = 5 * 60_000;

/** TikTok's `error` object from a body, when there is one. */
export function errorOf(text: string): { code: string; message: string } | undefined {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body.error && typeof body.error === 'object' && typeof body.error.code === 'string')
      return { code: body.error.code, message: typeof body.error.message === 'string' ? body.error.message : '' };
  } catch {
    // not JSON
  }
  return undefined;
}

/** A TikTok error answer as a PlatformError, in TikTok's words plus what the user can do. */
export function tiktokError(res: PlatformResponse): PlatformError {
  const classified = classify(res, TIKTOK_ERRORS, 'TikTok');
  const own = errorOf(res.text());
  if (!own) return classified;
  return new PlatformError(
    classified.kind,
    classified.code,
    `TikTok answered ${res.status} ${own.code}: ${own.message || 'no message'}${ERROR_HINTS[own.code] ?? ''}`,
    { platformStatus: res.status, platformBody: res.text(), retryAfterMs: res.retryAfterMs },
  );
}

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) throw tiktokError(res);
  const own = res.status === 200 && res.body.length > 0 ? errorOf(res.text()) : undefined;
  if (own && own.code !== 'ok') throw tiktokError(res);
  return res;
}

const data = <T>(res: PlatformResponse) => res.json<{ data: T }>().data;

// ---- OAuth (answers are flat, errors `{ error, error_description }`) ----

export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  refresh_expires_in?: number;
  open_id?: string;
  scope?: string;
}

export async function token(http: PlatformHttp, form: Record<string, string>): Promise<TokenAnswer> {
  const res = await http.request({ method: 'POST', path: '/v2/oauth/token/', form });
  if (res.status >= 500 || res.status === 429)
    throw classify(
      res,
      [
        { status: 429, kind: 'rate_limited' },
        { status: [500, 599], kind: 'transient' },
      ],
      'TikTok',
    );
  let answer: (TokenAnswer & { error?: string; error_description?: string }) | undefined;
  try {
    answer = JSON.parse(res.text()) as typeof answer;
  } catch {
    answer = undefined;
  }
  // ⚠ unverified: TikTok's status for a refused grant; a body with `error` is a refusal whatever the status.
  if (res.status >= 400 || !answer || answer.error || typeof answer.access_token !== 'string')
    throw new PlatformError(
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
      `TikTok refused the grant (${res.status} ${answer?.error ?? 'no token'}): ${answer?.error_description ?? res.text().slice(0, 200)}`,
      { platformStatus: res.status, platformBody: res.text() },
    );
  return answer;
}

export async function revoke(http: PlatformHttp, form: Record<string, string>): Promise<void> {
  await call(http, { method: 'POST', path: '/v2/oauth/revoke/', form });
}

// ---- The user ----

export interface TiktokUser {
  open_id: string;
  username?: string;
  display_name?: string;
  avatar_url?: string | null;
}

export async function userInfo(http: PlatformHttp, bearer: string): Promise<TiktokUser> {
  const res = await call(http, {
    method: 'GET',
    path: '/v2/user/info/',
    bearer,
    query: { fields: 'open_id,avatar_url,display_name,username' },
  });
  return data<{ user: TiktokUser }>(res).user;
}

// ---- Content Posting API ----

export interface CreatorInfo {
  creator_username?: string;
  creator_nickname?: string;
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
}

export async function creatorInfo(http: PlatformHttp, bearer: string): Promise<CreatorInfo> {
  return data<CreatorInfo>(
    await call(http, { method: 'POST', path: '/v2/post/publish/creator_info/query/', bearer, json: {} }),
  );
}

export interface InitAnswer {
  publish_id: string;
  upload_url?: string;
}

/** `video/init` (Direct Post of a video) or `content/init` (photos): the call that creates the publish. */
export async function init(http: PlatformHttp, bearer: string, kind: 'video' | 'photo', body: unknown) {
  const path = kind === 'video' ? '/v2/post/publish/video/init/' : '/v2/post/publish/content/init/';
  return data<InitAnswer>(await call(http, { method: 'POST', path, bearer, json: body }));
}

/** One chunk to the upload URL (absolute, on TikTok's upload host): 206 for a part, 201 for the last. */
export async function putChunk(
  http: PlatformHttp,
  uploadUrl: string,
  chunk: { data: Buffer; first: number; total: number; contentType: string },
): Promise<void> {
  const res = await http.request({
    method: 'PUT',
    path: uploadUrl,
    headers: { 'content-range': `bytes ${chunk.first}-${chunk.first + chunk.data.length - 1}/${chunk.total}` },
    body: { data: chunk.data, contentType: chunk.contentType, size: chunk.data.length },
    timeoutMs: UPLOAD_TIMEOUT_MS,
  });
  if (res.status >= 400) throw tiktokError(res);
}

export interface PublishStatus {
  status: 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED' | string;
  fail_reason?: string;
  /** The post ids, as exact decimal strings (TikTok sends int64 numbers; JSON.parse would round them). */
  postIds: string[];
  uploaded_bytes?: number;
  downloaded_bytes?: number;
}

export async function publishStatus(http: PlatformHttp, bearer: string, publishId: string): Promise<PublishStatus> {
  const res = await call(http, {
    method: 'POST',
    path: '/v2/post/publish/status/fetch/',
    bearer,
    json: { publish_id: publishId },
  });
  const answer = data<Omit<PublishStatus, 'postIds'>>(res);
  // The ids read from the text itself, digits kept (or strings, should TikTok quote them).
  const list = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(res.text())?.[1] ?? '';
  return { ...answer, postIds: [...list.matchAll(/"?(\d+)"?/g)].map((m) => m[1]!) };
}

// ---- Display API ----

export interface TiktokVideo {
  id: string;
  create_time?: number;
  title?: string;
  video_description?: string;
  share_url?: string;
  like_count?: number;
  comment_count?: number;
  share_count?: number;
  view_count?: number;
}

export async function listVideos(
  http: PlatformHttp,
  bearer: string,
  cursor?: number,
): Promise<{ videos: TiktokVideo[]; cursor: number; has_more: boolean }> {
  return data(
    await call(http, {
      method: 'POST',
      path: '/v2/video/list/',
      bearer,
      query: { fields: 'id,create_time,title,video_description,share_url' },
      json: { max_count: 20, ...(cursor !== undefined && { cursor }) },
    }),
  );
}

export async function queryVideos(http: PlatformHttp, bearer: string, ids: string[]): Promise<TiktokVideo[]> {
  return data<{ videos: TiktokVideo[] }>(
    await call(http, {
      method: 'POST',
      path: '/v2/video/query/',
      bearer,
      query: { fields: 'id,view_count,like_count,comment_count,share_count' },
      json: { filters: { video_ids: ids } },
    }),
  ).videos;
}
