// Threads publishing (docs/platforms/threads.md "Calls"): threads_publish under the rolling quotas (250 posts and 1,000
// replies per 24 h), and threads_publishing_limit, which reports those quotas and the delete quota's live use. A
// container is claimed atomically before its post is made (claimContainer), so two nodes asked to publish one
// container publish it once.
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
import { beginThCall, hasScope, ownThAccount, type ThSim } from './graph-call.ts';
import {
  DELETES_PER_DAY,
  POST,
  REPLY_OF,
  THREAD_PART,
  threadKey,
  type ThContainerData,
  type ThPost,
  type ThReplyRef,
} from './state.ts';

/** The quotas' names in the store. */
export const QUOTAS = { posts: 'th-posts', replies: 'th-replies', deletions: 'th-deletions' } as const;

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
  const { kit } = sim;
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
  const id = await nextGraphId(kit);
  // Claimed in one step when it may be published; otherwise read as it is, for the refusal below.
  const container = await claimContainer<ThContainerData>(
    kit,
    params.creation_id,
    id,
    (c) => c.owner === user.id && !c.data.carouselItem && containerStatus(kit, c) === 'FINISHED',
  );
  if (!container || container.owner !== user.id)
    return graphError(reply, 400, {
      message: `Object with ID '${params.creation_id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  if (container.data.carouselItem)
    return graphError(reply, 400, { message: 'A carousel item cannot be published on its own.', code: 100 });
  const status = statusAfterClaim(kit, container, id);
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
    const parent = await kit.store.get<ThPost>(POST, d.replyTo);
    // The `item_deleted` fault: the post replied to went away between the container and its publish.
    if (!parent || parent.deleted || fault?.fault === 'item_deleted') {
      await releaseContainer(kit, container.id, id);
      return graphError(reply, 400, {
        message: 'The post you are replying to does not exist or was deleted.',
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    }
  }
  const limit = d.replyTo ? quota(kit, 'threadsReplyQuota', 1000) : quota(kit, 'threadsPublishQuota', 250);
  // ⚠ unverified: the error Threads gives past its publishing quota (Instagram's 9/2207042 here).
  if (!(await takeQuota(kit.store, d.replyTo ? QUOTAS.replies : QUOTAS.posts, user.id, kit.now(), limit))) {
    await releaseContainer(kit, container.id, id);
    return graphError(reply, 400, {
      message: 'Application request limit reached',
      code: 9,
      subcode: 2207042,
      userTitle: 'Reached maximum number of posts',
      userMessage: `At most ${limit} ${d.replyTo ? 'replies' : 'posts'} can be published in 24 hours.`,
    });
  }
  await ensurePost(kit, container, user.username);
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

/**
 * Writes the post a published container became, unless it is there already: the publish writes it after its
 * claim, and a read of the PUBLISHED container writes it when the node that claimed it stopped in between. Both
 * make the same document from the container alone. A reply is listed under its parent and its thread first, so a
 * stored reply is always found there (a listing skips a reply whose post is not written).
 */
export async function ensurePost(
  kit: SimulatorKit,
  container: SimContainer<ThContainerData>,
  username: string,
): Promise<void> {
  const id = container.publishedAs;
  if (!id) return;
  const d = container.data;
  const post: ThPost = {
    id,
    owner: container.owner,
    username,
    containerId: container.id,
    text: d.text,
    mediaType: d.mediaType === 'TEXT' ? 'TEXT_POST' : d.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : d.mediaType,
    shortcode: shortcodeOf(id),
    items: d.mediaType === 'TEXT' ? 0 : d.mediaType === 'CAROUSEL' ? d.children.length : 1,
    media: container.media,
    replyTo: d.replyTo,
    isReply: d.replyTo !== null,
    root: d.root,
    replyControl: d.replyControl,
    timestamp: container.publishedAt ?? container.createdAt,
    deleted: false,
  };
  const ref: ThReplyRef = { id };
  await Promise.all([
    d.replyTo ? kit.store.insert(REPLY_OF, id, ref, d.replyTo) : undefined,
    d.root ? kit.store.insert(THREAD_PART, id, ref, threadKey(container.owner, d.root)) : undefined,
  ]);
  await kit.store.insert(POST, id, post, edgeOwner(container.owner, post.isReply ? 'replies' : 'threads'));
}

async function publishingLimit(sim: ThSim, request: FastifyRequest<{ Params: GraphAccountPath }>, reply: FastifyReply) {
  const { kit } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!ownThAccount(reply, ctx.user, request.params.userId)) return reply;
  const fields = fieldsOf(ctx.params, ['quota_usage']);
  const now = kit.now();
  // Each usage is read only when asked for (one store read each).
  const usage = (name: string) => quotaUsage(kit.store, name, ctx.user.id, now);
  const all: Record<string, () => Promise<unknown> | unknown> = {
    quota_usage: () => usage(QUOTAS.posts),
    config: () => ({ quota_total: quota(kit, 'threadsPublishQuota', 250), quota_duration: 86400 }),
    reply_quota_usage: () => usage(QUOTAS.replies),
    reply_config: () => ({ quota_total: quota(kit, 'threadsReplyQuota', 1000), quota_duration: 86400 }),
    delete_quota_usage: () => usage(QUOTAS.deletions),
    delete_config: () => ({ quota_total: DELETES_PER_DAY, quota_duration: 86400 }),
  };
  const entry: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(all, f)) entry[f] = await all[f]!();
  return { data: [entry] };
}
