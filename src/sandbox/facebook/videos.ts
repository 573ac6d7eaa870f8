// Page videos through the resumable upload protocol (docs/platforms/facebook.md "Calls"): `POST /{page-id}/videos` with
// upload_phase=start (file_size → video_id, upload_session_id, the first byte range) → transfer (each chunk
// at the offset the previous answer named) → finish (description, published). Processing then runs on the
// clock: `GET /{video-id}?fields=status` goes processing → ready, or error; a video uploaded unpublished is
// published by `POST /{video-id}` with published=true once ready (⚠ unverified), which creates its Page post.
// Each chunk is its own blob in the store; the video's document keeps the list of them and the first bytes (for
// sniffing), so no request rewrites a growing buffer.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import type { SimulatorKit } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { GRAPH_VERSION } from './auth.ts';
import { checkToken, graphError, invalidParameter } from './graph-reply.ts';
import { falsy, MAX_MESSAGE, pageGate, type NodePath, type PageCall, type PagePath } from './page-gate.ts';
import { KIND, type FbPost, type FbSim, type FbVideo } from './state.ts';
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

/**
 * Publishes a processed video: its Page post is created now. `change` is what else the same write sets on the
 * video (finish sets its timeline). The video is claimed under its row lock first, naming its post, so of two
 * publishing calls (two API nodes) only one creates a post. Returns the video as stored afterwards.
 */
async function publishVideo(
  { kit }: FbSim,
  videoId: string,
  description: string,
  change: (v: FbVideo) => FbVideo | undefined = (v) => v,
): Promise<FbVideo | undefined> {
  const number = await kit.snowflake();
  const now = kit.now();
  const stored = await kit.store.update<FbVideo>(KIND.video, videoId, (current) => {
    const v = change(current);
    if (!v) return undefined;
    if (v.published) return v === current ? undefined : v;
    return { ...v, published: true, description, postId: `${v.pageId}_${number}`, publishedAt: now };
  });
  if (stored) await ensureVideoPost(kit, stored);
  return stored;
}

/**
 * Writes the Page post a published video became, unless it is there already: the publish writes it after its
 * claim, and a read of the video writes it when the node that claimed it stopped in between. Both make the same
 * post from the video document alone.
 */
export async function ensureVideoPost(kit: SimulatorKit, v: FbVideo): Promise<void> {
  if (!v.postId || v.publishedAt === null) return;
  const post: FbPost = {
    id: v.postId,
    pageId: v.pageId,
    message: v.description,
    link: null,
    photoIds: [],
    videoId: v.id,
    createdAt: v.publishedAt,
    deleted: false,
  };
  await kit.store.insert(KIND.post, post.id, post, post.pageId);
}

/** One step of the resumable upload, as `upload_phase` names it. */
async function uploadVideo(sim: FbSim, request: FastifyRequest<{ Params: PagePath }>, reply: FastifyReply) {
  // Media faults are taken at start and applied at finish, as the X simulator does.
  const call = await pageGate(sim, request, reply, {
    ...request.params,
    operation: (fields) => (fields.upload_phase === 'start' ? 'upload_media' : null),
    scope: 'pages_manage_posts',
  });
  if (!call) return reply;
  const phase = String(call.fields.upload_phase ?? '');
  if (phase === 'start') return startUpload(sim, reply, call);
  if (phase !== 'transfer' && phase !== 'finish')
    return invalidParameter(reply, 'upload_phase must be start, transfer or finish (or send file_url).');
  const [v] = await sim.kit.store.list<FbVideo>(KIND.video, {
    owner: call.page.id,
    match: { uploadSessionId: String(call.fields.upload_session_id ?? '') },
    limit: 1,
  });
  return phase === 'transfer' ? transferChunk(sim, reply, call, v) : finishUpload(sim, reply, call, v);
}

async function startUpload({ kit }: FbSim, reply: FastifyReply, call: PageCall) {
  const size = Number(call.fields.file_size);
  if (!Number.isInteger(size) || size < 1) return invalidParameter(reply, 'file_size must be a positive integer.');
  if (size > MAX_VIDEO_BYTES) return uploadError(reply, `the file is larger than ${MAX_VIDEO_BYTES} bytes.`, 1363023);
  const [id, uploadSessionId] = [await kit.snowflake(), await kit.snowflake()];
  const v: FbVideo = {
    id,
    pageId: call.page.id,
    uploadSessionId,
    fileSize: size,
    head: Buffer.alloc(0),
    received: 0,
    chunks: [],
    finishedAt: null,
    readyAt: 0,
    failed: null,
    published: false,
    description: '',
    postId: null,
    publishedAt: null,
    fault: call.fault && { fault: call.fault.fault, delayMs: call.fault.delayMs },
    createdAt: kit.now(),
  };
  await kit.store.put(KIND.video, v.id, v, v.pageId);
  return {
    video_id: v.id,
    upload_session_id: v.uploadSessionId,
    start_offset: '0',
    end_offset: String(Math.min(size, CHUNK_BYTES)),
  };
}

async function transferChunk({ kit }: FbSim, reply: FastifyReply, call: PageCall, v: FbVideo | undefined) {
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
  // A blob of its own, named uniquely: a chunk that loses the race below leaves a blob nobody lists, never a
  // mix of two chunks' bytes.
  const blob = `video:${v.id}:${v.received}:${randomBytes(6).toString('hex')}`;
  await kit.store.putBytes(blob, chunk);
  const outcome = { taken: false };
  const stored = await kit.store.update<FbVideo>(KIND.video, v.id, (current) => {
    if (current.received !== v.received || current.finishedAt !== null) return undefined;
    outcome.taken = true;
    const head =
      current.head.length < 64
        ? Buffer.concat([current.head, chunk.subarray(0, 64 - current.head.length)])
        : current.head;
    return { ...current, head, received: current.received + chunk.length, chunks: [...current.chunks, blob] };
  });
  if (!stored || !outcome.taken)
    return uploadError(reply, `start_offset ${v.received} was sent twice at once; resume at ${stored?.received ?? 0}.`);
  return {
    start_offset: String(stored.received),
    end_offset: String(Math.min(stored.fileSize, stored.received + CHUNK_BYTES)),
  };
}

async function finishUpload(sim: FbSim, reply: FastifyReply, call: PageCall, v: FbVideo | undefined) {
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
  const finishedAt = kit.now();
  let failed: string | null = null;
  if (!type || !VIDEO_TYPES.includes(type)) failed = `The file is not a supported video (${type ?? 'unrecognised'}).`;
  if (fault?.fault === 'media_failed') failed = 'Video processing failed (injected).';
  const finish = (current: FbVideo): FbVideo | undefined =>
    current.finishedAt !== null
      ? undefined
      : {
          ...current,
          finishedAt,
          readyAt: finishedAt + processingMs(kit) + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0),
          failed,
          description,
        };
  if (!falsy(f.published) && !failed) await publishVideo(sim, v.id, description, finish);
  else await kit.store.update<FbVideo>(KIND.video, v.id, finish);
  return { success: true };
}

// Updating a video: publishing one that was uploaded unpublished, with its description (⚠ unverified).
async function updateVideo(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const { kit } = sim;
  const { version, id } = request.params;
  if (!GRAPH_VERSION.test(version)) return sim.errorReply(reply, 404, `Unknown path components: /${version}`);
  const claims = await checkToken(
    kit,
    request,
    reply,
    ['fb_page'],
    parseBody(request.headers['content-type'], request.body).fields,
  );
  if (!claims) return reply;
  const v = await kit.store.get<FbVideo>(KIND.video, id);
  if (!v || v.pageId !== claims.sub)
    return graphError(reply, 400, {
      code: 100,
      subcode: 33,
      type: 'GraphMethodException',
      message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    });
  const call = await pageGate(sim, request, reply, {
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
    await publishVideo(sim, v.id, description);
  } else {
    await kit.store.update<FbVideo>(KIND.video, v.id, (current) => ({ ...current, description }));
  }
  if (call.drop) return kit.dropConnection(request, reply);
  return { success: true };
}
