// Threads publishing (docs/platforms/threads.md "Calls"): threads_publish under the rolling quotas (250 posts and 1,000
// replies per 24 h), and threads_publishing_limit, which reports those quotas and the delete quota's live use.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import { applyGraphFault, graphError, recentTimes } from '../meta/graph.ts';
import { fieldsOf, type GraphAccountPath, refuseUnpublishable, shortcodeOf } from '../meta/publishing.ts';
import { beginThCall, hasScope, ownThAccount, type ThSim } from './graph-call.ts';
import { DAY_MS, DELETES_PER_DAY, type ThPost } from './state.ts';

function quota(kit: SimulatorKit, name: 'threadsPublishQuota' | 'threadsReplyQuota', fallback: number): number {
  const q = kit.settings[name];
  return kit.limit(typeof q === 'number' && q >= 0 ? q : fallback);
}

export function registerThreadsPublishing(app: FastifyInstance, sim: ThSim): void {
  app.post<{ Params: GraphAccountPath }>('/:version/:userId/threads_publish', (request, reply) =>
    publishContainer(sim, request, reply),
  );
  app.get<{ Params: GraphAccountPath }>('/:version/:userId/threads_publishing_limit', (request, reply) =>
    publishingLimit(sim, request, reply),
  );
}

async function publishContainer(
  sim: ThSim,
  request: FastifyRequest<{ Params: GraphAccountPath }>,
  reply: FastifyReply,
) {
  const { kit, state } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  const { user, params } = ctx;
  if (!ownThAccount(reply, user, request.params.userId)) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_content_publish')) return reply;
  const fault = kit.faults.take('create_post', user.id);
  const applied = applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'threads' });
  if (applied === 'sent') return reply;
  if (!params.creation_id)
    return graphError(reply, 400, { message: 'The parameter creation_id is required.', code: 100 });
  const container = state.containers.get(params.creation_id);
  if (!container || container.owner !== user.id)
    return graphError(reply, 400, {
      message: `Object with ID '${params.creation_id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  if (container.data.carouselItem)
    return graphError(reply, 400, { message: 'A carousel item cannot be published on its own.', code: 100 });
  const status = state.containers.status(container);
  // ⚠ unverified: Threads' codes for publishing a container that is not ready, failed, expired or published.
  const refused = refuseUnpublishable(reply, status, container, {
    notReady: {
      message: 'Media Not Ready',
      code: 9007,
      subcode: 2207027,
      userMessage: 'The media is not ready for publishing, please wait for a moment.',
    },
    expired: 'The container has expired. Please create a new one.',
    published: 'This container has already been published.',
  });
  if (refused) return refused;
  const d = container.data;
  if (d.replyTo) {
    const parent = state.posts.get(d.replyTo);
    if (!parent || parent.deleted)
      return graphError(reply, 400, {
        message: 'The post you are replying to does not exist or was deleted.',
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
  }
  const times = recentTimes(d.replyTo ? state.replies : state.publishes, user.id, kit.now(), DAY_MS);
  const limit = d.replyTo ? quota(kit, 'threadsReplyQuota', 1000) : quota(kit, 'threadsPublishQuota', 250);
  // ⚠ unverified: the error Threads gives past its publishing quota (Instagram's 9/2207042 here).
  if (times.length >= limit)
    return graphError(reply, 400, {
      message: 'Application request limit reached',
      code: 9,
      subcode: 2207042,
      userTitle: 'Reached maximum number of posts',
      userMessage: `At most ${limit} ${d.replyTo ? 'replies' : 'posts'} can be published in 24 hours.`,
    });
  const id = state.nextId();
  const parent = d.replyTo ? state.posts.get(d.replyTo) : undefined;
  const post: ThPost = {
    id,
    owner: user.id,
    containerId: container.id,
    text: d.text,
    mediaType: d.mediaType === 'TEXT' ? 'TEXT_POST' : d.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : d.mediaType,
    shortcode: shortcodeOf(id),
    items: d.mediaType === 'TEXT' ? 0 : d.mediaType === 'CAROUSEL' ? d.children.length : 1,
    replyTo: parent?.id ?? null,
    root: parent ? (parent.root ?? parent.id) : null,
    replyControl: d.replyControl,
    timestamp: kit.now(),
    deleted: false,
  };
  state.posts.set(id, post);
  state.containers.markPublished(container, id);
  times.push(kit.now());
  if (applied === 'drop') return kit.dropConnection(request, reply);
  if (fault?.fault === 'published_but_blocked')
    return graphError(reply, 400, {
      message: 'Application does not have permission for this action',
      code: 10,
      subcode: 2207051,
      userMessage: 'We restrict certain activity to protect our community.',
    });
  return { id };
}

async function publishingLimit(sim: ThSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const { kit, state } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownThAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['quota_usage']);
  const now = kit.now();
  const all: Record<string, unknown> = {
    quota_usage: recentTimes(state.publishes, ctx.user.id, now, DAY_MS).length,
    config: { quota_total: quota(kit, 'threadsPublishQuota', 250), quota_duration: 86400 },
    reply_quota_usage: recentTimes(state.replies, ctx.user.id, now, DAY_MS).length,
    reply_config: { quota_total: quota(kit, 'threadsReplyQuota', 1000), quota_duration: 86400 },
    delete_quota_usage: recentTimes(state.deletions, ctx.user.id, now, DAY_MS).length,
    delete_config: { quota_total: DELETES_PER_DAY, quota_duration: 86400 },
  };
  const entry: Record<string, unknown> = {};
  for (const f of fields) if (all[f] !== undefined) entry[f] = all[f];
  return { data: [entry] };
}
