// Publishing one video and finding it again (docs/platforms/youtube.md "Calls", "Idempotency"). The session start
// carries the metadata; its URI is remembered on the part before the first byte goes, so every later attempt (in
// any process) asks that session where it stands: the video it made (adopted, never uploaded again), or the bytes it
// holds (the upload goes on from there). Only a session YouTube no longer knows leads to the uploads playlist,
// matched by title and description since the part's first send.
import { sleep } from '../classify.ts';
import { lookupSince, mayBeThisPart, sameMedia } from '../lookup.ts';
import {
  isPlatformError,
  PlatformError,
  type MediaSource,
  type OutgoingPart,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../types.ts';
import * as client from './client.ts';
import { videoResource, watchUrl, type YoutubeOptions } from './map.ts';
import { uploadBytes } from './media.ts';

/**
 * How long `publish` waits for processing. The wait holds no lease that could run out under it: the target's claim is
 * the publish job's lock, kept while the worker's heartbeats go on (graphile-worker itself frees a lock only after
 * 4 hours). A worker stopped or killed mid-wait loses nothing: the session is remembered, and the next attempt adopts
 * the video through it.
 */
const PROCESSING_DEADLINE_MS = 10 * 60_000;
/**
 * Every processing read is a videos.list call (1 quota unit of the day's 10,000): the waits grow from half a second
 * to 30 s, so a video processing for the full 10 minutes costs about 30 units, not the 1,200 a fixed 500 ms would.
 */
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 30_000;
interface PublishDeps {
  sources: WeakMap<PreparedMedia, MediaSource>;
  chunkBytes: number;
}

export async function publishVideo(
  session: PlatformSession,
  part: OutgoingPart,
  deps: PublishDeps,
): Promise<PublishedPart> {
  const token = session.credentials.accessToken;
  const prepared = part.media[0];
  const source = prepared ? deps.sources.get(prepared) : undefined;
  if (!source || part.media.length !== 1)
    throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'A YouTube post is one video.');
  const resource = videoResource(part);
  let upload: string | undefined = part.pending.session;
  let from = 0;
  if (upload) {
    // An earlier send started this session: adopt what it made, or go on from the bytes it holds.
    const state = await client.uploadStatus(session.http, upload, token, source.sizeBytes);
    if ('done' in state) return settle(session, state.done);
    if ('held' in state) from = state.held;
    else upload = undefined;
  }
  if (!upload) {
    upload = await client.startUpload(session.http, token, {
      resource,
      size: source.sizeBytes,
      contentType: source.contentType,
      notifySubscribers: (part.options as YoutubeOptions).notify_subscribers ?? true,
    });
    // Stored before the first byte: a worker killed from here on leaves the session for the next attempt.
    await part.remember({ ...part.pending, session: upload, size: String(source.sizeBytes) });
  }
  const video = await uploadBytes(session.http, { session: upload, token, source, from, chunkBytes: deps.chunkBytes });
  return settle(session, video);
}

/**
 * The upload made the video; YouTube processes it next. Waits for the outcome: processed (or still processing at the
 * deadline) is published; failed or rejected is deleted and refused as media, so nothing of the part is left. A read
 * that fails says nothing against the video, which exists: it is published.
 */
async function settle(session: PlatformSession, video: client.Video): Promise<PublishedPart> {
  const { http } = session;
  const token = session.credentials.accessToken;
  const published = { id: video.id, url: watchUrl(session, video.id) };
  const deadline = Date.now() + PROCESSING_DEADLINE_MS;
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, MAX_POLL_MS)) {
    let current: client.Video | undefined;
    try {
      [current] = await client.videos(http, token, [video.id], 'status,processingDetails');
    } catch (error) {
      if (isPlatformError(error)) return published;
      throw error;
    }
    const status = current?.status;
    if (!status || status.uploadStatus === 'processed') return published;
    if (status.uploadStatus === 'failed' || status.uploadStatus === 'rejected') {
      const why = status.failureReason ?? status.rejectionReason ?? status.uploadStatus;
      const removed = await client.deleteVideo(http, token, video.id).then(
        () => 'the failed upload was deleted',
        (error: unknown) => `the failed upload could not be deleted (${String(error)})`,
      );
      throw new PlatformError(
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
        `YouTube could not process video ${video.id} (${why}); ${removed}.`,
      );
    }
    if (Date.now() > deadline) return published;
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
  }
}

/** Whether a video the session made stands (a failed or rejected one is sent again, and refused then). */
const stands = (video: client.Video) => !['failed', 'rejected', 'deleted'].includes(video.status?.uploadStatus ?? '');

export async function findVideo(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
  const upload = part.pending.session;
  // No session remembered: not a byte went out, so no video of this part can exist.
  if (!upload) return null;
  const token = session.credentials.accessToken;
  const size = Number(part.pending.size);
  if (size > 0) {
    const state = await client.uploadStatus(session.http, upload, token, size);
    if ('done' in state)
      return stands(state.done) ? { id: state.done.id, url: watchUrl(session, state.done.id) } : null;
    if ('held' in state) return null;
  }
  return findInUploads(session, part);
}

/**
 * The session is gone (YouTube keeps one about a week): the channel's uploads playlist, newest first, for a video
 * made since the part's first send, held by no other part, with the part's title and description. The oldest wins.
 */
async function findInUploads(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
  const token = session.credentials.accessToken;
  const { snippet } = videoResource(part);
  const playlist =
    typeof session.connection.settings.uploadsPlaylist === 'string'
      ? session.connection.settings.uploadsPlaylist
      : (await client.myChannel(session.http, token)).contentDetails.relatedPlaylists.uploads;
  if (!sameMedia(part, { count: 1 })) return null;
  const since = lookupSince(part);
  const matches = (await client.playlistItems(session.http, token, playlist))
    .map((item) => ({
      id: item.snippet.resourceId.videoId,
      createdAt: Date.parse(item.snippet.publishedAt),
      title: item.snippet.title,
      description: item.snippet.description,
    }))
    .filter((v) => v.createdAt >= since && mayBeThisPart(part, v))
    .filter((v) => v.title === snippet.title && v.description === snippet.description)
    .sort((a, b) => a.createdAt - b.createdAt);
  const first = matches[0];
  return first ? { id: first.id, url: watchUrl(session, first.id) } : null;
}
