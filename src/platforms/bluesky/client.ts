// The XRPC procedures and queries Herald calls on a PDS (docs/platforms/bluesky.md "Calls"), one function each.
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { BLUESKY_ERRORS } from './errors.ts';

export async function xrpc(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request({ ...request, path: `/xrpc/${request.path}` });
  if (res.status >= 400) throw classify(res, BLUESKY_ERRORS, 'Bluesky');
  return res;
}

export interface SessionAnswer {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
}

export async function createSession(http: PlatformHttp, identifier: string, password: string): Promise<SessionAnswer> {
  return (
    await xrpc(http, { method: 'POST', path: 'com.atproto.server.createSession', json: { identifier, password } })
  ).json<SessionAnswer>();
}

/** Refreshing sends the refresh token as the bearer and no body (a PDS refuses one). */
export async function refreshSession(http: PlatformHttp, refreshJwt: string): Promise<SessionAnswer> {
  return (
    await xrpc(http, { method: 'POST', path: 'com.atproto.server.refreshSession', bearer: refreshJwt })
  ).json<SessionAnswer>();
}

export async function getSession(http: PlatformHttp, accessJwt: string): Promise<{ did: string; handle: string }> {
  return (await xrpc(http, { method: 'GET', path: 'com.atproto.server.getSession', bearer: accessJwt })).json();
}

export async function resolveHandle(http: PlatformHttp, handle: string): Promise<string | undefined> {
  const res = await http.request({
    method: 'GET',
    path: '/xrpc/com.atproto.identity.resolveHandle',
    query: { handle },
  });
  return res.status === 200 ? res.json<{ did: string }>().did : undefined;
}

export interface StrongRef {
  uri: string;
  cid: string;
}

export async function createRecord(
  http: PlatformHttp,
  accessJwt: string,
  body: { repo: string; collection: string; rkey: string; record: Record<string, unknown> },
): Promise<StrongRef> {
  return (
    await xrpc(http, { method: 'POST', path: 'com.atproto.repo.createRecord', bearer: accessJwt, json: body })
  ).json<StrongRef>();
}

/** The record at `rkey`, or undefined when the PDS says RecordNotFound. */
export async function getRecord(
  http: PlatformHttp,
  accessJwt: string,
  repo: string,
  collection: string,
  rkey: string,
): Promise<StrongRef | undefined> {
  const res = await http.request({
    method: 'GET',
    path: '/xrpc/com.atproto.repo.getRecord',
    bearer: accessJwt,
    query: { repo, collection, rkey },
  });
  if (res.status === 400 && /RecordNotFound/.test(res.text())) return undefined;
  if (res.status >= 400) throw classify(res, BLUESKY_ERRORS, 'Bluesky');
  return res.json<StrongRef>();
}

export async function deleteRecord(
  http: PlatformHttp,
  accessJwt: string,
  repo: string,
  collection: string,
  rkey: string,
): Promise<void> {
  await xrpc(http, {
    method: 'POST',
    path: 'com.atproto.repo.deleteRecord',
    bearer: accessJwt,
    json: { repo, collection, rkey },
  });
}

/** Uploads carry the bytes: they get far longer than the API calls' deadline. */
export const UPLOAD_TIMEOUT_MS = 5 * 60_000;

export interface BlobRef {
  $type: 'blob';
  ref: { $link: string };
  mimeType: string;
  size: number;
}

export async function uploadBlob(
  http: PlatformHttp,
  accessJwt: string,
  data: Buffer,
  contentType: string,
): Promise<BlobRef> {
  return (
    await xrpc(http, {
      method: 'POST',
      path: 'com.atproto.repo.uploadBlob',
      bearer: accessJwt,
      body: { data, contentType },
      timeoutMs: UPLOAD_TIMEOUT_MS,
    })
  ).json<{ blob: BlobRef }>().blob;
}

/** A post view's counts from the AppView the PDS proxies to (docs/platforms/bluesky.md "Metrics and inbox"). */
export interface PostCounts {
  uri: string;
  likeCount?: number;
  repostCount?: number;
  replyCount?: number;
  quoteCount?: number;
}

/** `app.bsky.feed.getPosts` for up to 25 post URIs; posts the AppView does not have are left out. */
export async function getPosts(http: PlatformHttp, accessJwt: string, uris: readonly string[]): Promise<PostCounts[]> {
  const res = await xrpc(http, { method: 'GET', path: 'app.bsky.feed.getPosts', bearer: accessJwt, query: { uris } });
  return res.json<{ posts: PostCounts[] }>().posts;
}
