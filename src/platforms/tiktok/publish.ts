// Publishing one TikTok post (docs/platforms/tiktok.md "Idempotency"): creator info before each post, the init that
// makes the `publish_id`, recorded with `part.remember` before the call that can publish (a video's upload) or, for
// pulled media whose init itself publishes, at once after it (with `pulled_at` recorded before that init); the upload in chunks (resumed from the bytes TikTok
// reports after a restart); then the status polled until PUBLISH_COMPLETE or FAILED. A recorded publish is always
// carried on, never replaced by a second one, unless TikTok reports it FAILED or it can never complete.
import { sleep } from '../classify.ts';
import { lookupSince, mayBeThisPart } from '../lookup.ts';
import {
  isPlatformError,
  PlatformError,
  type OutgoingPart,
  type PlatformSession,
  type PublishedPart,
} from '../types.ts';
import * as client from './client.ts';
import { limits } from './limits.ts';
import { chunkPlan, failure, photoBody, postUrl, readOptions, videoPostInfo } from './map.ts';
import { chunksFrom, mediaRef, videoSource } from './media.ts';

/** How long one attempt waits for processing and moderation; then a later attempt carries the publish on. */
export const PROCESSING_DEADLINE_MS = 10 * 60_000;
/** The next attempt after a publish still processing, or after an init whose answer was lost. */
const CHECK_AGAIN_MS = 2 * 60_000;
/**
 * How long after a pulled init whose answer was lost the look-up keeps waiting for its post before a re-send is
 * allowed: TikTok lists a post only once moderation is done (usually under a minute, ⚠ unverified: it can take
 * hours). A miss within it is an unknown outcome, looked at again after as long as it has waited so far (at least
 * `PULL_LOOK_FIRST_MS`, at most `PULL_LOOK_AGAIN_MS`: a post out in seconds is adopted in seconds); a miss after it means
 * the init most likely never arrived or its publish failed, and the part is sent again. The window costs a few of
 * the engine's attempts (seven of the default eight when the post never shows), and delays only a post whose init truly got lost.
 */
export const PULL_SETTLE_MS = 15 * 60_000;
const PULL_LOOK_AGAIN_MS = 5 * 60_000;
const PULL_LOOK_FIRST_MS = 10_000;
const MAX_POLL_MS = 2000; // status/fetch: 30 a minute per token

type Kind = 'video' | 'photo';

/** A failure of a call made after the one that may have published: never a refusal (the post may be out). */
export function asUnknown(error: unknown, publishId: string): unknown {
  if (!isPlatformError(error) || error.kind === 'unknown_outcome' || error.kind === 'transient') return error;
  return new PlatformError(
    'unknown_outcome',
    'PLATFORM_UNKNOWN_OUTCOME',
    `TikTok publish ${publishId} may be on its way; reading its status failed (${error.message}). Herald checks it again rather than post twice.`,
    {
      retryAfterMs: error.retryAfterMs ?? CHECK_AGAIN_MS,
      platformStatus: error.platformStatus,
      platformBody: error.platformBody,
    },
  );
}

function published(
  session: PlatformSession,
  publishId: string,
  status: client.PublishStatus,
  kind: Kind,
): PublishedPart {
  const id = status.postIds[0];
  // ⚠ unverified: a completed post without an id (TikTok names the field "publicly available"); the publish id stands
  // in, with the profile as its URL, so the post is recorded once rather than published again.
  if (!id) {
    const handle = session.connection.handle.replace(/^@/, '');
    const base = session.connection.sandbox ? session.connection.baseUrl : 'https://www.tiktok.com';
    return { id: publishId, url: `${base}/@${handle}`, ref: { publish_id: publishId } };
  }
  return { id, url: postUrl(session, id, kind), ref: { publish_id: publishId } };
}

/** Polls the publish until it is out or failed; a refusal of the poll itself is an unknown outcome. */
export async function waitPublished(session: PlatformSession, publishId: string, kind: Kind): Promise<PublishedPart> {
  const deadline = Date.now() + PROCESSING_DEADLINE_MS;
  let delay = 250;
  for (;;) {
    let status: client.PublishStatus;
    try {
      status = await client.publishStatus(session.http, session.credentials.accessToken, publishId);
    } catch (error) {
      throw asUnknown(error, publishId);
    }
    if (status.status === 'PUBLISH_COMPLETE' || status.status === 'SEND_TO_USER_INBOX')
      return published(session, publishId, status, kind);
    if (status.status === 'FAILED') throw failure(publishId, status);
    if (Date.now() > deadline)
      throw new PlatformError(
        'unknown_outcome',
        'PLATFORM_UNKNOWN_OUTCOME',
        `TikTok was still processing publish ${publishId} (${status.status}) after ${PROCESSING_DEADLINE_MS / 60_000} minutes; moderation can take hours, and Herald checks it again.`,
        { retryAfterMs: CHECK_AGAIN_MS },
      );
    await sleep(delay);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

/** Sends the video's chunks from `from` on to the upload URL. */
async function upload(session: PlatformSession, part: OutgoingPart, uploadUrl: string, from: number): Promise<void> {
  const item = part.media.find((m) => m.kind === 'video')!;
  const source = videoSource(item);
  if (!source)
    throw new PlatformError(
      'transient',
      'PLATFORM_UNAVAILABLE',
      'The video to upload to TikTok was not prepared in this attempt.',
    );
  const ref = mediaRef(item);
  for await (const chunk of chunksFrom(await source.open(), source.sizeBytes, from))
    await client.putChunk(session.http, uploadUrl, {
      data: chunk.data,
      first: chunk.first,
      total: source.sizeBytes,
      contentType: ref.k === 'video' ? ref.type : 'video/mp4',
    });
}

/**
 * Carries on the publish an earlier send recorded: done, still processing, or mid-upload (resumed from the bytes TikTok
 * holds). `undefined` when it can never post (FAILED, unknown to TikTok, or an upload URL that expired), so a new
 * publish is safe.
 */
async function resume(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | undefined> {
  const { publish_id: publishId, kind, upload_url: uploadUrl } = part.pending as Record<string, string | undefined>;
  if (!publishId) return undefined;
  const k: Kind = kind === 'photo' ? 'photo' : 'video';
  let status: client.PublishStatus;
  try {
    status = await client.publishStatus(session.http, session.credentials.accessToken, publishId);
  } catch (error) {
    // ⚠ unverified: TikTok answers invalid_params for a publish_id it does not know (expired, never made).
    if (isPlatformError(error) && error.kind === 'invalid_content') return undefined;
    throw asUnknown(error, publishId);
  }
  if (status.status === 'FAILED') return undefined;
  const size = Number(part.pending.size ?? 0);
  if (status.status === 'PROCESSING_UPLOAD' && uploadUrl && size > 0 && (status.uploaded_bytes ?? 0) < size) {
    const { chunkSize } = chunkPlan(size);
    const from = Math.floor((status.uploaded_bytes ?? 0) / chunkSize);
    try {
      await upload(session, part, uploadUrl, from);
    } catch (error) {
      // An upload URL TikTok no longer takes: this publish can never complete, so nothing of it will post.
      if (isPlatformError(error) && error.kind === 'permanent' && error.platformStatus === 404) return undefined;
      throw error;
    }
  }
  return waitPublished(session, publishId, k);
}

/**
 * A pulled post's init: its lost answer may still have made the post, which only a look-up can tell later. Nothing
 * of TikTok's exists before the init to remember (the `publish_id` comes in its answer), so the part records that a
 * pulled init is going out (`pulled_at`) before sending it: the look-up then knows to wait for its post
 * (`PULL_SETTLE_MS`), while a part with no such record (none sent, or TikTok answered the init) re-sends at once.
 */
async function pulledInit(
  session: PlatformSession,
  part: OutgoingPart,
  kind: Kind,
  body: unknown,
): Promise<client.InitAnswer> {
  await part.remember({ kind, pulled_at: session.clock.now().toISOString() });
  try {
    return await client.init(session.http, session.credentials.accessToken, kind, body);
  } catch (error) {
    if (isPlatformError(error) && error.kind === 'unknown_outcome')
      throw new PlatformError(
        'unknown_outcome',
        'PLATFORM_UNKNOWN_OUTCOME',
        `${error.message} TikTok may be pulling the media; Herald looks for the post once it could have published.`,
        {
          retryAfterMs: CHECK_AGAIN_MS,
          cause: error,
        },
      );
    // TikTok answered (an error, a 5xx included): that answer is the outcome, and with no publish_id in it nothing
    // will post (⚠ unverified for a 5xx). The record goes, so the re-send need not wait out the settle window.
    await part.remember({ kind });
    throw error;
  }
}

export async function publishPart(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart> {
  const resumed = await resume(session, part);
  if (resumed) return resumed;
  if (part.media.length === 0)
    throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'A TikTok post needs a video or photos.');
  // Herald's one caption limit for both kinds (a photo caption may be longer on TikTok; limits.ts says why).
  const [tooLong] = limits.text.check(part.text);
  if (tooLong) throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', tooLong.message);
  const token = session.credentials.accessToken;
  const options = readOptions(part.options);
  // Queried before each post, as TikTok requires: the creator's privacy levels, interaction settings and length cap.
  const creator = await client.creatorInfo(session.http, token);
  const video = part.media.find((m) => m.kind === 'video');
  if (!video) {
    const urls = part.media.map((m) => {
      const ref = mediaRef(m);
      return ref.k === 'photo' ? ref.url : '';
    });
    const answer = await pulledInit(session, part, 'photo', photoBody(part.text, creator, options, urls));
    await part.remember({ publish_id: answer.publish_id, kind: 'photo' });
    return waitPublished(session, answer.publish_id, 'photo');
  }
  const ref = mediaRef(video);
  if (ref.k !== 'video')
    throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', 'The TikTok video was not prepared.');
  const postInfo = videoPostInfo(part.text, creator, options, ref.durationMs);
  if (ref.url) {
    const answer = await pulledInit(session, part, 'video', {
      post_info: postInfo,
      source_info: { source: 'PULL_FROM_URL', video_url: ref.url },
    });
    await part.remember({ publish_id: answer.publish_id, kind: 'video' });
    return waitPublished(session, answer.publish_id, 'video');
  }
  const plan = chunkPlan(ref.size);
  // A FILE_UPLOAD init publishes nothing until its last chunk arrives: a lost answer leaves only an empty publish.
  const answer = await client.init(session.http, token, 'video', {
    post_info: postInfo,
    source_info: {
      source: 'FILE_UPLOAD',
      video_size: ref.size,
      chunk_size: plan.chunkSize,
      total_chunk_count: plan.totalChunks,
    },
  });
  if (!answer.upload_url)
    throw new PlatformError(
      'transient',
      'PLATFORM_UNAVAILABLE',
      `TikTok gave no upload URL for publish ${answer.publish_id}.`,
    );
  // Recorded before the first chunk: a restart from here on resumes this upload, never starts a second video.
  await part.remember({
    publish_id: answer.publish_id,
    kind: 'video',
    upload_url: answer.upload_url,
    size: String(ref.size),
  });
  await upload(session, part, answer.upload_url, 0);
  return waitPublished(session, answer.publish_id, 'video');
}

/** Reconciliation: the recorded publish's post once complete; else, after a lost init answer, the creator's list. */
export async function findPublishedPart(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
  const token = session.credentials.accessToken;
  const publishId = part.pending.publish_id;
  if (publishId) {
    let status: client.PublishStatus;
    try {
      status = await client.publishStatus(session.http, token, publishId);
    } catch (error) {
      // A publish TikTok does not know (as in `resume`: ⚠ unverified invalid_params) never posts: nothing to adopt,
      // and the re-send starts afresh. Any other failure of the read says nothing and goes to the engine.
      if (isPlatformError(error) && error.kind === 'invalid_content') return null;
      throw error;
    }
    // Not complete: FAILED posted nothing, and one still processing or uploading is carried on by `publish` with this
    // same publish_id (never a second init), so there is nothing to adopt yet.
    if (status.status !== 'PUBLISH_COMPLETE') return null;
    return published(session, publishId, status, part.pending.kind === 'photo' ? 'photo' : 'video');
  }
  // No publish recorded and no pulled init sent: nothing was made that can post (a FILE_UPLOAD init publishes nothing
  // without its bytes), so the part is sent again.
  const pulledAt = part.pending.pulled_at;
  if (!pulledAt) return null;
  const found = await findPulled(session, part);
  if (found) return found;
  const waited = session.clock.now().getTime() - Date.parse(pulledAt);
  if (waited >= 0 && waited < PULL_SETTLE_MS)
    throw new PlatformError(
      'unknown_outcome',
      'PLATFORM_UNKNOWN_OUTCOME',
      `A TikTok post pulled ${Math.round(waited / 1000)} s ago lost its answer and is not among the creator's posts yet (moderation can take a while); Herald looks again rather than post twice.`,
      { retryAfterMs: Math.min(PULL_LOOK_AGAIN_MS, Math.max(PULL_LOOK_FIRST_MS, waited)) },
    );
  return null;
}

/**
 * A pulled init whose answer was lost: its post, if any, is among the creator's newest (⚠ unverified: that the list
 * shows a post as soon as it is published, private ones included).
 */
async function findPulled(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
  const token = session.credentials.accessToken;
  const since = lookupSince(part);
  const text = part.text.normalize('NFC').trim();
  const matches: client.TiktokVideo[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < 5; page++) {
    const answer = await client.listVideos(session.http, token, cursor);
    for (const v of answer.videos) {
      const createdAt = v.create_time !== undefined ? v.create_time * 1000 : undefined;
      const shown = (v.video_description ?? v.title ?? '').normalize('NFC').trim();
      if (shown === text && mayBeThisPart(part, { id: v.id, createdAt })) matches.push(v);
    }
    const oldest = answer.videos.at(-1)?.create_time;
    if (!answer.has_more || oldest === undefined || oldest * 1000 < since) break;
    cursor = answer.cursor;
  }
  const found = matches.sort((a, b) => (a.create_time ?? 0) - (b.create_time ?? 0))[0];
  if (!found) return null;
  const kind: Kind = part.pending.kind === 'photo' ? 'photo' : 'video';
  return { id: found.id, url: found.share_url ?? postUrl(session, found.id, kind) };
}
