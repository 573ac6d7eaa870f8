// Meta pulls media from the URL it is given ("We will cURL your image using the URL provided so it must be on a
// public server", docs/platforms/meta-graph.md "Calls"), and so do the Meta simulators: a real HTTP GET of
// `image_url` / `video_url`, no redirects, a deadline, the bytes sniffed. A broken, expired or private URL fails here
// as it fails on the platform. Where the simulator is mounted in Herald, the SSRF guard applies with the allowlist
// given in `settings.mediaFetchAllowlist` (Herald's own public host, so its signed media URLs work); a
// standalone test sandbox (no such setting) fetches from loopback freely.
import { outboundRequest, OutboundError } from '../../lib/outbound.ts';
import { createOutboundGuard, type OutboundGuard } from '../../lib/ssrf.ts';
import { imageSize, sniff } from '../framework/sniff.ts';

export type FetchedMedia =
  | { ok: true; contentType: string | undefined; size: number; width: number | null; height: number | null }
  | { ok: false; reason: string };

const FETCH_TIMEOUT_MS = 10_000;
const HEAD_BYTES = 1024 * 1024;

const guards = new WeakMap<object, OutboundGuard | null>();

/** The guard for a simulator's settings: null (trusted) when no allowlist is configured. */
function guardFor(settings: Record<string, unknown>): OutboundGuard | undefined {
  if (!guards.has(settings)) {
    const list = settings.mediaFetchAllowlist;
    guards.set(
      settings,
      Array.isArray(list)
        ? createOutboundGuard({ allowlist: list.filter((v): v is string => typeof v === 'string') })
        : null,
    );
  }
  return guards.get(settings) ?? undefined;
}

/** GETs a media URL the way Meta's fetcher does; `ok: false` with the reason when it cannot be used. */
export async function fetchMedia(url: string, settings: Record<string, unknown>): Promise<FetchedMedia> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'the URL is not valid' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { ok: false, reason: `the ${parsed.protocol} scheme is not supported` };
  try {
    const res = await outboundRequest({
      method: 'GET',
      url: parsed,
      headers: { 'user-agent': 'facebookexternalhit/1.1 (Herald sandbox)', accept: '*/*' },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxResponseBytes: HEAD_BYTES,
      guard: guardFor(settings),
    });
    if (res.status !== 200) return { ok: false, reason: `the URL answered HTTP ${res.status}` };
    const declared = Number(res.headers['content-length']);
    const size = Number.isFinite(declared) && declared > 0 ? declared : res.body.length;
    if (size === 0) return { ok: false, reason: 'the URL returned no bytes' };
    const dims = imageSize(res.body);
    return { ok: true, contentType: sniff(res.body), size, width: dims?.width ?? null, height: dims?.height ?? null };
  } catch (error) {
    return { ok: false, reason: error instanceof OutboundError ? `${error.kind}: ${error.message}` : String(error) };
  }
}
