// Instagram Graph endpoints Herald calls (docs/platforms/instagram.md "Calls", Instagram Login host
// graph.instagram.com), one function each. No decisions here: failures are PlatformErrors from the shared Graph error
// table.
import type { GraphClient, GraphParams } from '../meta/graph.ts';
import { containerStateOf, type ContainerState } from '../meta/graph.ts';

export interface IgMediaNode {
  id: string;
  caption?: string;
  timestamp?: string;
  permalink?: string;
  shortcode?: string;
  /** IMAGE, VIDEO or CAROUSEL_ALBUM. */
  media_type?: string;
  media_product_type?: string;
}

export async function createContainer(
  g: GraphClient,
  token: string,
  userId: string,
  params: GraphParams,
): Promise<string> {
  return (await g.call<{ id: string }>({ method: 'POST', path: `/${userId}/media`, params, token })).id;
}

export async function containerState(g: GraphClient, token: string, containerId: string): Promise<ContainerState> {
  const body = await g.call({
    method: 'GET',
    path: `/${containerId}`,
    params: { fields: 'status_code,status' },
    token,
  });
  return containerStateOf(body, 'status_code', 'status');
}

export async function publishContainer(
  g: GraphClient,
  token: string,
  userId: string,
  containerId: string,
): Promise<string> {
  return (
    await g.call<{ id: string }>({
      method: 'POST',
      path: `/${userId}/media_publish`,
      params: { creation_id: containerId },
      token,
    })
  ).id;
}

export async function publishingLimit(
  g: GraphClient,
  token: string,
  userId: string,
): Promise<{ usage: number; total: number | undefined }> {
  const body = await g.call<{ data?: Array<{ quota_usage?: number; config?: { quota_total?: number } }> }>({
    method: 'GET',
    path: `/${userId}/content_publishing_limit`,
    params: { fields: 'quota_usage,config' },
    token,
  });
  const entry = body.data?.[0];
  return { usage: entry?.quota_usage ?? 0, total: entry?.config?.quota_total };
}

const MEDIA_FIELDS = 'id,caption,timestamp,permalink,shortcode,media_type,media_product_type';

export async function mediaNode(g: GraphClient, token: string, mediaId: string): Promise<IgMediaNode> {
  return g.call<IgMediaNode>({ method: 'GET', path: `/${mediaId}`, params: { fields: MEDIA_FIELDS }, token });
}

/** The account's recent media (newest first) or its live stories. */
export async function recentMedia(
  g: GraphClient,
  token: string,
  userId: string,
  edge: 'media' | 'stories',
): Promise<IgMediaNode[]> {
  const body = await g.call<{ data?: IgMediaNode[] }>({
    method: 'GET',
    path: `/${userId}/${edge}`,
    params: { fields: MEDIA_FIELDS, limit: 50 },
    token,
  });
  return body.data ?? [];
}

export async function comment(g: GraphClient, token: string, mediaId: string, message: string): Promise<string> {
  return (await g.call<{ id: string }>({ method: 'POST', path: `/${mediaId}/comments`, params: { message }, token }))
    .id;
}

export async function me(g: GraphClient, token: string): Promise<{ user_id: string; username: string; name?: string }> {
  const body = await g.call<{ id: string; user_id?: string; username: string; name?: string }>({
    method: 'GET',
    path: '/me',
    params: { fields: 'user_id,username,name' },
    token,
  });
  return { user_id: body.user_id ?? body.id, username: body.username, name: body.name };
}

export interface IgComment {
  id: string;
  text?: string;
  username?: string;
  timestamp?: string;
}

export async function comments(g: GraphClient, token: string, mediaId: string): Promise<IgComment[]> {
  const body = await g.call<{ data?: IgComment[] }>({
    method: 'GET',
    path: `/${mediaId}/comments`,
    params: { fields: 'id,text,username,timestamp' },
    token,
  });
  return body.data ?? [];
}

/** Lifetime insights of one media item, by metric name. */
export async function insights(
  g: GraphClient,
  token: string,
  mediaId: string,
  metrics: string[],
): Promise<Record<string, number | undefined>> {
  const body = await g.call<{
    data?: Array<{ name: string; values?: Array<{ value?: number }>; total_value?: { value?: number } }>;
  }>({ method: 'GET', path: `/${mediaId}/insights`, params: { metric: metrics.join(',') }, token });
  return Object.fromEntries((body.data ?? []).map((d) => [d.name, d.values?.[0]?.value ?? d.total_value?.value]));
}
