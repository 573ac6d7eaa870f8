// Meta pulls media from the URL it is given ("We will cURL your image using the URL provided so it must be on a
// public server", docs/platforms/meta-graph.md "Calls"), and so do the Meta simulators: a real HTTP GET of
// `image_url` / `video_url`, no redirects, a deadline, the bytes sniffed. A broken or expired URL fails here as it
// fails on the platform.
//
// Unlike Meta, a simulator mounted in Herald runs inside Herald's network, and anyone can get a simulator token: a
// GET of any URL would let an outsider probe what Herald reaches (its own host's other ports above all) and read the
// answer back from the error. So it fetches only the URLs `settings.mediaFetchUrls` describes (Herald sets its own
// signed read URLs; a test sets its media server's origin) and refuses every other one before any connection, with
// one reason that says nothing of the address. Without the setting, nothing is fetched.
import { outboundRequest, OutboundError } from '../../lib/outbound.ts';
import { imageSize, sniff } from '../framework/sniff.ts';

export type FetchedMedia =
  | {
      ok: true;
      contentType: string | undefined;
      size: number;
      width: number | null;
      height: number | null;
      /** The whole body, when it fits in `keepBytes` (what the simulator keeps to show the post). */
      bytes: Buffer | undefined;
    }
  | { ok: false; reason: string };

/** URLs a simulator may fetch media from (`settings.mediaFetchUrls`): one origin and path each. */
export interface MediaUrlRule {
  /** `scheme://host[:port]/path/`: the URL must have exactly this scheme, host and port, and a path under this one. */
  prefix: string;
  /** What the rest of the path must be (Herald's `<workspace>/<media>`); any plain path when absent. */
  path?: RegExp;
  /** Query parameters the URL must carry (Herald's `signature`). */
  query?: readonly string[];
}

const FETCH_TIMEOUT_MS = 10_000;
const HEAD_BYTES = 1024 * 1024;

/** The one reason for every URL that is not fetched at all, whatever it names. */
export const NOT_FETCHABLE = 'the URL is not a media URL this server fetches';

// Plain path segments only: no dot segments, no encoded slashes or other escapes that could mean another path.
const PLAIN_PATH = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;

function rulesOf(settings: Record<string, unknown>): MediaUrlRule[] {
  const rules = settings.mediaFetchUrls;
  return Array.isArray(rules)
    ? rules.filter((r): r is MediaUrlRule => typeof (r as MediaUrlRule)?.prefix === 'string')
    : [];
}

/** True when `url` is one the settings allow: exact scheme, host and port, a path under the prefix, its shape. */
export function mayFetch(url: URL, settings: Record<string, unknown>): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password || url.hash) return false;
  return rulesOf(settings).some((rule) => {
    let prefix: URL;
    try {
      prefix = new URL(rule.prefix);
    } catch {
      return false;
    }
    // URL normalises default ports and the host's case, so `host` (name and port) compares exactly.
    if (url.protocol !== prefix.protocol || url.host !== prefix.host) return false;
    const base = prefix.pathname.endsWith('/') ? prefix.pathname : `${prefix.pathname}/`;
    if (!url.pathname.startsWith(base)) return false;
    const rest = url.pathname.slice(base.length);
    if (!PLAIN_PATH.test(rest) || (rule.path && !rule.path.test(rest))) return false;
    return (rule.query ?? []).every((name) => url.searchParams.get(name));
  });
}

/**
 * GETs a media URL the way Meta's fetcher does; `ok: false` with the reason when it cannot be used. The body is
 * read whole up to `keepBytes` (and returned when it fit), else only its head (type and dimensions).
 */
export async function fetchMedia(
  url: string,
  settings: Record<string, unknown>,
  options: { keepBytes?: number } = {},
): Promise<FetchedMedia> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: NOT_FETCHABLE };
  }
  if (!mayFetch(parsed, settings)) return { ok: false, reason: NOT_FETCHABLE };
  try {
    const res = await outboundRequest({
      method: 'GET',
      url: parsed,
      headers: { 'user-agent': 'facebookexternalhit/1.1 (Herald sandbox)', accept: '*/*' },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxResponseBytes: Math.max(HEAD_BYTES, options.keepBytes ?? 0),
    });
    if (res.status !== 200) return { ok: false, reason: `the URL answered HTTP ${res.status}` };
    const declared = Number(res.headers['content-length']);
    const size = Number.isFinite(declared) && declared > 0 ? declared : res.body.length;
    if (size === 0) return { ok: false, reason: 'the URL returned no bytes' };
    const dims = imageSize(res.body);
    return {
      ok: true,
      contentType: sniff(res.body),
      size,
      width: dims?.width ?? null,
      height: dims?.height ?? null,
      bytes: res.truncated || res.body.length !== size ? undefined : res.body,
    };
  } catch (error) {
    // The kind only (timeout, connect, reset): the message would carry addresses and system errors.
    return {
      ok: false,
      reason: `the URL could not be read (${error instanceof OutboundError ? error.kind : 'error'})`,
    };
  }
}
