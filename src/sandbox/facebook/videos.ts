// Page videos through the resumable upload protocol (platforms.md §4 "Calls"): `POST /{page-id}/videos` with
// upload_phase=start (file_size → video_id, upload_session_id, the first byte range) → transfer (each chunk
// at the offset the previous answer named) → finish (description, published). Processing then runs on the
// clock: `GET /{video-id}?fields=status` goes processing → ready, or error; a video uploaded unpublished is
// published by `POST /{video-id}` with published=true once ready (⚠ unverified), which creates its Page post.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { snowflake, type SimulatorKit } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { GRAPH_VERSION } from './auth.ts';
import { checkToken, graphError, invalidParameter } from './graph-reply.ts';
import { MAX_MESSAGE, pageGate } from './pages.ts';
import type { FbPost, FbState, FbVideo } from './state.ts';

const MAX_VIDEO_BYTES = 10 * 1024 ** 3; // ⚠ unverified: the 10 GB Page video cap quoted by Meta's help pages
const CHUNK_BYTES = 4 * 1024 * 1024; // ⚠ unverified: Meta picks the range per answer; 4 MiB here
const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];

/** Processing time of a video: `settings.facebookVideoProcessingMs` (tests shorten it), else 3 s. */
const processingMs = (kit: SimulatorKit) =>
  typeof kit.settings.facebookVideoProcessingMs === 'number' ? kit.settings.facebookVideoProcessingMs : 3000;

type Phase = 'not_started' | 'in_progress' | 'complete' | 'error';

export function videoStatus(
  kit: SimulatorKit,
  v: FbVideo,
): {
  video_status: 'upload_incomplete' | 'processing' | 'ready' | 'error';
  progress: number;
  uploading: Phase;
  processing: Phase;
} {
  if (v.finishedAt === null)
    return {
      video_status: 'upload_incomplete',
      progress: 0,
      uploading: v.received > 0 ? 'in_progress' : 'not_started',
      processing: 'not_started',
    };
  const total = Math.max(1, v.readyAt - v.finishedAt);
  const elapsed = kit.now() - v.finishedAt;
  if (elapsed >= total)
    return v.failed
      ? { video_status: 'error', progress: 100, uploading: 'complete', processing: 'error' }
      : { video_status: 'ready', progress: 100, uploading: 'complete', processing: 'complete' };
  return {
    video_status: 'processing',
    progress: Math.floor((elapsed / total) * 100),
    uploading: 'complete',
    processing: 'in_progress',
  };
}

export function videoJson(kit: SimulatorKit, v: FbVideo, fields: string[], base: string): Record<string, unknown> {
  const s = videoStatus(kit, v);
  const out: Record<string, unknown> = { id: v.id };
  if (fields.includes('status')) {
    out.status = {
      video_status: s.video_status,
      processing_progress: s.progress,
      uploading_phase: { status: s.uploading, bytes_transferred: v.received },
      processing_phase:
        s.processing === 'error'
          ? { status: 'error', errors: [{ code: 1363008, message: v.failed }] }
          : { status: s.processing },
      publishing_phase: {
        status: v.published ? 'complete' : 'not_started',
        publish_status: v.published ? 'published' : 'not_published',
      },
    };
  }
  if (fields.includes('published')) out.published = v.published;
  if (fields.includes('description')) out.description = v.description;
  if (fields.includes('post_id') && v.postId) out.post_id = v.postId;
  if (fields.includes('permalink_url') && v.postId)
    out.permalink_url = `${base}/web/${v.pageId}/posts/${v.postId.split('_')[1]}`;
  return out;
}

const falsy = (v: unknown) => v === false || v === 'false' || v === '0' || v === 0;
const uploadError = (reply: FastifyReply, message: string, subcode = 1363037) =>
  graphError(reply, 400, { code: 6001, subcode, message: `There was a problem uploading your video file: ${message}` }); // ⚠ unverified subcodes

export function registerFbVideos(
  app: FastifyInstance,
  kit: SimulatorKit,
  state: FbState,
  errorReply: (reply: FastifyReply, status: number, message: string) => FastifyReply,
): void {
  function publishVideo(v: FbVideo, description: string): FbPost {
    v.published = true;
    v.description = description;
    const post: FbPost = {
      id: `${v.pageId}_${snowflake(kit.now())}`,
      pageId: v.pageId,
      message: description,
      link: null,
      photoIds: [],
      videoId: v.id,
      createdAt: kit.now(),
      deleted: false,
    };
    state.posts.set(post.id, post);
    v.postId = post.id;
    return post;
  }

  app.post('/:version/:pageId/videos', async (request, reply) => {
    // Media faults are taken at start and applied at finish, as the X simulator does.
    const call = pageGate(
      kit,
      state,
      request,
      reply,
      (fields) => (fields.upload_phase === 'start' ? 'upload_media' : null),
      'pages_manage_posts',
    );
    if (!call) return reply;
    const f = call.fields;
    const phaseOf = String(f.upload_phase ?? '');
    if (phaseOf === 'start') {
      const size = Number(f.file_size);
      if (!Number.isInteger(size) || size < 1) return invalidParameter(reply, 'file_size must be a positive integer.');
      if (size > MAX_VIDEO_BYTES)
        return uploadError(reply, `the file is larger than ${MAX_VIDEO_BYTES} bytes.`, 1363023);
      const v: FbVideo = {
        id: snowflake(kit.now()),
        pageId: call.page.id,
        uploadSessionId: snowflake(kit.now() + 1),
        fileSize: size,
        head: Buffer.alloc(0),
        received: 0,
        finishedAt: null,
        readyAt: 0,
        failed: null,
        published: false,
        description: '',
        postId: null,
        fault: call.fault,
        createdAt: kit.now(),
      };
      state.videos.set(v.id, v);
      return {
        video_id: v.id,
        upload_session_id: v.uploadSessionId,
        start_offset: '0',
        end_offset: String(Math.min(size, CHUNK_BYTES)),
      };
    }
    const v = [...state.videos.values()].find(
      (x) => x.uploadSessionId === String(f.upload_session_id ?? '') && x.pageId === call.page.id,
    );
    if (phaseOf === 'transfer') {
      if (!v) return uploadError(reply, 'unknown upload_session_id.', 1363030);
      if (v.finishedAt !== null) return uploadError(reply, 'the upload session is already finished.', 1363030);
      const chunk = call.body.files.video_file_chunk?.data;
      if (!chunk || chunk.length === 0)
        return invalidParameter(reply, 'video_file_chunk (the bytes of this range) is required.');
      if (Number(f.start_offset) !== v.received)
        return uploadError(
          reply,
          `start_offset ${String(f.start_offset)} does not match the expected offset ${v.received}.`,
        );
      if (v.received + chunk.length > v.fileSize)
        return uploadError(reply, 'more bytes were sent than file_size announced.');
      if (v.head.length < 64) v.head = Buffer.concat([v.head, chunk.subarray(0, 64 - v.head.length)]);
      v.received += chunk.length;
      return { start_offset: String(v.received), end_offset: String(Math.min(v.fileSize, v.received + CHUNK_BYTES)) };
    }
    if (phaseOf === 'finish') {
      if (!v) return uploadError(reply, 'unknown upload_session_id.', 1363030);
      if (v.finishedAt !== null) return { success: true };
      if (v.received !== v.fileSize)
        return uploadError(reply, `received ${v.received} of ${v.fileSize} bytes.`, 1363019);
      const description = typeof f.description === 'string' ? f.description : '';
      if ([...description].length > MAX_MESSAGE)
        return invalidParameter(reply, `description must be at most ${MAX_MESSAGE} characters long.`);
      const type = sniff(v.head);
      const fault = v.fault;
      v.finishedAt = kit.now();
      v.readyAt = v.finishedAt + processingMs(kit) + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0);
      if (!type || !VIDEO_TYPES.includes(type))
        v.failed = `The file is not a supported video (${type ?? 'unrecognised'}).`;
      if (fault?.fault === 'media_failed') v.failed = 'Video processing failed (injected).';
      v.description = description;
      if (!falsy(f.published) && !v.failed) publishVideo(v, description);
      return { success: true };
    }
    return invalidParameter(reply, 'upload_phase must be start, transfer or finish (or send file_url).');
  });

  // Updating a video: publishing one that was uploaded unpublished, with its description (⚠ unverified).
  app.post('/:version/:id', async (request, reply) => {
    const { version, id } = request.params as { version: string; id: string };
    if (!GRAPH_VERSION.test(version)) return errorReply(reply, 404, `Unknown path components: /${version}`);
    const v = state.videos.get(id);
    const claims = checkToken(
      kit,
      state,
      request,
      reply,
      ['fb_page'],
      parseBody(request.headers['content-type'], request.body).fields,
    );
    if (!claims) return reply;
    if (!v || v.pageId !== claims.sub)
      return graphError(reply, 400, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
    const call = pageGate(kit, state, request, reply, 'create_post', 'pages_manage_posts', v.pageId);
    if (!call) return reply;
    const f = call.fields;
    if (f.description !== undefined && (typeof f.description !== 'string' || [...f.description].length > MAX_MESSAGE))
      return invalidParameter(reply, `description must be a string of at most ${MAX_MESSAGE} characters.`);
    const description = typeof f.description === 'string' ? f.description : v.description;
    if (f.published !== undefined && !falsy(f.published) && !v.published) {
      const s = videoStatus(kit, v);
      if (s.video_status !== 'ready')
        return graphError(reply, 400, {
          code: 100,
          subcode: 1363047,
          message: `(#100) The video cannot be published while it is ${s.video_status}.`,
        }); // ⚠ unverified
      if (call.fault?.fault === 'duplicate')
        return graphError(reply, 400, { code: 506, subcode: 1455006, message: '(#506) Duplicate status message' });
      publishVideo(v, description);
    } else {
      v.description = description;
    }
    if (call.drop) return kit.dropConnection(request, reply);
    return { success: true };
  });
}
