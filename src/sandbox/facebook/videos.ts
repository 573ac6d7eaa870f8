// Page videos through the resumable upload protocol (docs/platforms/facebook.md "Calls"): `POST /{page-id}/videos` with
// upload_phase=start (file_size → video_id, upload_session_id, the first byte range) → transfer (each chunk
// at the offset the previous answer named) → finish (description, published). Processing then runs on the
// clock: `GET /{video-id}?fields=status` goes processing → ready, or error; a video uploaded unpublished is
// published by `POST /{video-id}` with published=true once ready (⚠ unverified), which creates its Page post.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { snowflake, type SimulatorKit } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { GRAPH_VERSION } from './auth.ts';
import { checkToken, graphError, invalidParameter } from './graph-reply.ts';
import { falsy, MAX_MESSAGE, pageGate, type NodePath, type PageCall, type PagePath } from './page-gate.ts';
import type { FbPost, FbSim, FbVideo } from './state.ts';
import { videoStatus } from './views.ts';

const MAX_VIDEO_BYTES = 10 * 1024 ** 3; // ⚠ unverified: the 10 GB Page video cap quoted by Meta's help pages
const CHUNK_BYTES = 4 * 1024 * 1024; // ⚠ unverified: Meta picks the range per answer; 4 MiB here
const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];

/** Processing time of a video: `settings.facebookVideoProcessingMs` (tests shorten it), else 3 s. */
const processingMs = (kit: SimulatorKit) =>
  typeof kit.settings.facebookVideoProcessingMs === 'number' ? kit.settings.facebookVideoProcessingMs : 3000;

const uploadError = (reply: FastifyReply, message: string, subcode = 1363037) =>
  graphError(reply, 400, { code: 6001, subcode, message: `There was a problem uploading your video file: ${message}` }); // ⚠ unverified subcodes

export function registerFbVideos(app: FastifyInstance, sim: FbSim): void {
  app.post<{ Params: PagePath }>('/:version/:pageId/videos', (request, reply) => uploadVideo(sim, request, reply));
  app.post<{ Params: NodePath }>('/:version/:id', (request, reply) => updateVideo(sim, request, reply));
}

/** Publishes a processed video: its Page post is created now. */
function publishVideo({ kit, state }: FbSim, v: FbVideo, description: string): FbPost {
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

/** One step of the resumable upload, as `upload_phase` names it. */
async function uploadVideo(sim: FbSim, request: FastifyRequest<{ Params: PagePath }>, reply: FastifyReply) {
  // Media faults are taken at start and applied at finish, as the X simulator does.
  const call = pageGate(sim, request, reply, {
    ...request.params,
    operation: (fields) => (fields.upload_phase === 'start' ? 'upload_media' : null),
    scope: 'pages_manage_posts',
  });
  if (!call) return reply;
  const phase = String(call.fields.upload_phase ?? '');
  if (phase === 'start') return startUpload(sim, reply, call);
  const session = String(call.fields.upload_session_id ?? '');
  const v = [...sim.state.videos.values()].find((x) => x.uploadSessionId === session && x.pageId === call.page.id);
  if (phase === 'transfer') return transferChunk(reply, call, v);
  if (phase === 'finish') return finishUpload(sim, reply, call, v);
  return invalidParameter(reply, 'upload_phase must be start, transfer or finish (or send file_url).');
}

function startUpload({ kit, state }: FbSim, reply: FastifyReply, call: PageCall) {
  const size = Number(call.fields.file_size);
  if (!Number.isInteger(size) || size < 1) return invalidParameter(reply, 'file_size must be a positive integer.');
  if (size > MAX_VIDEO_BYTES) return uploadError(reply, `the file is larger than ${MAX_VIDEO_BYTES} bytes.`, 1363023);
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

function transferChunk(reply: FastifyReply, call: PageCall, v: FbVideo | undefined) {
  const f = call.fields;
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

function finishUpload(sim: FbSim, reply: FastifyReply, call: PageCall, v: FbVideo | undefined) {
  const { kit } = sim;
  const f = call.fields;
  if (!v) return uploadError(reply, 'unknown upload_session_id.', 1363030);
  if (v.finishedAt !== null) return { success: true };
  if (v.received !== v.fileSize) return uploadError(reply, `received ${v.received} of ${v.fileSize} bytes.`, 1363019);
  const description = typeof f.description === 'string' ? f.description : '';
  if ([...description].length > MAX_MESSAGE)
    return invalidParameter(reply, `description must be at most ${MAX_MESSAGE} characters long.`);
  const type = sniff(v.head);
  const fault = v.fault;
  v.finishedAt = kit.now();
  v.readyAt = v.finishedAt + processingMs(kit) + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0);
  if (!type || !VIDEO_TYPES.includes(type)) v.failed = `The file is not a supported video (${type ?? 'unrecognised'}).`;
  if (fault?.fault === 'media_failed') v.failed = 'Video processing failed (injected).';
  v.description = description;
  if (!falsy(f.published) && !v.failed) publishVideo(sim, v, description);
  return { success: true };
}

// Updating a video: publishing one that was uploaded unpublished, with its description (⚠ unverified).
async function updateVideo(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const { kit, state } = sim;
  const { version, id } = request.params;
  if (!GRAPH_VERSION.test(version)) return sim.errorReply(reply, 404, `Unknown path components: /${version}`);
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
  const call = pageGate(sim, request, reply, {
    version,
    pageId: v.pageId,
    operation: 'create_post',
    scope: 'pages_manage_posts',
  });
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
    publishVideo(sim, v, description);
  } else {
    v.description = description;
  }
  if (call.drop) return kit.dropConnection(request, reply);
  return { success: true };
}
