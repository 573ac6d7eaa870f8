// The Pinterest API v5 endpoints Herald calls, one function each (docs/platforms/pinterest.md "Calls"); shapes as in
// the OpenAPI description Pinterest publishes (pinterest/api-description `v5/openapi.json`).
import type { Readable } from 'node:stream';
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { PINTEREST_ERRORS } from './errors.ts';

/** Uploads carry the bytes: they get far longer than the API calls' deadline. */
export const UPLOAD_TIMEOUT_MS = 10 * 60_000;

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) throw classify(res, PINTEREST_ERRORS, 'Pinterest');
  return res;
}

/** `OauthAccessTokenResponse`: every grant answers a refresh token (continuous refresh). */
export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  refresh_token_expires_in?: number;
  scope?: string;
}

/** `POST /v5/oauth/token`, the app authenticated with HTTP Basic (app id : app secret). */
export async function token(
  http: PlatformHttp,
  app: { id: string; secret: string },
  form: Record<string, string>,
): Promise<TokenAnswer> {
  const basic = Buffer.from(`${app.id}:${app.secret}`).toString('base64');
  return (
    await call(http, { method: 'POST', path: '/v5/oauth/token', headers: { authorization: `Basic ${basic}` }, form })
  ).json<TokenAnswer>();
}

export interface UserAccount {
  id: string;
  username: string;
  business_name?: string | null;
  profile_image?: string | null;
}

export async function userAccount(http: PlatformHttp, token: string): Promise<UserAccount> {
  return (await call(http, { method: 'GET', path: '/v5/user_account', bearer: token })).json<UserAccount>();
}

export interface Board {
  id: string;
  name: string;
  privacy?: string;
}

interface Page<T> {
  items: T[];
  bookmark?: string | null;
}

export async function boards(http: PlatformHttp, token: string, bookmark?: string): Promise<Page<Board>> {
  return (
    await call(http, {
      method: 'GET',
      path: '/v5/boards',
      bearer: token,
      query: { page_size: 250, bookmark },
    })
  ).json<Page<Board>>();
}

/** A Pin as the API answers it; `created_at` is UTC without a zone (`2026-11-26T09:00:00`). */
export interface Pin {
  id: string;
  created_at?: string;
  board_id?: string;
  title?: string | null;
  description?: string | null;
  link?: string | null;
  media?: { media_type?: string; items?: unknown[] };
}

export async function boardPins(
  http: PlatformHttp,
  token: string,
  boardId: string,
  pageSize: number,
  bookmark?: string,
): Promise<Page<Pin>> {
  return (
    await call(http, {
      method: 'GET',
      path: `/v5/boards/${encodeURIComponent(boardId)}/pins`,
      bearer: token,
      query: { page_size: pageSize, bookmark },
    })
  ).json<Page<Pin>>();
}

export async function createPin(http: PlatformHttp, token: string, body: Record<string, unknown>): Promise<Pin> {
  return (await call(http, { method: 'POST', path: '/v5/pins', bearer: token, json: body })).json<Pin>();
}

export async function getPin(http: PlatformHttp, token: string, id: string): Promise<Pin> {
  return (await call(http, { method: 'GET', path: `/v5/pins/${encodeURIComponent(id)}`, bearer: token })).json<Pin>();
}

export async function deletePin(http: PlatformHttp, token: string, id: string): Promise<void> {
  await call(http, { method: 'DELETE', path: `/v5/pins/${encodeURIComponent(id)}`, bearer: token });
}

/** `MediaUpload`: a registered video upload and the S3 form to post its bytes with. */
export interface MediaUpload {
  media_id: string;
  upload_url: string;
  upload_parameters: Record<string, string>;
}

export async function registerMedia(http: PlatformHttp, token: string): Promise<MediaUpload> {
  return (
    await call(http, { method: 'POST', path: '/v5/media', bearer: token, json: { media_type: 'video' } })
  ).json<MediaUpload>();
}

/** The S3-style form post of the bytes: the upload parameters first, the file last (S3 ignores fields after it). */
export async function uploadFile(
  http: PlatformHttp,
  upload: MediaUpload,
  file: { data: () => Promise<Readable>; contentType: string; size: number },
): Promise<void> {
  await call(http, {
    method: 'POST',
    path: upload.upload_url,
    multipart: {
      ...upload.upload_parameters,
      file: { filename: 'video', contentType: file.contentType, data: file.data, size: file.size },
    },
    timeoutMs: UPLOAD_TIMEOUT_MS,
  });
}

export type MediaStatus = 'registered' | 'processing' | 'succeeded' | 'failed';

export async function mediaStatus(http: PlatformHttp, token: string, id: string): Promise<MediaStatus | undefined> {
  const res = await call(http, { method: 'GET', path: `/v5/media/${encodeURIComponent(id)}`, bearer: token });
  return res.json<{ status?: MediaStatus }>().status;
}

/** `PinAnalyticsResponse`, keyed by `all` without a split. */
export type PinAnalytics = Record<
  string,
  { summary_metrics?: Record<string, number>; lifetime_metrics?: Record<string, number> } | undefined
>;

export async function pinAnalytics(
  http: PlatformHttp,
  token: string,
  id: string,
  query: { start_date: string; end_date: string; metric_types: string },
): Promise<PinAnalytics> {
  return (
    await call(http, {
      method: 'GET',
      path: `/v5/pins/${encodeURIComponent(id)}/analytics`,
      bearer: token,
      query,
    })
  ).json<PinAnalytics>();
}
