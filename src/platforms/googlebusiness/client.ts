// The Google endpoints Herald calls for Business Profile, one function each (docs/platforms/googlebusiness.md "Calls"):
// OAuth at oauth2.googleapis.com, accounts on the Account Management API, locations on the Business Information API,
// local posts on My Business v4 (the adapter's base URL). A sandbox connection finds every one of them at the same
// path on the simulator. Google's error body `{ error: { code, message, status } }` is classified by errors.ts.
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { PlatformError } from '../types.ts';
import { GOOGLE_REVOKE_URL, GOOGLE_TOKEN_URL, type GoogleTokenAnswer } from '../google/oauth.ts';
import { GOOGLEBUSINESS_ERRORS } from './errors.ts';

const ACCOUNTS = 'https://mybusinessaccountmanagement.googleapis.com';
const INFORMATION = 'https://mybusinessbusinessinformation.googleapis.com';

/** The host of a call: Google's for real connections, the simulator (a path on the client's base) for sandbox ones. */
const on = (sandbox: boolean, host: string, path: string) => (sandbox ? path : `${host}${path}`);

/** Google's own message, from `{ error: { message } }` or the OAuth `{ error, error_description }`. */
function googleMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'object' && body.error && 'message' in body.error)
      return String((body.error as { message: unknown }).message);
    if (typeof body.error === 'string')
      return typeof body.error_description === 'string' ? `${body.error}: ${body.error_description}` : body.error;
  } catch {
    // not JSON: classify's own message stands
  }
  return undefined;
}

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status < 400) return res;
  const error = classify(res, GOOGLEBUSINESS_ERRORS, 'Google Business Profile');
  const message = googleMessage(res.text());
  return Promise.reject(
    message
      ? new PlatformError(error.kind, error.code, `Google Business Profile answered ${res.status}: ${message}`, {
          platformStatus: error.platformStatus,
          platformBody: error.platformBody,
          retryAfterMs: error.retryAfterMs,
        })
      : error,
  );
}

export type TokenAnswer = GoogleTokenAnswer;

export async function token(http: PlatformHttp, sandbox: boolean, form: Record<string, string>): Promise<TokenAnswer> {
  return (await call(http, { method: 'POST', path: sandbox ? '/token' : GOOGLE_TOKEN_URL, form })).json<TokenAnswer>();
}

export async function revoke(http: PlatformHttp, sandbox: boolean, tokenValue: string): Promise<void> {
  await call(http, { method: 'POST', path: sandbox ? '/revoke' : GOOGLE_REVOKE_URL, form: { token: tokenValue } });
}

export interface GbpAccount {
  /** `accounts/{id}`. */
  name: string;
  accountName?: string;
  type?: string;
}

export async function listAccounts(http: PlatformHttp, sandbox: boolean, bearer: string): Promise<GbpAccount[]> {
  const out: GbpAccount[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 10; page++) {
    const res = await call(http, {
      method: 'GET',
      path: on(sandbox, ACCOUNTS, '/v1/accounts'),
      bearer,
      query: { pageSize: 20, pageToken },
    });
    const body = res.json<{ accounts?: GbpAccount[]; nextPageToken?: string }>();
    out.push(...(body.accounts ?? []));
    pageToken = body.nextPageToken;
    if (!pageToken) break;
  }
  return out;
}

export interface GbpLocation {
  /** `locations/{id}`. */
  name: string;
  title?: string;
  storefrontAddress?: { locality?: string; addressLines?: string[] };
}

const READ_MASK = 'name,title,storefrontAddress';

export async function listLocations(
  http: PlatformHttp,
  sandbox: boolean,
  bearer: string,
  account: string,
): Promise<GbpLocation[]> {
  const out: GbpLocation[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 10; page++) {
    const res = await call(http, {
      method: 'GET',
      path: on(sandbox, INFORMATION, `/v1/${account}/locations`),
      bearer,
      query: { readMask: READ_MASK, pageSize: 100, pageToken },
    });
    const body = res.json<{ locations?: GbpLocation[]; nextPageToken?: string }>();
    out.push(...(body.locations ?? []));
    pageToken = body.nextPageToken;
    if (!pageToken) break;
  }
  return out;
}

export async function getLocation(
  http: PlatformHttp,
  sandbox: boolean,
  bearer: string,
  location: string,
): Promise<GbpLocation> {
  return (
    await call(http, {
      method: 'GET',
      path: on(sandbox, INFORMATION, `/v1/${location}`),
      bearer,
      query: { readMask: READ_MASK },
    })
  ).json<GbpLocation>();
}

export type LocalPostState = 'PROCESSING' | 'LIVE' | 'REJECTED' | 'LOCAL_POST_STATE_UNSPECIFIED';

export interface LocalPost {
  /** `accounts/{a}/locations/{l}/localPosts/{p}`. */
  name: string;
  summary?: string;
  topicType?: string;
  state?: LocalPostState;
  createTime?: string;
  searchUrl?: string;
  media?: Array<{ mediaFormat?: string; googleUrl?: string; sourceUrl?: string }>;
}

/** POST /v4/{accounts/*\/locations/*}/localPosts: publishes at once (the post is then reviewed). */
export async function createLocalPost(
  http: PlatformHttp,
  bearer: string,
  location: string,
  body: Record<string, unknown>,
): Promise<LocalPost> {
  return (
    await call(http, { method: 'POST', path: `/v4/${location}/localPosts`, bearer, json: body })
  ).json<LocalPost>();
}

export async function getLocalPost(http: PlatformHttp, bearer: string, name: string): Promise<LocalPost> {
  return (await call(http, { method: 'GET', path: `/v4/${name}`, bearer })).json<LocalPost>();
}

export async function listLocalPosts(
  http: PlatformHttp,
  bearer: string,
  location: string,
  pageToken: string | undefined,
): Promise<{ localPosts: LocalPost[]; nextPageToken?: string }> {
  const body = (
    await call(http, {
      method: 'GET',
      path: `/v4/${location}/localPosts`,
      bearer,
      query: { pageSize: 100, pageToken },
    })
  ).json<{ localPosts?: LocalPost[]; nextPageToken?: string }>();
  return { localPosts: body.localPosts ?? [], nextPageToken: body.nextPageToken };
}

export async function deleteLocalPost(http: PlatformHttp, bearer: string, name: string): Promise<void> {
  await call(http, { method: 'DELETE', path: `/v4/${name}`, bearer });
}
