// Graph API calls of the Facebook Pages adapter, one function each (docs/platforms/facebook.md "Calls"). Plain calls go
// through the shared Graph client (versioned paths, `access_token`, the error table); byte uploads are multipart.
import { createGraphClient, DEFAULT_GRAPH_VERSION, graphPages, graphUsage, type GraphClient } from '../meta/graph.ts';
import { classifyGraphError } from '../meta/graph-errors.ts';
import type { MultipartFile, PlatformHttp } from '../http-contract.ts';
import { FACEBOOK_ERRORS } from './errors.ts';

/** The Graph host of real Page connections (uploads too: graph-video.facebook.com is deprecated in its favour). */
export const FACEBOOK_GRAPH_URL = 'https://graph.facebook.com';

export const UPLOAD_TIMEOUT_MS = 5 * 60_000; // requests that carry bytes get far longer than the API calls' deadline

export function graph(http: PlatformHttp, version: string | undefined): GraphClient {
  return createGraphClient({
    http,
    version: version ?? DEFAULT_GRAPH_VERSION,
    platform: 'Facebook',
    errors: FACEBOOK_ERRORS,
  });
}

/** A multipart POST (photo `source`, video `video_file_chunk`) with the token as a form field. */
export async function upload<T>(
  g: GraphClient,
  path: string,
  token: string,
  fields: Record<string, string | MultipartFile>,
): Promise<T> {
  const res = await g.http.request({
    method: 'POST',
    path: g.path(path),
    multipart: { ...fields, access_token: token },
    timeoutMs: UPLOAD_TIMEOUT_MS,
  });
  if (res.status < 200 || res.status > 299)
    throw classifyGraphError(res, 'Facebook', FACEBOOK_ERRORS, graphUsage(res.headers).regainAccessMs);
  return res.json<T>();
}

export interface FeedItem {
  id: string;
  message?: string;
  created_time?: string;
  /** What the post carries: one photo or video, or an album whose photos are its subattachments. */
  attachments?: { data?: Array<{ type?: string; subattachments?: { data?: unknown[] } }> };
}

/** How many media a feed post carries (an album counts its photos). */
export function feedMediaCount(item: FeedItem): number {
  const first = item.attachments?.data?.[0];
  if (!first) return 0;
  return first.subattachments?.data?.length ?? 1;
}

/** The Page's feed, newest first, from `since` (Unix seconds), at most `maxPages` pages of 100. */
export function feed(
  g: GraphClient,
  token: string,
  pageId: string,
  since: number,
  maxPages: number,
): Promise<FeedItem[]> {
  return graphPages<FeedItem>(
    g,
    {
      method: 'GET',
      path: `/${encodeURIComponent(pageId)}/feed`,
      token,
      params: { fields: 'id,message,created_time,attachments', limit: 100, since },
    },
    maxPages,
  );
}

export interface VideoState {
  id: string;
  published?: boolean;
  post_id?: string;
  status?: { video_status?: string; processing_phase?: { status?: string; errors?: Array<{ message?: string }> } };
}

export function video(g: GraphClient, token: string, id: string, fields: string): Promise<VideoState> {
  return g.call<VideoState>({ method: 'GET', path: `/${encodeURIComponent(id)}`, token, params: { fields } });
}
