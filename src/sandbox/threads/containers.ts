// Threads media containers (docs/platforms/threads.md "Calls"): `POST /{threads-user-id}/threads` for text, images,
// videos and carousels (2–20 children), reply chains through `reply_to_id`, the 500-character rule with emoji counted
// as UTF-8 bytes and the 5-link rule. Threads fetches media from its URL: images at creation, videos while
// processing (failures as `error_message` FAILED_DOWNLOADING_VIDEO …). The fetched bytes are kept
// (meta/media-files.ts) for the post's page.
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measure } from '../../platforms/threads/limits.ts';
import {
  containerStatus,
  containerTimings,
  createContainer,
  createVideoContainer,
  readContainer,
} from '../meta/containers.ts';
import { fetchMedia } from '../meta/fetch.ts';
import { applyGraphFault, graphError, type GraphErrorSpec } from '../meta/graph.ts';
import { keepMedia } from '../meta/media-files.ts';
import type { GraphAccountPath } from '../meta/publishing.ts';
import { beginThCall, hasScope, ownThAccount, type ThSim } from './graph-call.ts';
import { POST, type ThContainerData, type ThMediaType, type ThPost, type ThUser } from './state.ts';

const twitterText = createRequire(import.meta.url)('twitter-text') as { extractUrls(text: string): string[] };

const REPLY_CONTROLS = [
  'everyone',
  'accounts_you_follow',
  'mentioned_only',
  'parent_post_author_only',
  'followers_only',
];
const MEDIA_TYPES: readonly ThMediaType[] = ['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'];
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const MAX_VIDEO_BYTES = 1024 * 1024 * 1024;

export function registerThreadsContainers(app: FastifyInstance, sim: ThSim): void {
  app.post<{ Params: GraphAccountPath }>('/:version/:userId/threads', (request, reply) =>
    createThContainer(sim, request, reply),
  );
}

async function createThContainer(
  sim: ThSim,
  request: FastifyRequest<{ Params: GraphAccountPath }>,
  reply: FastifyReply,
) {
  const { kit } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  const { user, params } = ctx;
  if (!ownThAccount(reply, user, request.params.userId)) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_content_publish')) return reply;
  const carouselItem = params.is_carousel_item === 'true';
  const mediaType = (params.media_type ?? '').toUpperCase() as ThMediaType;
  if (!MEDIA_TYPES.includes(mediaType))
    return graphError(reply, 400, {
      message: 'The parameter media_type is required: TEXT, IMAGE, VIDEO or CAROUSEL.',
      code: 100,
    });
  if (carouselItem && (mediaType === 'TEXT' || mediaType === 'CAROUSEL'))
    return graphError(reply, 400, { message: 'A carousel item is an IMAGE or a VIDEO.', code: 100 });
  const text = carouselItem ? '' : (params.text ?? '');
  if (mediaType === 'TEXT' && !text.trim())
    return graphError(reply, 400, { message: 'The parameter text is required for TEXT posts.', code: 100 });
  if (measure(text) > 500)
    return graphError(reply, 400, { message: 'Param text must be at most 500 characters long.', code: 100 });
  if (twitterText.extractUrls(text).length > 5)
    return graphError(reply, 400, {
      message: 'THREADS_API__LINK_LIMIT_EXCEEDED: a post can contain at most 5 links.',
      code: 100,
    });
  const replyControl = params.reply_control ?? 'everyone';
  if (!REPLY_CONTROLS.includes(replyControl))
    return graphError(reply, 400, {
      message: `reply_control must be one of ${REPLY_CONTROLS.join(', ')}.`,
      code: 100,
    });
  const altText = params.alt_text ?? null;
  if (altText !== null && altText.length > 1000)
    return graphError(reply, 400, { message: 'alt_text must be at most 1000 characters.', code: 100 });
  let replyTo: string | null = null;
  let root: string | null = null;
  if (params.reply_to_id) {
    const parent = await kit.store.get<ThPost>(POST, params.reply_to_id);
    if (!parent || parent.deleted)
      return graphError(reply, 400, {
        message: `The post you are replying to (${params.reply_to_id}) does not exist or was deleted.`,
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    replyTo = parent.id;
    root = parent.root ?? parent.id;
  }
  const base: ThContainerData = { mediaType, carouselItem, text, children: [], replyTo, root, replyControl, altText };
  const t = containerTimings(kit.settings);
  if (mediaType === 'TEXT')
    return { id: (await createContainer(kit, { owner: user.id, data: base, processingMs: t.otherMs })).id };
  if (mediaType === 'CAROUSEL') return createCarousel(sim, reply, user, base, params.children);
  const isVideo = mediaType === 'VIDEO';
  const url = isVideo ? params.video_url : params.image_url;
  if (!url)
    return graphError(reply, 400, {
      message: `The parameter ${isVideo ? 'video_url' : 'image_url'} is required.`,
      code: 100,
    });
  const fault = kit.faults.take('upload_media', user.id);
  if (applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'threads' }) === 'sent') return reply;
  const extra = fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0;
  if (!isVideo) {
    const got = await fetchImage(url, kit.settings);
    if ('refused' in got) return graphError(reply, 400, got.refused);
    const container = await createContainer(kit, {
      owner: user.id,
      data: base,
      processingMs: t.imageMs + extra,
      failure: fault?.fault === 'media_failed' ? 'UNKNOWN' : null,
      media: [{ key: await keepMedia(kit.store, got.bytes), kind: 'image', alt: altText }],
    });
    return { id: container.id };
  }
  const container = await createVideoContainer(
    kit,
    { owner: user.id, data: base, url, alt: altText },
    {
      processingMs: t.videoMs + extra,
      maxBytes: MAX_VIDEO_BYTES,
      faulted: fault?.fault === 'media_failed',
      failures: {
        download: () => 'FAILED_DOWNLOADING_VIDEO',
        format: 'FAILED_PROCESSING_VIDEO',
        tooLarge: 'FAILED_PROCESSING_VIDEO',
        failed: 'FAILED_PROCESSING_VIDEO',
      },
    },
  );
  return { id: container.id };
}

/** A carousel container over finished carousel items of the same account; their media become its own. */
async function createCarousel(
  { kit }: ThSim,
  reply: FastifyReply,
  user: ThUser,
  base: ThContainerData,
  children: string | undefined,
) {
  const ids = (children ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length < 2 || ids.length > 20)
    return graphError(reply, 400, { message: `A carousel needs 2 to 20 children; got ${ids.length}.`, code: 100 });
  const found = await Promise.all(ids.map((id) => readContainer<ThContainerData>(kit, id)));
  for (const [i, id] of ids.entries()) {
    const child = found[i];
    if (!child || child.owner !== user.id || !child.data.carouselItem)
      return graphError(reply, 400, { message: `Invalid carousel child ${id}.`, code: 100, subcode: 33 });
    const status = containerStatus(kit, child);
    if (status === 'IN_PROGRESS')
      return graphError(reply, 400, {
        message: 'Media Not Ready',
        code: 9007,
        subcode: 2207027,
        userMessage: `Child container ${id} is still being processed.`,
      });
    if (status !== 'FINISHED')
      return graphError(reply, 400, { message: `Child container ${id} is ${status}.`, code: 100 });
  }
  const container = await createContainer(kit, {
    owner: user.id,
    data: { ...base, children: ids },
    processingMs: containerTimings(kit.settings).otherMs,
    media: found.flatMap((child) => child?.media ?? []),
  });
  return { id: container.id };
}

/** Fetches an image as Threads does: its bytes, or the refusal when it cannot be used (unreadable, not JPEG/PNG, too big). */
async function fetchImage(
  url: string,
  settings: Record<string, unknown>,
): Promise<{ refused: GraphErrorSpec } | { bytes: Buffer | undefined }> {
  const got = await fetchMedia(url, settings, { keepBytes: MAX_IMAGE_BYTES });
  if (!got.ok)
    return {
      refused: {
        message: 'The media could not be fetched from this URI.',
        code: 100,
        subcode: 2207052,
        userMessage: got.reason,
      },
    };
  if (got.contentType !== 'image/jpeg' && got.contentType !== 'image/png')
    return { refused: { message: 'The image format is not supported (JPEG or PNG).', code: 100, subcode: 2207005 } };
  if (got.size > MAX_IMAGE_BYTES)
    return { refused: { message: 'The image is larger than 8 MB.', code: 100, subcode: 2207004 } };
  return { bytes: got.bytes };
}
