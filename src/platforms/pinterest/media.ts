// Pinterest's media protocols (docs/platforms/pinterest.md "Calls"). Images are not uploaded: a Pin names them by URL
// and Pinterest fetches them, so an image's platform reference is Herald's signed URL of it. A video is registered
// (`POST /v5/media`), its bytes posted to the returned `upload_url` as an S3 form with the `upload_parameters`, and
// polled (`GET /v5/media/{id}`) until `succeeded`; its media id goes in the Pin. Nothing of this is visible on the
// account until the Pin is created, so a worker that dies mid-upload leaves at most an unused upload behind, and the
// next attempt registers afresh: never a second Pin.
import { isPlatformError, PlatformError, type MediaSource, type PreparedMedia } from '../types.ts';
import type { PlatformHttp } from '../http-contract.ts';
import { sleep } from '../classify.ts';
import { pullUrl } from '../meta/containers.ts';
import * as client from './client.ts';

const PROCESSING_DEADLINE_MS = 10 * 60_000;
const FIRST_POLL_MS = 300;
const MAX_POLL_MS = 5_000;
/** Status reads that may fail in a row (a GET changes nothing, so it is simply asked again). */
const POLL_FAILURES = 3;

async function waitProcessed(http: PlatformHttp, token: string, mediaId: string, uploadAgain: () => Promise<void>) {
  const deadline = Date.now() + PROCESSING_DEADLINE_MS;
  let wait = FIRST_POLL_MS;
  let failures = 0;
  let reuploaded = false;
  for (;;) {
    let status: client.MediaStatus | undefined;
    try {
      status = await client.mediaStatus(http, token, mediaId);
      failures = 0;
    } catch (error) {
      if (!isPlatformError(error) || error.kind !== 'transient' || ++failures > POLL_FAILURES) throw error;
    }
    if (status === 'succeeded') return;
    if (status === 'failed')
      throw new PlatformError(
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
        `Pinterest could not process video ${mediaId} (media status failed).`,
      );
    // Still `registered`: the bytes never arrived (an upload whose answer was lost before S3 took it). Posting the
    // same form again writes the same object key, so it cannot make a second video.
    if (status === 'registered' && !reuploaded) {
      reuploaded = true;
      await uploadAgain();
    }
    if (Date.now() > deadline)
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `Pinterest was still processing video ${mediaId} after ${PROCESSING_DEADLINE_MS / 60_000} minutes.`,
      );
    await sleep(wait);
    wait = Math.min(MAX_POLL_MS, Math.round(wait * 1.5));
  }
}

async function uploadVideo(http: PlatformHttp, token: string, source: MediaSource): Promise<string> {
  const upload = await client.registerMedia(http, token);
  const post = () =>
    client.uploadFile(http, upload, {
      data: () => source.open(),
      contentType: source.contentType,
      size: source.sizeBytes,
    });
  try {
    await post();
  } catch (error) {
    // An upload whose answer was lost may have landed: the status says (`registered` if not, and then it is posted
    // again). Anything else (S3 refusing the form) stands.
    if (!isPlatformError(error) || (error.kind !== 'unknown_outcome' && error.kind !== 'transient')) throw error;
  }
  await waitProcessed(http, token, upload.media_id, post);
  return upload.media_id;
}

export async function prepareMedia(
  http: PlatformHttp,
  token: string,
  sources: MediaSource[],
): Promise<PreparedMedia[]> {
  const out: PreparedMedia[] = [];
  for (const source of sources) {
    if (source.kind !== 'image' && source.kind !== 'video')
      throw new PlatformError(
        'media_rejected',
        'PLATFORM_MEDIA_REJECTED',
        `Pinterest Pins take images and videos; media ${source.id} is a ${source.kind}.`,
      );
    const platformRef =
      source.kind === 'video' ? await uploadVideo(http, token, source) : await pullUrl('Pinterest', source);
    out.push({
      platformRef,
      kind: source.kind,
      altText: source.altText,
      width: source.width,
      height: source.height,
    });
  }
  return out;
}
