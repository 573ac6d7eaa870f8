// Talking to a Meta Graph host (graph.facebook.com, graph.instagram.com, graph.threads.net): versioned paths
// (`/v23.0/...`, the version from HERALD_META_GRAPH_VERSION; Threads has its own `v1.0`), the access token as
// the `access_token` parameter the way Meta documents every call, POST parameters form-encoded, failures through
// the shared Graph error table, the usage headers (X-App-Usage, X-Business-Use-Case-Usage) read for throttles,
// and the container status polling Instagram and Threads publishing both need (docs/platforms/meta-graph.md "Calls").
import { sleep } from '../classify.ts';
import type { IncomingHttpHeaders } from 'node:http';
import type { PlatformHttp, PlatformResponse } from '../http-contract.ts';
import { PlatformError } from '../types.ts';
import { classifyGraphError, type GraphErrorRule } from './graph-errors.ts';

/** The Graph API version Herald speaks when configuration says nothing (docs/platforms/meta-graph.md "Calls"). */
export const DEFAULT_GRAPH_VERSION = 'v23.0';

export function isGraphVersion(value: string): boolean {
  return /^v\d{1,3}\.\d{1,2}$/.test(value);
}

export type GraphParams = Record<string, string | number | boolean | undefined>;

export interface GraphCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path without the version: `/me`, `/{ig-user-id}/media`. */
  path: string;
  /** Query parameters for GET and DELETE, the form body for POST. */
  params?: GraphParams;
  /** The access token, sent as the `access_token` parameter. */
  token?: string;
  /** No version prefix (token endpoints such as `/oauth/access_token` on api.instagram.com, `/access_token`). */
  unversioned?: boolean;
  timeoutMs?: number;
}

export interface GraphClient {
  readonly version: string | null;
  readonly http: PlatformHttp;
  /** The versioned path of `path`. */
  path(path: string): string;
  /** Sends a call; a non-2xx answer becomes a PlatformError through the Graph error table. */
  call<T = Record<string, unknown>>(call: GraphCall): Promise<T>;
  /** Sends a call and returns the raw answer, whatever its status (look-ups that treat 404 as "not there"). */
  raw(call: GraphCall): Promise<PlatformResponse>;
}

export interface GraphClientOptions {
  http: PlatformHttp;
  /** `v23.0`; null for hosts without versions. */
  version: string | null;
  /** The platform's display name, for messages ("Instagram answered 400: …"). */
  platform: string;
  /** Rows put in front of the shared table. */
  errors?: readonly GraphErrorRule[];
}

function stringParams(params: GraphParams | undefined, token: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {})) if (value !== undefined) out[key] = String(value);
  if (token !== undefined) out.access_token = token;
  return out;
}

export function createGraphClient(options: GraphClientOptions): GraphClient {
  const prefix = options.version ? `/${options.version}` : '';
  const versioned = (path: string) => `${prefix}${path.startsWith('/') ? '' : '/'}${path}`;
  const raw = (call: GraphCall) => {
    const params = stringParams(call.params, call.token);
    const path = call.unversioned ? call.path : versioned(call.path);
    return options.http.request(
      call.method === 'POST'
        ? { method: 'POST', path, form: params, timeoutMs: call.timeoutMs }
        : { method: call.method, path, query: params, timeoutMs: call.timeoutMs },
    );
  };
  return {
    version: options.version,
    http: options.http,
    path: versioned,
    raw,
    async call<T>(call: GraphCall): Promise<T> {
      const res = await raw(call);
      if (res.status < 200 || res.status > 299)
        throw classifyGraphError(res, options.platform, options.errors ?? [], graphUsage(res.headers).regainAccessMs);
      return res.json<T>();
    },
  };
}

export interface GraphUsage {
  /** The highest percentage any usage header reports (call count, CPU time, total time). */
  highestPercent: number | undefined;
  /** Business Use Case throttling: how long until calls are accepted again. */
  regainAccessMs: number | undefined;
}

function parseJsonHeader(headers: IncomingHttpHeaders, name: string): unknown {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The items of a paged Graph edge, page after page: follows `paging.cursors.after` while the answer has
 * `paging.next`, reading at most `maxPages` pages. `call.params` carries the page size and filters.
 */
export async function graphPages<T>(g: GraphClient, call: GraphCall, maxPages: number): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const answer = await g.call<{ data?: T[]; paging?: { next?: string; cursors?: { after?: string } } }>({
      ...call,
      params: { ...call.params, after },
    });
    items.push(...(answer.data ?? []));
    if (!answer.paging?.next || !answer.paging.cursors?.after) break;
    after = answer.paging.cursors.after;
  }
  return items;
}

/** A Graph timestamp (`2025-01-01T12:00:00+0000`) in ms since the epoch; undefined when missing or unreadable. */
export function graphTimeMs(timestamp: string | undefined): number | undefined {
  if (!timestamp) return undefined;
  const ms = Date.parse(timestamp.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Meta's usage headers: `X-App-Usage` / `X-Page-Usage` (`{"call_count":28,"total_cputime":25,"total_time":25}`,
 * percentages) and `X-Business-Use-Case-Usage` (`{"<id>":[{"type":"instagram","call_count":…,
 * "estimated_time_to_regain_access":<minutes>}]}`).
 */
export function graphUsage(headers: IncomingHttpHeaders): GraphUsage {
  let highest: number | undefined;
  let regainMinutes: number | undefined;
  const take = (entry: unknown) => {
    if (!entry || typeof entry !== 'object') return;
    const e = entry as Record<string, unknown>;
    for (const key of ['call_count', 'total_cputime', 'total_time', 'acc_id_util_pct']) {
      const v = e[key];
      if (typeof v === 'number' && Number.isFinite(v)) highest = Math.max(highest ?? 0, v);
    }
    const regain = e.estimated_time_to_regain_access;
    if (typeof regain === 'number' && regain > 0) regainMinutes = Math.max(regainMinutes ?? 0, regain);
  };
  take(parseJsonHeader(headers, 'x-app-usage'));
  take(parseJsonHeader(headers, 'x-page-usage'));
  const buc = parseJsonHeader(headers, 'x-business-use-case-usage');
  if (buc && typeof buc === 'object')
    for (const list of Object.values(buc as Record<string, unknown>)) if (Array.isArray(list)) list.forEach(take);
  return { highestPercent: highest, regainAccessMs: regainMinutes !== undefined ? regainMinutes * 60_000 : undefined };
}

/** A media container's life (Instagram `status_code`, Threads `status`). */
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
export const CONTAINER_STATUSES: readonly ContainerStatus[] = [
  'IN_PROGRESS',
  'FINISHED',
  'PUBLISHED',
  'ERROR',
  'EXPIRED',
];

export interface ContainerState {
  status: ContainerStatus;
  /** What the platform says about an ERROR (Instagram's `status`, Threads' `error_message`). */
  detail: string | null;
}

export interface ContainerPollOptions {
  /** Waits between reads; the last repeats. Default 0.25 s, 0.5 s, 1 s, 2 s, then every 3 s. */
  intervalsMs?: readonly number[];
  /** Give up after this long. Default 5 minutes (Meta: poll "for no more than 5 minutes"). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const DEFAULT_INTERVALS = [250, 500, 1000, 2000, 3000];

/**
 * Whether an ERROR container failed because Meta could not fetch the media (worth a new try) rather than refused it.
 */
export function isFetchFailure(detail: string | null): boolean {
  return detail !== null && /2207052|2207003|9004|could not be fetched|FAILED_DOWNLOADING|DOWNLOAD|fetch/i.test(detail);
}

/** The PlatformError of a container that ended in ERROR or EXPIRED. */
export function containerFailure(platform: string, containerId: string, state: ContainerState): PlatformError {
  const detail = state.detail ? `: ${state.detail}` : '';
  if (state.status === 'EXPIRED') {
    return new PlatformError(
      'transient',
      'PLATFORM_UNAVAILABLE',
      `${platform} media container ${containerId} expired before it was published (containers live 24 hours); a new one is needed.`,
    );
  }
  if (isFetchFailure(state.detail)) {
    return new PlatformError(
      'transient',
      'PLATFORM_UNAVAILABLE',
      `${platform} could not fetch the media of container ${containerId}${detail}`,
    );
  }
  return new PlatformError(
    'media_rejected',
    'PLATFORM_MEDIA_REJECTED',
    `${platform} failed to process the media of container ${containerId}${detail}`,
  );
}

/**
 * Reads a container until it leaves IN_PROGRESS; returns the FINISHED (or PUBLISHED) state, throws the
 * container's failure for ERROR and EXPIRED, and a transient error when it is still processing at the deadline.
 */
export async function waitForContainer(
  platform: string,
  containerId: string,
  read: () => Promise<ContainerState>,
  options: ContainerPollOptions = {},
): Promise<ContainerState> {
  const intervals = options.intervalsMs && options.intervalsMs.length > 0 ? options.intervalsMs : DEFAULT_INTERVALS;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const wait = options.sleep ?? sleep;
  const now = options.now ?? Date.now;
  const deadline = now() + timeoutMs;
  for (let i = 0; ; i++) {
    const state = await read();
    if (state.status === 'FINISHED' || state.status === 'PUBLISHED') return state;
    if (state.status === 'ERROR' || state.status === 'EXPIRED') throw containerFailure(platform, containerId, state);
    const pause = intervals[Math.min(i, intervals.length - 1)]!;
    if (now() + pause > deadline) {
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `${platform} was still processing media container ${containerId} after ${Math.round(timeoutMs / 1000)} s; it will be checked again.`,
      );
    }
    await wait(pause);
  }
}

/** A container state from a status read (`status_code` on Instagram, `status` on Threads). */
export function containerStateOf(
  body: Record<string, unknown>,
  statusField: 'status_code' | 'status',
  detailField: 'status' | 'error_message',
): ContainerState {
  const raw = body[statusField];
  const status =
    typeof raw === 'string' && (CONTAINER_STATUSES as readonly string[]).includes(raw)
      ? (raw as ContainerStatus)
      : undefined;
  if (!status)
    throw new PlatformError(
      'transient',
      'PLATFORM_UNAVAILABLE',
      `The container status read had no known ${statusField} (got ${JSON.stringify(raw)}).`,
    );
  const detail = statusField === detailField ? null : body[detailField];
  return { status, detail: typeof detail === 'string' && detail ? detail : null };
}
