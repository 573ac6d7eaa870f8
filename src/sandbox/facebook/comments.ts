// Comments on Page posts (docs/inbox.md "Platforms"): `GET /{object-id}/comments` (a post's or a comment's;
// `filter=stream` lists replies too, each with its `parent`; `order=reverse_chronological`), `POST
// /{object-id}/comments` (a comment as the Page; on a comment, a reply; with `attachment_id`, an unpublished photo of
// the Page attached to it). Other people's comments are written by the
// trickle (when a post's comments are read) and the control switch (src/sandbox/framework/inbox.ts). Page
// conversations (Messenger) need `pages_messaging`, which Herald does not ask for: the simulator offers none.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { numericId } from '../framework/simulator.ts';
import { graphError, invalidParameter } from './graph-reply.ts';
import { pageGate, type NodePath } from './page-gate.ts';
import { KIND, type FbPhoto, type FbPost, type FbSim } from './state.ts';
import { fieldList, graphTime } from './views.ts';

const COMMENT = 'comment';

export interface FbComment {
  /** `{post-suffix}_{comment}`, as Graph names comments. */
  id: string;
  postId: string;
  /** The comment this one replies to (Facebook threads one level deep under a top-level comment). */
  parentId: string | null;
  message: string;
  fromId: string;
  fromName: string;
  createdAt: number;
  /** The unpublished photo attached to the comment (`attachment_id`), when there is one. */
  photoId?: string;
}

export function registerFbComments(app: FastifyInstance, sim: FbSim): void {
  app.get<{ Params: NodePath }>('/:version/:id/comments', (request, reply) => listComments(sim, request, reply));
  app.post<{ Params: NodePath }>('/:version/:id/comments', (request, reply) => createComment(sim, request, reply));
}

async function writeComment(
  sim: FbSim,
  post: FbPost,
  from: { id: string; name: string },
  text: string,
  parent?: string,
  photoId?: string,
) {
  const { kit } = sim;
  const comment: FbComment = {
    id: `${post.id.split('_')[1] ?? post.id}_${await kit.snowflake()}`,
    postId: post.id,
    parentId: parent ?? null,
    message: text,
    fromId: from.id,
    fromName: from.name,
    createdAt: kit.now(),
    ...(photoId ? { photoId } : {}),
  };
  await kit.store.put(COMMENT, comment.id, comment, post.id);
  return comment;
}

const person = (name: string) => ({
  id: numericId(`facebook:user:${name.toLowerCase()}`),
  name: name.replace(/[._]/g, ' '),
});

/** The control switch: comments on the Page's post (`comment`) and replies to a comment (`reply`). */
export async function injectFacebook(sim: FbSim, input: InboxInjection): Promise<InjectResult> {
  if (input.kind !== 'comment' && input.kind !== 'reply')
    return { error: `Herald reads no Facebook ${input.kind}s: only comments on the Page's posts (docs/inbox.md).` };
  const store = sim.kit.store;
  const pageId = numericId(`facebook:page:${input.account.toLowerCase()}`);
  const post = input.post_id
    ? await store.get<FbPost>(KIND.post, input.post_id)
    : (await store.list<FbPost>(KIND.post, { owner: pageId, match: { deleted: false }, limit: 1 }))[0];
  if (!post || post.deleted) return { error: input.post_id ? `No post ${input.post_id}.` : 'No post to comment on.' };
  let parent: string | undefined;
  if (input.kind === 'reply') {
    const of = input.parent_id ? await store.get<FbComment>(COMMENT, input.parent_id) : undefined;
    if (!of) return { error: 'A reply needs the `parent_id` of a comment.' };
    parent = of.parentId ?? of.id;
  }
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push((await writeComment(sim, post, person(author), text, parent)).id);
  }
  return { ids };
}

function commentJson(c: FbComment, fields: string[]): Record<string, unknown> {
  const all: Record<string, unknown> = {
    id: c.id,
    message: c.message,
    created_time: graphTime(c.createdAt),
    from: { id: c.fromId, name: c.fromName },
    ...(c.parentId ? { parent: { id: c.parentId } } : {}),
    ...(c.photoId ? { attachment: { type: 'photo', target: { id: c.photoId } } } : {}),
  };
  const out: Record<string, unknown> = { id: c.id };
  for (const f of fields) if (f in all) out[f] = all[f];
  return out;
}

/** The object a comments call names: a post, or a comment (and its post). */
async function targetOf(sim: FbSim, id: string): Promise<{ post: FbPost; comment?: FbComment } | undefined> {
  const comment = await sim.kit.store.get<FbComment>(COMMENT, id);
  const post = await sim.kit.store.get<FbPost>(KIND.post, comment?.postId ?? id);
  if (!post || post.deleted) return undefined;
  return { post, ...(comment ? { comment } : {}) };
}

const unknownObject = (reply: FastifyReply, id: string) =>
  graphError(reply, 400, {
    code: 100,
    subcode: 33,
    message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });

async function listComments(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const target = await targetOf(sim, request.params.id);
  const call = await pageGate(sim, request, reply, {
    version: request.params.version,
    pageId: target?.post.pageId ?? request.params.id.split('_')[0]!,
    operation: 'list_inbox',
    scope: 'pages_read_engagement',
  });
  if (!call) return reply;
  if (!target) return unknownObject(reply, request.params.id);
  const q = call.fields;
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return invalidParameter(reply, 'limit must be an integer from 1 to 100.');
  if (!target.comment)
    await runTrickle(sim.kit, [{ id: target.post.id, createdAt: target.post.createdAt }], async (_p, n) => {
      const { author, text } = trickleItem(target.post.id, n);
      await writeComment(sim, target.post, person(author), text);
    });
  const stored = await sim.kit.store.list<FbComment>(COMMENT, { owner: target.post.id, ascending: true });
  const stream = q.filter === 'stream';
  let list = stored.filter((c) => (target.comment ? c.parentId === target.comment.id : stream || !c.parentId));
  if (q.order === 'reverse_chronological') list = list.reverse();
  const offset = typeof q.after === 'string' ? Number(Buffer.from(q.after, 'base64url').toString()) || 0 : 0;
  const page = list.slice(offset, offset + limit);
  const fields = fieldList(q);
  const next = offset + page.length;
  const cursor = Buffer.from(String(next)).toString('base64url');
  return {
    data: page.map((c) => commentJson(c, fields)),
    paging: {
      cursors: { after: cursor },
      ...(next < list.length
        ? { next: `${request.protocol}://${request.host}${request.url.split('?')[0]}?after=${cursor}` }
        : {}),
    },
  };
}

async function createComment(sim: FbSim, request: FastifyRequest<{ Params: NodePath }>, reply: FastifyReply) {
  const target = await targetOf(sim, request.params.id);
  const call = await pageGate(sim, request, reply, {
    version: request.params.version,
    pageId: target?.post.pageId ?? request.params.id.split('_')[0]!,
    operation: 'create_comment',
    scope: 'pages_manage_engagement',
  });
  if (!call) return reply;
  if (!target || call.fault?.fault === 'item_deleted') return unknownObject(reply, request.params.id);
  const message = typeof call.fields.message === 'string' ? call.fields.message : '';
  const attachment = call.fields.attachment_id;
  const photoId = typeof attachment === 'string' || typeof attachment === 'number' ? String(attachment) : undefined;
  if (!message.trim() && !photoId)
    return invalidParameter(reply, 'The parameter message or attachment_id is required.');
  if (photoId) {
    // An unpublished photo of the Page, attached once (as a feed post attaches its photos).
    const photo = await sim.kit.store.get<FbPhoto>(KIND.photo, photoId);
    if (!photo || photo.pageId !== call.page.id || photo.published)
      return invalidParameter(reply, `attachment_id: ${photoId} is not an unpublished photo of this Page.`);
  }
  const parent = target.comment ? (target.comment.parentId ?? target.comment.id) : undefined;
  const from = { id: call.page.id, name: call.page.name };
  const written = await writeComment(sim, target.post, from, message, parent, photoId);
  if (photoId) {
    const claimed = await sim.kit.store.update<FbPhoto>(KIND.photo, photoId, (p) =>
      p.postId === null ? { ...p, postId: written.id } : undefined,
    );
    if (claimed?.postId !== written.id) {
      await sim.kit.store.delete(COMMENT, written.id);
      return graphError(reply, 400, { code: 100, subcode: 1366051, message: '(#100) This photo was already posted.' });
    }
  }
  if (call.drop) return sim.kit.dropConnection(request, reply);
  return { id: written.id };
}
