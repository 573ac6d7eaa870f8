// A post's conversation (docs/inbox.md "Platforms"): `GET /{threads-media-id}/conversation`, every reply under a
// root post at any depth (`threads_read_replies`), newest first unless `reverse=false`, with Graph cursor paging.
// Other people's replies are ordinary posts of simulated accounts, written by the trickle (when a conversation is
// read) and the control switch (src/sandbox/framework/inbox.ts), listed under their parent (REPLY_OF) like any reply.
// Threads mentions and DMs are not offered: Herald asks for neither permission.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { nextGraphId } from '../meta/containers.ts';
import { applyGraphFault, graphError } from '../meta/graph.ts';
import { edgeOwner, fieldsOf, pick, shortcodeOf, type GraphMediaPath } from '../meta/publishing.ts';
import { thUserFor } from './auth.ts';
import { beginThCall, hasScope, type ThSim } from './graph-call.ts';
import { postJson } from './posts.ts';
import { POST, REPLY_OF, THREAD_PART, threadKey, type ThPost, type ThReplyRef } from './state.ts';

export function registerThreadsConversation(app: FastifyInstance, sim: ThSim): void {
  app.get<{ Params: GraphMediaPath }>('/:version/:mediaId/conversation', (request, reply) =>
    conversation(sim, request, reply),
  );
}

/** Writes a reply to `parent` by the simulated account `author`. */
async function writeReply(sim: ThSim, author: string, parent: ThPost, text: string): Promise<string> {
  const { kit } = sim;
  const user = thUserFor(author);
  const id = await nextGraphId(kit);
  const root = parent.root ?? parent.id;
  const post: ThPost = {
    id,
    owner: user.id,
    username: user.username,
    containerId: '',
    text,
    mediaType: 'TEXT_POST',
    shortcode: shortcodeOf(id),
    items: 0,
    media: [],
    replyTo: parent.id,
    isReply: true,
    root,
    replyControl: 'everyone',
    timestamp: kit.now(),
    deleted: false,
  };
  const ref: ThReplyRef = { id };
  await Promise.all([
    kit.store.insert(REPLY_OF, id, ref, parent.id),
    kit.store.insert(THREAD_PART, id, ref, threadKey(user.id, root)),
  ]);
  await kit.store.insert(POST, id, post, edgeOwner(user.id, 'replies'));
  return id;
}

/** The control switch: replies to the account's post (`comment`) or to a reply under it (`reply`). */
export async function injectThreads(sim: ThSim, input: InboxInjection): Promise<InjectResult> {
  if (input.kind !== 'comment' && input.kind !== 'reply')
    return { error: `Herald reads no Threads ${input.kind}s: only replies to the account's posts (docs/inbox.md).` };
  const store = sim.kit.store;
  const owner = thUserFor(input.account);
  const post = input.post_id
    ? await store.get<ThPost>(POST, input.post_id)
    : (
        await store.list<ThPost>(POST, { owner: edgeOwner(owner.id, 'threads'), match: { deleted: false }, limit: 1 })
      )[0];
  if (!post || post.deleted) return { error: input.post_id ? `No post ${input.post_id}.` : 'No post to reply to.' };
  const parent = input.parent_id ? await store.get<ThPost>(POST, input.parent_id) : post;
  if (!parent || parent.deleted) return { error: `No post ${input.parent_id}.` };
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push(await writeReply(sim, author, parent, text));
  }
  return { ids };
}

/** Every live reply under `root`, at any depth, oldest first. */
async function treeOf(sim: ThSim, root: string): Promise<ThPost[]> {
  const out: ThPost[] = [];
  for (let level = [root]; level.length > 0;) {
    const refs = (
      await Promise.all(level.map((id) => sim.kit.store.list<ThReplyRef>(REPLY_OF, { owner: id, ascending: true })))
    ).flat();
    const posts = (await Promise.all(refs.map((r) => sim.kit.store.get<ThPost>(POST, r.id)))).filter(
      (p): p is ThPost => p !== undefined && !p.deleted,
    );
    out.push(...posts);
    level = posts.map((p) => p.id);
  }
  return out.sort((a, b) => a.timestamp - b.timestamp || Number(BigInt(a.id) - BigInt(b.id)));
}

async function conversation(sim: ThSim, request: FastifyRequest<{ Params: GraphMediaPath }>, reply: FastifyReply) {
  const { kit } = sim;
  const ctx = beginThCall(sim, request, reply);
  if (!ctx) return reply;
  if (!hasScope(reply, ctx.scopes, 'threads_read_replies')) return reply;
  const fault = kit.faults.take('list_inbox', ctx.user.id);
  if (applyGraphFault(kit, fault, request, reply, { businessId: ctx.user.id, type: 'threads' }) === 'sent')
    return reply;
  const post = await kit.store.get<ThPost>(POST, request.params.mediaId);
  if (!post || post.deleted)
    return graphError(reply, 400, {
      message: `Object with ID '${request.params.mediaId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  if (post.owner === ctx.user.id && post.root === null)
    await runTrickle(kit, [{ id: post.id, createdAt: post.timestamp }], async (_p, n) => {
      const { author, text } = trickleItem(post.id, n);
      await writeReply(sim, author, post, text);
    });
  const all = await treeOf(sim, post.id);
  if (ctx.params.reverse !== 'false') all.reverse();
  const limit = Math.min(100, Math.max(1, Number(ctx.params.limit) || 25));
  const after = ctx.params.after ? Number(Buffer.from(ctx.params.after, 'base64url').toString()) : 0;
  if (!Number.isInteger(after) || after < 0)
    return graphError(reply, 400, { message: 'Invalid parameter', code: 100, userMessage: 'Bad after cursor.' });
  const page = all.slice(after, after + limit);
  const fields = fieldsOf(ctx.params, ['id']);
  const next = after + page.length;
  const cursor = Buffer.from(String(next)).toString('base64url');
  return {
    data: page.map((p) => pick(postJson(p), fields)),
    ...(page.length > 0
      ? {
          paging: {
            cursors: { after: cursor },
            ...(next < all.length
              ? {
                  next: `${request.protocol}://${request.host}${request.url.split('?')[0]}?after=${cursor}&limit=${limit}`,
                }
              : {}),
          },
        }
      : {}),
  };
}
