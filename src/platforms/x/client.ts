// X API v2 endpoints Herald calls, one function each (docs/platforms/x.md "Calls"). No decisions here: a non-2xx
// answer becomes a PlatformError through X's error table.
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { X_ERRORS } from './errors.ts';

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) throw classify(res, X_ERRORS, 'X');
  return res;
}

export interface XTweetData {
  id: string;
  text: string;
  created_at?: string;
  referenced_tweets?: Array<{ type: string; id: string }>;
  /** Media keys are `<type>_<media id>` (3_ photo, 7_ video, 16_ GIF). */
  attachments?: { media_keys?: string[] };
}

export async function createTweet(
  http: PlatformHttp,
  token: string,
  body: Record<string, unknown>,
): Promise<XTweetData> {
  const res = await call(http, { method: 'POST', path: '/2/tweets', bearer: token, json: body });
  return res.json<{ data: XTweetData }>().data;
}

/** A post's counts (docs/platforms/x.md "Metrics and inbox"); `non_public_metrics` only for the author's posts ≤ 30 days. */
export interface XTweetMetrics {
  public_metrics?: {
    retweet_count: number;
    reply_count: number;
    like_count: number;
    quote_count: number;
    bookmark_count?: number;
    impression_count?: number;
  };
  non_public_metrics?: { impression_count?: number; url_link_clicks?: number; user_profile_clicks?: number };
}

/** One post with its metrics fields; X answers 200 with `errors` and no `data` for a post it does not have. */
export async function tweetMetrics(
  http: PlatformHttp,
  token: string,
  id: string,
  fields: string,
): Promise<XTweetMetrics | undefined> {
  const res = await call(http, {
    method: 'GET',
    path: `/2/tweets/${encodeURIComponent(id)}`,
    bearer: token,
    query: { 'tweet.fields': fields },
  });
  return res.json<{ data?: XTweetMetrics }>().data;
}

export async function deleteTweet(http: PlatformHttp, token: string, id: string): Promise<void> {
  await call(http, { method: 'DELETE', path: `/2/tweets/${encodeURIComponent(id)}`, bearer: token });
}

/** One page of a user's posts, newest first (GET /2/users/:id/tweets). */
export async function userTweets(
  http: PlatformHttp,
  token: string,
  userId: string,
  query: { start_time: string; pagination_token?: string },
): Promise<{ data: XTweetData[]; next: string | undefined }> {
  const res = await call(http, {
    method: 'GET',
    path: `/2/users/${encodeURIComponent(userId)}/tweets`,
    bearer: token,
    query: {
      max_results: 100,
      'tweet.fields': 'created_at,referenced_tweets,conversation_id,attachments',
      start_time: query.start_time,
      pagination_token: query.pagination_token,
    },
  });
  const body = res.json<{ data?: XTweetData[]; meta?: { next_token?: string } }>();
  return { data: body.data ?? [], next: body.meta?.next_token };
}

export async function me(
  http: PlatformHttp,
  token: string,
): Promise<{ id: string; username: string; name: string; profile_image_url?: string }> {
  const res = await call(http, {
    method: 'GET',
    path: '/2/users/me',
    bearer: token,
    query: { 'user.fields': 'profile_image_url' },
  });
  return res.json<{ data: { id: string; username: string; name: string; profile_image_url?: string } }>().data;
}

export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

/** Basic auth for a confidential client, `client_id` in the form for a public one. */
function clientAuth(
  client: { id: string; secret: string | undefined },
  form: Record<string, string>,
): { headers: Record<string, string>; form: Record<string, string> } {
  if (client.secret)
    return {
      headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
      form,
    };
  return { headers: {}, form: { ...form, client_id: client.id } };
}

/** POST /2/oauth2/token (code exchange and refresh). */
export async function token(
  http: PlatformHttp,
  client: { id: string; secret: string | undefined },
  form: Record<string, string>,
): Promise<TokenAnswer> {
  const res = await call(http, { method: 'POST', path: '/2/oauth2/token', ...clientAuth(client, form) });
  return res.json<TokenAnswer>();
}

/** POST /2/oauth2/revoke. */
export async function revoke(
  http: PlatformHttp,
  client: { id: string; secret: string | undefined },
  form: { token: string; token_type_hint: string },
): Promise<void> {
  await call(http, { method: 'POST', path: '/2/oauth2/revoke', ...clientAuth(client, form) });
}
