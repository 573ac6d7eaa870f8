// The Mastodon REST endpoints Herald calls (docs/platforms/mastodon.md "Calls"), one function each.
import { classify } from '../classify.ts';
import type { MultipartFile, PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { MASTODON_ERRORS } from './errors.ts';

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) throw classify(res, MASTODON_ERRORS, 'Mastodon');
  return res;
}

export interface MastoStatus {
  id: string;
  url: string | null;
  uri: string;
  created_at: string;
  in_reply_to_id: string | null;
  media_attachments?: Array<{ id: string }>;
}

export async function postStatus(
  http: PlatformHttp,
  token: string,
  idempotencyKey: string,
  body: Record<string, unknown>,
): Promise<MastoStatus> {
  return (
    await call(http, {
      method: 'POST',
      path: '/api/v1/statuses',
      bearer: token,
      headers: { 'idempotency-key': idempotencyKey },
      json: body,
    })
  ).json<MastoStatus>();
}

export async function accountStatuses(
  http: PlatformHttp,
  token: string,
  accountId: string,
  maxId?: string,
): Promise<MastoStatus[]> {
  return (
    await call(http, {
      method: 'GET',
      path: `/api/v1/accounts/${encodeURIComponent(accountId)}/statuses`,
      bearer: token,
      query: { limit: 40, max_id: maxId },
    })
  ).json<MastoStatus[]>();
}

export async function statusSource(http: PlatformHttp, token: string, id: string): Promise<{ text: string }> {
  return (
    await call(http, { method: 'GET', path: `/api/v1/statuses/${encodeURIComponent(id)}/source`, bearer: token })
  ).json();
}

/** A status's counts (docs/platforms/mastodon.md "Metrics and inbox"); Mastodon has no views or reach. */
export interface MastoStatusCounts {
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  /** Mastodon 4.5+; absent on older servers. */
  quotes_count?: number;
}

export async function statusCounts(http: PlatformHttp, token: string, id: string): Promise<MastoStatusCounts> {
  return (
    await call(http, { method: 'GET', path: `/api/v1/statuses/${encodeURIComponent(id)}`, bearer: token })
  ).json<MastoStatusCounts>();
}

export async function deleteStatus(http: PlatformHttp, token: string, id: string): Promise<void> {
  await call(http, { method: 'DELETE', path: `/api/v1/statuses/${encodeURIComponent(id)}`, bearer: token });
}

export interface MastoAttachment {
  id: string;
  url: string | null;
}

/** POST /api/v2/media: 200 when processed at once (images), 202 with `url: null` while processing. */
export async function uploadMedia(
  http: PlatformHttp,
  token: string,
  file: MultipartFile,
  description: string | null,
): Promise<{ status: number; attachment: MastoAttachment }> {
  const res = await call(http, {
    method: 'POST',
    path: '/api/v2/media',
    bearer: token,
    multipart: { file, ...(description ? { description } : {}) },
    timeoutMs: 5 * 60_000,
  });
  return { status: res.status, attachment: res.json<MastoAttachment>() };
}

/** GET /api/v1/media/:id: 206 while processing, 200 when done. */
export async function mediaStatus(
  http: PlatformHttp,
  token: string,
  id: string,
): Promise<{ status: number; attachment: MastoAttachment }> {
  const res = await call(http, { method: 'GET', path: `/api/v1/media/${encodeURIComponent(id)}`, bearer: token });
  return { status: res.status, attachment: res.json<MastoAttachment>() };
}

export interface MastoAccount {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  url: string;
  avatar?: string | null;
}

export async function verifyCredentials(http: PlatformHttp, token: string): Promise<MastoAccount> {
  return (
    await call(http, { method: 'GET', path: '/api/v1/accounts/verify_credentials', bearer: token })
  ).json<MastoAccount>();
}

export interface InstanceDocument {
  domain: string;
  configuration?: {
    statuses?: { max_characters?: number; max_media_attachments?: number; characters_reserved_per_url?: number };
    media_attachments?: { image_size_limit?: number; video_size_limit?: number };
  };
}

export async function instance(http: PlatformHttp): Promise<InstanceDocument> {
  return (await call(http, { method: 'GET', path: '/api/v2/instance' })).json<InstanceDocument>();
}
