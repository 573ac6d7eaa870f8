// Instagram media containers (docs/platforms/instagram.md "Calls"): `POST /{ig-user-id}/media` for images, Reels,
// stories and carousels (children first, 2–10). Instagram fetches the media from the given URL: images while the
// container is created (a URL it cannot read fails the call), videos after the answer (failures show as ERROR).
// The fetched bytes are kept (meta/media-files.ts) for the post's page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countHashtags, countMentions, measure } from '../../platforms/instagram/limits.ts';
import type { SimulatorKit } from '../framework/simulator.ts';
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
import { takeQuota } from '../meta/quotas.ts';
import { beginIgCall, mayPublish, ownIgAccount, type IgSim } from './graph-call.ts';
import type { IgContainerData, IgMediaType, IgUser } from './state.ts';

const CONTAINERS_PER_DAY = 400; // ⚠ unverified (docs/platforms/instagram.md "Rate limits")
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const MAX_VIDEO_BYTES = 300 * 1024 * 1024;
const MEDIA_TYPES: readonly IgMediaType[] = ['IMAGE', 'VIDEO', 'REELS', 'STORIES', 'CAROUSEL'];

export function registerIgContainers(app: FastifyInstance, sim: IgSim): void {
  app.post<{ Params: GraphAccountPath }>('/:version/:userId/media', (request, reply) =>
    createIgContainer(sim, request, reply),
  );
}

/** A container request that passed the parameter checks. */
type ContainerRequest = Omit<IgContainerData, 'children' | 'mediaUrl' | 'shareToFeed'> & { url: string | undefined };

/** The container the parameters describe, or the refusal of the first parameter that is wrong. */
function readContainerRequest(params: Record<string, string>): ContainerRequest | { refused: GraphErrorSpec } {
  const carouselItem = params.is_carousel_item === 'true';
  const mediaType = (
    params.media_type ?? (params.image_url ? 'IMAGE' : params.video_url ? 'VIDEO' : '')
  ).toUpperCase() as IgMediaType;
  if (!MEDIA_TYPES.includes(mediaType))
    return {
      refused: {
        message:
          'The parameter media_type is required and must be one of IMAGE, REELS, STORIES, CAROUSEL (VIDEO for carousel items).',
        code: 100,
      },
    };
  if (mediaType === 'VIDEO' && !carouselItem)
    return {
      refused: {
        message: 'The VIDEO media type is no longer supported for single feed videos. Use REELS.',
        code: 100,
        subcode: 2207023,
      },
    };
  if (carouselItem && (mediaType === 'REELS' || mediaType === 'STORIES' || mediaType === 'CAROUSEL'))
    return {
      refused: {
        message: `A carousel item must be an IMAGE or a VIDEO, not ${mediaType}.`,
        code: 100,
        subcode: 2207028,
      },
    };
  const isVideo = mediaType === 'VIDEO' || mediaType === 'REELS' || (mediaType === 'STORIES' && !!params.video_url);
  const url = isVideo ? params.video_url : params.image_url;
  if (mediaType !== 'CAROUSEL' && !url)
    return { refused: { message: `The parameter ${isVideo ? 'video_url' : 'image_url'} is required.`, code: 100 } };
  const caption = carouselItem ? '' : (params.caption ?? '');
  if (measure(caption) > 2200)
    return {
      refused: {
        message: 'The caption is too long. It must be 2200 characters or fewer.',
        code: 100,
        subcode: 2207010,
      },
    };
  if (countHashtags(caption) > 30 || countMentions(caption) > 20)
    return {
      refused: {
        message: 'The caption has too many hashtags or mentions (30 hashtags, 20 mentions at most).',
        code: 100,
        subcode: 2207040,
      },
    };
  const altText = params.alt_text ?? null;
  if (altText !== null && (isVideo || mediaType === 'CAROUSEL'))
    return { refused: { message: 'alt_text is only supported on images.', code: 100 } };
  if (altText !== null && altText.length > 1000)
    return { refused: { message: 'alt_text must be 1000 characters or fewer.', code: 100 } };
  return { mediaType, carouselItem, caption, altText, isVideo, url };
}

async function createIgContainer(
  sim: IgSim,
  request: FastifyRequest<{ Params: GraphAccountPath }>,
  reply: FastifyReply,
) {
  const { kit } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const { user, params } = ctx;
  if (!ownIgAccount(reply, user, request.params.userId)) return reply;
  if (!mayPublish(kit, request, reply, params)) return reply;
  const asked = readContainerRequest(params);
  if ('refused' in asked) return graphError(reply, 400, asked.refused);
  if (asked.mediaType === 'CAROUSEL') return createCarousel(sim, reply, user, asked.caption, params.children);

  const t = containerTimings(kit.settings);
  const fault = kit.faults.take('upload_media', user.id);
  if (applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'instagram' }) === 'sent') return reply;
  const extra = fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0;
  const url = asked.url!;
  const data: IgContainerData = {
    mediaType: asked.mediaType,
    carouselItem: asked.carouselItem,
    caption: asked.caption,
    altText: asked.altText,
    children: [],
    mediaUrl: url,
    isVideo: asked.isVideo,
    shareToFeed: params.share_to_feed !== 'false',
  };
  if (!asked.isVideo) {
    // Images are fetched while the container is created: a URL Instagram cannot read fails the call itself.
    const got = await fetchImage(url, data, kit.settings);
    if ('refused' in got) return graphError(reply, 400, got.refused);
    if (!(await takeCreation(kit, user))) return tooManyContainers(reply);
    const container = await createContainer(kit, {
      owner: user.id,
      data,
      processingMs: t.imageMs + extra,
      failure: fault?.fault === 'media_failed' ? 'Error: Media upload has failed with error code 2207001' : null,
      media: [{ key: await keepMedia(kit.store, got.bytes), kind: 'image', alt: data.altText }],
    });
    return { id: container.id };
  }
  // Videos are fetched and processed after the answer: failures show as ERROR on the container.
  if (!(await takeCreation(kit, user))) return tooManyContainers(reply);
  const container = await createVideoContainer(
    kit,
    { owner: user.id, data, url },
    {
      processingMs: t.videoMs + extra,
      maxBytes: MAX_VIDEO_BYTES,
      faulted: fault?.fault === 'media_failed',
      failures: {
        download: (reason) => `Error: Media download has failed (2207052): ${reason}`,
        format: 'Error: Media upload has failed with error code 2207026 (unsupported video format)',
        tooLarge: 'Error: Media upload has failed with error code 2207026 (video too large)',
        failed: 'Error: Media upload has failed with error code 2207026',
      },
    },
  );
  return { id: container.id };
}

/** Counts a container against the account's 400 per 24 hours; false when none is left. */
const takeCreation = (kit: SimulatorKit, user: IgUser) =>
  takeQuota(kit.store, 'ig-containers', user.id, kit.now(), kit.limit(CONTAINERS_PER_DAY));

function tooManyContainers(reply: FastifyReply): FastifyReply {
  return graphError(reply, 400, {
    message: 'Application request limit reached',
    code: 9,
    subcode: 2207042,
    userTitle: 'Too many containers',
    userMessage: `At most ${CONTAINERS_PER_DAY} containers can be created in 24 hours.`,
  });
}

/** A carousel container over finished carousel items of the same account; their media become its own. */
async function createCarousel(
  { kit }: IgSim,
  reply: FastifyReply,
  user: IgUser,
  caption: string,
  children: string | undefined,
) {
  const ids = (children ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length < 2 || ids.length > 10)
    return graphError(reply, 400, {
      message: `A carousel needs 2 to 10 children; got ${ids.length}.`,
      code: 100,
      subcode: 2207028,
    });
  const found = await Promise.all(ids.map((id) => readContainer<IgContainerData>(kit, id)));
  for (const [i, id] of ids.entries()) {
    const child = found[i];
    if (!child || child.owner !== user.id)
      return graphError(reply, 400, { message: `Invalid child container ${id}.`, code: 100, subcode: 33 });
    if (!child.data.carouselItem)
      return graphError(reply, 400, {
        message: `Container ${id} was not created with is_carousel_item=true.`,
        code: 100,
        subcode: 2207028,
      });
    const status = containerStatus(kit, child);
    if (status === 'IN_PROGRESS')
      return graphError(reply, 400, {
        message: 'Media ID is not available',
        code: 9007,
        subcode: 2207027,
        userTitle: 'Media not ready',
        userMessage: `Child container ${id} is still being processed; wait until it is FINISHED.`,
      });
    if (status === 'ERROR' || status === 'EXPIRED' || status === 'PUBLISHED')
      return graphError(reply, 400, { message: `Child container ${id} is ${status}.`, code: 100, subcode: 2207028 });
  }
  if (!(await takeCreation(kit, user))) return tooManyContainers(reply);
  const container = await createContainer(kit, {
    owner: user.id,
    data: {
      mediaType: 'CAROUSEL',
      carouselItem: false,
      caption,
      altText: null,
      children: ids,
      mediaUrl: null,
      isVideo: false,
      shareToFeed: true,
    } satisfies IgContainerData,
    processingMs: containerTimings(kit.settings).otherMs,
    media: found.flatMap((child) => child?.media ?? []),
  });
  return { id: container.id };
}

/**
 * Fetches an image as Instagram does: its bytes, or the refusal when it cannot be used (unreadable, not JPEG, too
 * big, out of ratio).
 */
async function fetchImage(
  url: string,
  data: IgContainerData,
  settings: Record<string, unknown>,
): Promise<{ refused: GraphErrorSpec } | { bytes: Buffer | undefined }> {
  const got = await fetchMedia(url, settings, { keepBytes: MAX_IMAGE_BYTES });
  if (!got.ok)
    return {
      refused: {
        message: "Media download has failed. The media URI doesn't meet our requirements.",
        code: 9004,
        subcode: 2207052,
        userTitle: 'Media download failed',
        userMessage: `The media could not be fetched from this URI: ${got.reason}.`,
      },
    };
  if (got.contentType !== 'image/jpeg')
    return {
      refused: {
        message: 'The image format is not supported. Only JPEG images can be published.',
        code: 9004,
        subcode: 2207005,
      },
    };
  if (got.size > MAX_IMAGE_BYTES)
    return { refused: { message: 'The image is too large to upload (8 MB at most).', code: 9004, subcode: 2207004 } };
  if (got.width && got.height && !data.carouselItem && data.mediaType === 'IMAGE') {
    const ratio = got.width / got.height;
    if (ratio < 0.8 - 1e-9 || ratio > 1.91 + 1e-9)
      return {
        refused: {
          message: `The aspect ratio ${ratio.toFixed(2)} is not supported (4:5 to 1.91:1).`,
          code: 36003,
          subcode: 2207009,
        },
      };
  }
  return { bytes: got.bytes };
}
