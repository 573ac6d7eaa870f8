// Threads endpoints Herald calls (docs/platforms/threads.md "Calls", host graph.threads.net, version v1.0), one
// function each. No decisions here: failures are PlatformErrors from the shared Graph error table.
import {
  containerStateOf,
  graphPages,
  type ContainerState,
  type GraphClient,
  type GraphParams,
} from '../meta/graph.ts';

export interface ThreadsNode {
  id: string;
  text?: string;
  timestamp?: string;
  permalink?: string;
  shortcode?: string;
  username?: string;
  replied_to?: { id: string };
  /** TEXT_POST, IMAGE, VIDEO or CAROUSEL_ALBUM. */
  media_type?: string;
}

export async function createContainer(
  g: GraphClient,
  token: string,
  userId: string,
  params: GraphParams,
): Promise<string> {
  return (await g.call<{ id: string }>({ method: 'POST', path: `/${userId}/threads`, params, token })).id;
}

export async function containerState(g: GraphClient, token: string, containerId: string): Promise<ContainerState> {
  const body = await g.call({
    method: 'GET',
    path: `/${containerId}`,
    params: { fields: 'status,error_message' },
    token,
  });
  return containerStateOf(body, 'status', 'error_message');
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
      path: `/${userId}/threads_publish`,
      params: { creation_id: containerId },
      token,
    })
  ).id;
}

export interface ThreadsQuota {
  posts: { usage: number; total: number | undefined };
  replies: { usage: number; total: number | undefined };
}

export async function publishingLimit(g: GraphClient, token: string, userId: string): Promise<ThreadsQuota> {
  type Entry = {
    quota_usage?: number;
    config?: { quota_total?: number };
    reply_quota_usage?: number;
    reply_config?: { quota_total?: number };
  };
  const body = await g.call<{ data?: Entry[] }>({
    method: 'GET',
    path: `/${userId}/threads_publishing_limit`,
    params: { fields: 'quota_usage,config,reply_quota_usage,reply_config' },
    token,
  });
  const e = body.data?.[0] ?? {};
  return {
    posts: { usage: e.quota_usage ?? 0, total: e.config?.quota_total },
    replies: { usage: e.reply_quota_usage ?? 0, total: e.reply_config?.quota_total },
  };
}

const FIELDS = 'id,text,timestamp,permalink,shortcode,username,replied_to,media_type';

export async function node(g: GraphClient, token: string, id: string): Promise<ThreadsNode> {
  return g.call<ThreadsNode>({ method: 'GET', path: `/${id}`, params: { fields: FIELDS }, token });
}

/**
 * Pages of 100 followed at most, so 1,000 items: the reply quota of a whole day, and far more than a look-up's window.
 */
const RECENT_PAGES = 10;

/**
 * The account's posts (`threads`) or replies (`replies`) since `sinceSeconds`, newest first, following the
 * edge's cursor: a busy account publishes more than one page within a look-up's window, and the part looked
 * for may be on a later page.
 */
export function recent(
  g: GraphClient,
  token: string,
  userId: string,
  edge: 'threads' | 'replies',
  sinceSeconds: number,
): Promise<ThreadsNode[]> {
  return graphPages<ThreadsNode>(
    g,
    { method: 'GET', path: `/${userId}/${edge}`, params: { fields: FIELDS, since: sinceSeconds, limit: 100 }, token },
    RECENT_PAGES,
  );
}

export async function remove(g: GraphClient, token: string, id: string): Promise<void> {
  await g.call({ method: 'DELETE', path: `/${id}`, token });
}

export async function me(g: GraphClient, token: string): Promise<{ id: string; username: string; name?: string }> {
  return g.call<{ id: string; username: string; name?: string }>({
    method: 'GET',
    path: '/me',
    params: { fields: 'id,username,name' },
    token,
  });
}

/** The direct replies to a post (GET /{threads-media-id}/replies). */
export async function repliesTo(g: GraphClient, token: string, id: string): Promise<ThreadsNode[]> {
  const body = await g.call<{ data?: ThreadsNode[] }>({
    method: 'GET',
    path: `/${id}/replies`,
    params: { fields: FIELDS },
    token,
  });
  return body.data ?? [];
}

/** Lifetime insights of one post, by metric name. */
export async function insights(
  g: GraphClient,
  token: string,
  id: string,
  metrics: string[],
): Promise<Record<string, number | undefined>> {
  const body = await g.call<{
    data?: Array<{ name: string; values?: Array<{ value?: number }>; total_value?: { value?: number } }>;
  }>({ method: 'GET', path: `/${id}/insights`, params: { metric: metrics.join(',') }, token });
  return Object.fromEntries((body.data ?? []).map((d) => [d.name, d.values?.[0]?.value ?? d.total_value?.value]));
}
