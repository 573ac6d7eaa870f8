// Instagram publishing (docs/platforms/instagram.md "Calls"): media_publish, which refuses containers that are not
// FINISHED (9007/2207027) and accounts past the rolling 24-hour quota (9/2207042), and content_publishing_limit, which
// reports that quota's live use. A container is claimed atomically before its media is made (claimContainer), so
// two nodes asked to publish one container publish it once.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import {
  claimContainer,
  containerStatus,
  nextGraphId,
  releaseContainer,
  statusAfterClaim,
  type SimContainer,
} from '../meta/containers.ts';
import { applyGraphFault, graphError } from '../meta/graph.ts';
import { edgeOwner, fieldsOf, type GraphAccountPath, refuseUnpublishable, shortcodeOf } from '../meta/publishing.ts';
import { quotaUsage, takeQuota } from '../meta/quotas.ts';
import { beginIgCall, mayPublish, ownIgAccount, type IgSim } from './graph-call.ts';
import { MEDIA, type IgContainerData, type IgMedia } from './state.ts';

/** The quota's name in the store. */
const PUBLISHES = 'ig-publishes';

const DEFAULT_QUOTA = 100; // content-publishing guide; content_publishing_limit reports the live figure

export function publishQuota(kit: SimulatorKit): number {
  const q = kit.settings.instagramPublishQuota;
  // Scaled like every simulated rate limit (HERALD_SANDBOX_RATE_LIMIT_FACTOR, load tests).
  return kit.limit(typeof q === 'number' && q >= 0 ? q : DEFAULT_QUOTA);
}

export function registerIgPublishing(app: FastifyInstance, sim: IgSim): void {
  app.post<{ Params: GraphAccountPath }>('/:version/:userId/media_publish', (request, reply) =>
    publishContainer(sim, request, reply),
  );
  app.get<{ Params: GraphAccountPath }>('/:version/:userId/content_publishing_limit', (request, reply) =>
    publishingLimit(sim, request, reply),
  );
}

async function publishContainer(
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
  const fault = kit.faults.take('create_post', user.id);
  const applied = applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'instagram' });
  if (applied === 'sent') return reply;
  if (!params.creation_id)
    return graphError(reply, 400, { message: 'The parameter creation_id is required.', code: 100 });
  const id = await nextGraphId(kit);
  // Claimed in one step when it may be published; otherwise read as it is, for the refusal below.
  const container = await claimContainer<IgContainerData>(
    kit,
    params.creation_id,
    id,
    (c) => c.owner === user.id && !c.data.carouselItem && containerStatus(kit, c) === 'FINISHED',
  );
  if (!container || container.owner !== user.id)
    return graphError(reply, 400, {
      message: `Unsupported post request. Object with ID '${params.creation_id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  if (container.data.carouselItem)
    return graphError(reply, 400, {
      message: 'A carousel item cannot be published on its own; publish its carousel container.',
      code: 100,
      subcode: 2207028,
    });
  const status = statusAfterClaim(kit, container, id);
  const refused = refuseUnpublishable(reply, status, container, {
    notReady: {
      message: 'Media ID is not available',
      code: 9007,
      subcode: 2207027,
      userTitle: 'Media not ready for publishing',
      userMessage: 'The media is not ready for publishing, please wait for a moment.',
    },
    expired: 'The media you are trying to access has expired. Please try to upload again.',
    // ⚠ unverified: the exact answer to publishing a container twice.
    published: 'This media container has already been published.',
  });
  if (refused) return refused;
  const quota = publishQuota(kit);
  if (!(await takeQuota(kit.store, PUBLISHES, user.id, kit.now(), quota))) {
    await releaseContainer(kit, container.id, id);
    return graphError(reply, 400, {
      message: 'Application request limit reached',
      code: 9,
      subcode: 2207042,
      userTitle: 'Reached maximum number of posts',
      userMessage: `You have reached the maximum of ${quota} posts in 24 hours. Try again later.`,
    });
  }
  await ensureMedia(kit, container, user.username);
  if (applied === 'drop') return kit.dropConnection(request, reply);
  if (fault?.fault === 'published_but_blocked') {
    return graphError(reply, 400, {
      message: 'Application does not have permission for this action',
      code: 10,
      subcode: 2207051,
      userTitle: 'Action blocked',
      userMessage: 'We restrict certain activity to protect our community. Tell us if you think we made a mistake.',
    });
  }
  return { id };
}

/**
 * Writes the media a published container became, unless it is there already: the publish writes it after its
 * claim, and a read of the PUBLISHED container writes it when the node that claimed it stopped in between. Both
 * make the same document from the container alone.
 */
export async function ensureMedia(
  kit: SimulatorKit,
  container: SimContainer<IgContainerData>,
  username: string,
): Promise<void> {
  if (!container.publishedAs) return;
  const media = mediaOf(container, container.publishedAs, username);
  await kit.store.insert(MEDIA, media.id, media, edgeOwner(container.owner, media.edge));
}

function mediaOf(container: SimContainer<IgContainerData>, id: string, username: string): IgMedia {
  const d = container.data;
  const productType = d.mediaType === 'REELS' ? 'REELS' : d.mediaType === 'STORIES' ? 'STORY' : 'FEED';
  return {
    id,
    owner: container.owner,
    username,
    containerId: container.id,
    caption: d.caption,
    mediaType: d.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : !d.isVideo ? 'IMAGE' : 'VIDEO',
    productType,
    edge: productType === 'STORY' ? 'stories' : 'media',
    shortcode: shortcodeOf(id),
    items: d.mediaType === 'CAROUSEL' ? d.children.length : 1,
    media: container.media,
    timestamp: container.publishedAt ?? container.createdAt,
    commentCount: 0,
    deleted: false,
  };
}

async function publishingLimit(sim: IgSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const { kit } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownIgAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['quota_usage']);
  const entry: Record<string, unknown> = {
    quota_usage: await quotaUsage(kit.store, PUBLISHES, ctx.user.id, kit.now()),
  };
  if (fields.includes('config')) entry.config = { quota_total: publishQuota(kit), quota_duration: 86400 };
  return { data: [entry] };
}
