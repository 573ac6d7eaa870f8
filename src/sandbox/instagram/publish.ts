// Instagram publishing (docs/platforms/instagram.md "Calls"): media_publish, which refuses containers that are not
// FINISHED (9007/2207027) and accounts past the rolling 24-hour quota (9/2207042), and content_publishing_limit, which
// reports that quota's live use.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import { applyGraphFault, graphError, recentTimes, type SimContainer } from '../meta/graph.ts';
import { fieldsOf, type GraphAccountPath, refuseUnpublishable, shortcodeOf } from '../meta/publishing.ts';
import { beginIgCall, mayPublish, ownIgAccount, type IgSim } from './graph-call.ts';
import { DAY_MS, type IgContainerData, type IgMedia } from './state.ts';

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
  const { kit, state } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const { user, params } = ctx;
  if (!ownIgAccount(reply, user, request.params.userId)) return reply;
  if (!mayPublish(kit, request, reply, params)) return reply;
  const fault = kit.faults.take('create_post', user.id);
  const applied = applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'instagram' });
  if (applied === 'sent') return reply;
  const container = params.creation_id ? state.containers.get(params.creation_id) : undefined;
  if (!params.creation_id)
    return graphError(reply, 400, { message: 'The parameter creation_id is required.', code: 100 });
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
  const status = state.containers.status(container);
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
  const published = recentTimes(state.publishes, user.id, kit.now(), DAY_MS);
  const quota = publishQuota(kit);
  if (published.length >= quota)
    return graphError(reply, 400, {
      message: 'Application request limit reached',
      code: 9,
      subcode: 2207042,
      userTitle: 'Reached maximum number of posts',
      userMessage: `You have reached the maximum of ${quota} posts in 24 hours. Try again later.`,
    });
  const id = state.nextId();
  const d = container.data;
  const children = d.children
    .map((c) => state.containers.get(c))
    .filter((c): c is SimContainer<IgContainerData> => c !== undefined);
  const media: IgMedia = {
    id,
    owner: user.id,
    containerId: container.id,
    caption: d.caption,
    mediaType: d.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : !d.isVideo ? 'IMAGE' : 'VIDEO',
    productType: d.mediaType === 'REELS' ? 'REELS' : d.mediaType === 'STORIES' ? 'STORY' : 'FEED',
    shortcode: shortcodeOf(id),
    items: d.mediaType === 'CAROUSEL' ? children.length : 1,
    timestamp: kit.now(),
    comments: [],
    deleted: false,
  };
  state.media.set(id, media);
  state.containers.markPublished(container, id);
  published.push(kit.now());
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

async function publishingLimit(sim: IgSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const { kit, state } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownIgAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['quota_usage']);
  const entry: Record<string, unknown> = {
    quota_usage: recentTimes(state.publishes, ctx.user.id, kit.now(), DAY_MS).length,
  };
  if (fields.includes('config')) entry.config = { quota_total: publishQuota(kit), quota_duration: 86400 };
  return { data: [entry] };
}
