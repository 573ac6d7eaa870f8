// The LinkedIn endpoints Herald calls (docs/platforms/linkedin.md "Calls"), one function each. Every /rest call carries
// the configured LinkedIn-Version and X-Restli-Protocol-Version 2.0.0; URNs in paths and queries are URL-encoded. A
// non-2xx answer becomes a PlatformError through LinkedIn's error table.
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { PlatformError } from '../types.ts';
import { LINKEDIN_ERRORS } from './errors.ts';

/** What every API call needs: the HTTP client, the member's token and the API version. */
export interface LiApi {
  http: PlatformHttp;
  token: string;
  version: string;
}

/** Milliseconds to the next midnight UTC, when LinkedIn's daily limits reset. */
export function untilMidnightUtc(now: number): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return next.getTime() - now;
}

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) {
    const error = classify(res, LINKEDIN_ERRORS, 'LinkedIn');
    // LinkedIn sends no rate-limit headers: without a Retry-After, the daily window resets at midnight UTC.
    if (error.kind === 'rate_limited' && error.retryAfterMs === undefined) {
      throw new PlatformError(error.kind, error.code, error.message, {
        platformStatus: error.platformStatus,
        platformBody: error.platformBody,
        retryAfterMs: untilMidnightUtc(Date.now()),
      });
    }
    throw error;
  }
  return res;
}

export function rest(api: LiApi, request: Omit<PlatformRequest, 'bearer'>): Promise<PlatformResponse> {
  return call(api.http, {
    ...request,
    bearer: api.token,
    headers: { 'linkedin-version': api.version, 'x-restli-protocol-version': '2.0.0', ...request.headers },
  });
}

export interface LiPostElement {
  id: string;
  author: string;
  commentary?: string;
  createdAt?: number;
  publishedAt?: number;
  /** One media item (image, video, document) or a multi-image set, by URN. */
  content?: { media?: { id: string }; multiImage?: { images?: Array<{ id: string }> } };
}

/** POST /rest/posts: 201 with the new post's URN in `x-restli-id` (an empty body). */
export async function createPost(api: LiApi, body: Record<string, unknown>): Promise<string> {
  const res = await rest(api, { method: 'POST', path: '/rest/posts', json: body });
  const id = res.headers['x-restli-id'] ?? res.headers['x-linkedin-id'];
  const urn = Array.isArray(id) ? id[0] : id;
  if (!urn) {
    // The post was made but its id is unknown: let reconciliation find it rather than send it again.
    throw new PlatformError(
      'unknown_outcome',
      'PLATFORM_UNKNOWN_OUTCOME',
      `LinkedIn answered ${res.status} without an x-restli-id header.`,
      { platformStatus: res.status },
    );
  }
  return urn;
}

export async function getPost(api: LiApi, urn: string): Promise<LiPostElement> {
  return (await rest(api, { method: 'GET', path: `/rest/posts/${encodeURIComponent(urn)}` })).json<LiPostElement>();
}

export async function deletePost(api: LiApi, urn: string): Promise<void> {
  await rest(api, { method: 'DELETE', path: `/rest/posts/${encodeURIComponent(urn)}` });
}

/** One page of an author's posts, newest first (the `author` finder). */
export async function postsByAuthor(
  api: LiApi,
  author: string,
  start: number,
  count: number,
): Promise<{ elements: LiPostElement[]; total: number | undefined }> {
  const res = await rest(api, {
    method: 'GET',
    path: '/rest/posts',
    query: { author, q: 'author', count, start, sortBy: 'LAST_MODIFIED' },
  });
  const body = res.json<{ elements?: LiPostElement[]; paging?: { total?: number } }>();
  return { elements: body.elements ?? [], total: body.paging?.total };
}

/** Rest.li 2.0 query values: a URN inside `(…)` or `List(…)` is encoded, the syntax around it is not. */
const restliUrn = (urn: string) => encodeURIComponent(urn);

/** Member post analytics report one metric per call (docs/platforms/linkedin.md "Metrics and inbox"). */
export const MEMBER_QUERY_TYPES = ['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT'] as const;
export type MemberQueryType = (typeof MEMBER_QUERY_TYPES)[number];

/**
 * Lifetime total of one metric of the member's own post (`memberCreatorPostAnalytics`, finder `entity`);
 * undefined when the answer carries no count (the metric is then unavailable, never 0).
 */
export async function memberPostMetric(
  api: LiApi,
  urn: string,
  queryType: MemberQueryType,
): Promise<number | undefined> {
  const kind = urn.startsWith('urn:li:ugcPost:') ? 'ugcPost' : 'share';
  const res = await rest(api, {
    method: 'GET',
    path:
      `/rest/memberCreatorPostAnalytics?q=entity&entity=(${kind}:${restliUrn(urn)})` +
      `&queryType=${queryType}&aggregation=TOTAL`,
  });
  // ⚠ unverified answer shape: `elements[].count`, one element for aggregation=TOTAL.
  const elements = res.json<{ elements?: Array<{ count?: number }> }>().elements ?? [];
  const counts = elements.map((e) => e.count).filter((c): c is number => typeof c === 'number');
  return counts.length > 0 ? counts.reduce((sum, c) => sum + c, 0) : undefined;
}

export interface ShareStatistics {
  impressionCount?: number;
  uniqueImpressionsCount?: number;
  clickCount?: number;
  likeCount?: number;
  commentCount?: number;
  shareCount?: number;
}

/** Lifetime statistics of an organization's post (`organizationalEntityShareStatistics`, no time intervals). */
export async function shareStatistics(
  api: LiApi,
  organization: string,
  urn: string,
): Promise<ShareStatistics | undefined> {
  const list = urn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
  const res = await rest(api, {
    method: 'GET',
    path:
      `/rest/organizationalEntityShareStatistics?q=organizationalEntity` +
      `&organizationalEntity=${restliUrn(organization)}&${list}=List(${restliUrn(urn)})`,
  });
  return res.json<{ elements?: Array<{ totalShareStatistics?: ShareStatistics }> }>().elements?.[0]
    ?.totalShareStatistics;
}

export interface UserInfo {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
}

/** GET /v2/userinfo (OpenID; not versioned). */
export async function userInfo(http: PlatformHttp, token: string): Promise<UserInfo> {
  return (await call(http, { method: 'GET', path: '/v2/userinfo', bearer: token })).json<UserInfo>();
}

/** Organizations the member administers (approved ADMINISTRATOR role). */
export async function administeredOrganizations(api: LiApi): Promise<string[]> {
  const res = await rest(api, {
    method: 'GET',
    path: '/rest/organizationAcls',
    query: { q: 'roleAssignee', role: 'ADMINISTRATOR', state: 'APPROVED', count: 100 },
  });
  return (res.json<{ elements?: Array<{ organization?: string }> }>().elements ?? [])
    .map((e) => e.organization)
    .filter((o): o is string => typeof o === 'string');
}

export async function organization(
  api: LiApi,
  id: string,
): Promise<{ id: number; localizedName?: string; vanityName?: string }> {
  return (await rest(api, { method: 'GET', path: `/rest/organizations/${encodeURIComponent(id)}` })).json();
}

export interface TokenAnswer {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_in?: number;
  scope?: string;
}

/** POST /oauth/v2/accessToken on www.linkedin.com (the simulator serves it at the same path). */
export async function token(http: PlatformHttp, url: string, form: Record<string, string>): Promise<TokenAnswer> {
  return (await call(http, { method: 'POST', path: url, form })).json<TokenAnswer>();
}

export async function revoke(http: PlatformHttp, url: string, form: Record<string, string>): Promise<void> {
  await call(http, { method: 'POST', path: url, form });
}
