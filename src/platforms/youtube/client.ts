// The YouTube Data API v3 and Google OAuth endpoints Herald calls, one function each (docs/platforms/youtube.md
// "Calls"). Errors go through the table in errors.ts, with Google's own message; a quotaExceeded answer waits for
// the quota day's end (midnight Pacific), which no header states.
import { classify } from '../classify.ts';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from '../http-contract.ts';
import { PlatformError } from '../types.ts';
import { GOOGLE_REVOKE_URL, GOOGLE_TOKEN_URL, type GoogleTokenAnswer } from '../google/oauth.ts';
import { YOUTUBE_ERRORS } from './errors.ts';
import { nextPacificMidnight } from './quota.ts';

/**
 * A PUT of bytes gets a deadline scaled to its size: 10 s for YouTube's own work, plus the time the bytes take at a
 * slow 128 kB/s (an 8 MiB chunk: 76 s). A fixed long deadline would make every lost answer wait minutes.
 */
export function uploadDeadlineMs(bytes: number): number {
  return 10_000 + Math.ceil(bytes / 128);
}
const UPLOAD_PATH = '/upload/youtube/v3/videos';

/** Google's message (`error.message`), else the body as classify reads it. */
function googleMessage(res: PlatformResponse): string | undefined {
  try {
    const body = JSON.parse(res.text()) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : undefined;
  } catch {
    return undefined;
  }
}

export function youtubeError(res: PlatformResponse, now = Date.now()): PlatformError {
  const base = classify(res, YOUTUBE_ERRORS, 'YouTube');
  const message = googleMessage(res);
  const quota = res.status === 403 && /"reason":\s*"quotaExceeded"/.test(res.text());
  return new PlatformError(
    base.kind,
    base.code,
    message ? `YouTube answered ${res.status}: ${message}` : base.message,
    {
      platformStatus: base.platformStatus,
      platformBody: base.platformBody,
      // The daily quota comes back at midnight Pacific time, not sooner: never retried before then.
      retryAfterMs: quota ? nextPacificMidnight(now) - now : base.retryAfterMs,
    },
  );
}

export async function call(http: PlatformHttp, request: PlatformRequest): Promise<PlatformResponse> {
  const res = await http.request(request);
  if (res.status >= 400) throw youtubeError(res);
  return res;
}

export type TokenAnswer = GoogleTokenAnswer;

/** Google's token endpoint, or the simulator's own path for a sandbox connection. */
export async function token(http: PlatformHttp, sandbox: boolean, form: Record<string, string>): Promise<TokenAnswer> {
  const path = sandbox ? '/token' : GOOGLE_TOKEN_URL;
  return (await call(http, { method: 'POST', path, form })).json<TokenAnswer>();
}

export async function revoke(http: PlatformHttp, sandbox: boolean, token: string): Promise<void> {
  await call(http, { method: 'POST', path: sandbox ? '/revoke' : GOOGLE_REVOKE_URL, form: { token } });
}

export interface Channel {
  id: string;
  snippet: { title: string; customUrl?: string; thumbnails?: { default?: { url?: string } } };
  contentDetails: { relatedPlaylists: { uploads: string } };
}

/** channels.list?mine=true: the signed-in user's channel (1 unit). */
export async function myChannel(http: PlatformHttp, token: string): Promise<Channel> {
  const res = await call(http, {
    method: 'GET',
    path: '/youtube/v3/channels',
    bearer: token,
    query: { part: 'snippet,contentDetails', mine: 'true' },
  });
  const channel = res.json<{ items?: Channel[] }>().items?.[0];
  if (!channel)
    throw new PlatformError(
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
      'The Google account has no YouTube channel; create one before connecting it.',
    );
  return channel;
}

export interface Video {
  id: string;
  snippet?: { publishedAt: string; title: string; description: string };
  status?: {
    uploadStatus: 'uploaded' | 'processed' | 'failed' | 'rejected' | 'deleted';
    failureReason?: string;
    rejectionReason?: string;
  };
  processingDetails?: { processingStatus: 'processing' | 'succeeded' | 'failed' | 'terminated' };
  statistics?: { viewCount?: string; likeCount?: string; commentCount?: string };
}

/** What the video resource sent with the session start says (snippet and status). */
export interface VideoResource {
  snippet: { title: string; description: string; tags?: string[]; categoryId: string };
  status: { privacyStatus: string; selfDeclaredMadeForKids: boolean };
}

/** videos.insert, resumable: starts the session and answers its URI (`Location`). Costs the insert's units. */
export async function startUpload(
  http: PlatformHttp,
  token: string,
  input: { resource: VideoResource; size: number; contentType: string; notifySubscribers: boolean },
): Promise<string> {
  const res = await call(http, {
    method: 'POST',
    path: UPLOAD_PATH,
    bearer: token,
    query: {
      uploadType: 'resumable',
      part: 'snippet,status',
      ...(!input.notifySubscribers && { notifySubscribers: 'false' }),
    },
    headers: { 'x-upload-content-length': String(input.size), 'x-upload-content-type': input.contentType },
    json: input.resource,
  });
  const location = res.headers.location;
  if (typeof location !== 'string' || !/^https?:\/\//.test(location))
    throw new PlatformError('transient', 'PLATFORM_UNAVAILABLE', 'YouTube started no upload session (no Location).', {
      platformStatus: res.status,
    });
  return location;
}

/** Where a session stands: the video once the last byte is in, else how many bytes it holds; `gone` when expired. */
export type SessionState = { done: Video } | { held: number } | { gone: true };

function sessionState(res: PlatformResponse): SessionState {
  if (res.status === 200 || res.status === 201) return { done: res.json<Video>() };
  if (res.status === 308) {
    // `Range: bytes=0-N`: N+1 bytes held; no Range: none yet.
    const range = /bytes=0-(\d+)/.exec(String(res.headers.range ?? ''));
    return { held: range ? Number(range[1]) + 1 : 0 };
  }
  if (res.status === 404 || res.status === 410) return { gone: true };
  throw youtubeError(res);
}

/** One PUT of bytes to the session (`Content-Range: bytes start-end/total`). */
export async function putChunk(
  http: PlatformHttp,
  session: string,
  token: string,
  chunk: { data: Buffer; start: number; total: number; contentType: string },
): Promise<SessionState> {
  const end = chunk.start + chunk.data.length - 1;
  const res = await http.request({
    method: 'PUT',
    path: session,
    bearer: token,
    headers: { 'content-range': `bytes ${chunk.start}-${end}/${chunk.total}` },
    body: { data: chunk.data, contentType: chunk.contentType },
    timeoutMs: uploadDeadlineMs(chunk.data.length),
  });
  return sessionState(res);
}

/** The status query: an empty PUT with `Content-Range: bytes * /total` (no bytes change hands). */
export async function uploadStatus(http: PlatformHttp, session: string, token: string, total: number) {
  const res = await http.request({
    method: 'PUT',
    path: session,
    bearer: token,
    headers: { 'content-range': `bytes */${total}` },
    body: { data: Buffer.alloc(0), contentType: 'application/octet-stream' },
  });
  return sessionState(res);
}

/** videos.list by id with the parts asked for (1 unit). */
export async function videos(http: PlatformHttp, token: string, ids: string[], part: string): Promise<Video[]> {
  const res = await call(http, {
    method: 'GET',
    path: '/youtube/v3/videos',
    bearer: token,
    query: { part, id: ids.join(',') },
  });
  return res.json<{ items?: Video[] }>().items ?? [];
}

export async function deleteVideo(http: PlatformHttp, token: string, id: string): Promise<void> {
  await call(http, { method: 'DELETE', path: '/youtube/v3/videos', bearer: token, query: { id } });
}

export interface PlaylistItem {
  snippet: { publishedAt: string; title: string; description: string; resourceId: { videoId: string } };
}

/** The newest items of a playlist (the channel's uploads), up to 50 (1 unit). */
export async function playlistItems(http: PlatformHttp, token: string, playlistId: string): Promise<PlaylistItem[]> {
  const res = await call(http, {
    method: 'GET',
    path: '/youtube/v3/playlistItems',
    bearer: token,
    query: { part: 'snippet', playlistId, maxResults: 50 },
  });
  return res.json<{ items?: PlaylistItem[] }>().items ?? [];
}
