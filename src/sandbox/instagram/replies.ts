// Comment replies and the inbox side of the Instagram simulator (docs/inbox.md "Platforms"): replies to a comment
// (`POST /{ig-comment-id}/replies`, `GET /{ig-comment-id}/replies`; one level deep, a reply to a reply joins its
// top-level comment), the `replies{…}` and `from{…}` expansions of a media's comments, and other people's comments
// written by the trickle (when a media's comments are read) and the control switch (src/sandbox/framework/inbox.ts).
// Mentions arrive only by webhook and DMs need `instagram_business_manage_messages`, which Herald does not ask for:
// the simulator offers neither.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measure } from '../../platforms/instagram/limits.ts';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { nextGraphId } from '../meta/containers.ts';
import { applyGraphFault, graphError } from '../meta/graph.ts';
import { edgeOwner, isoTime, pick } from '../meta/publishing.ts';
import { igUserFor } from './auth.ts';
import { beginIgCall, type IgSim } from './graph-call.ts';
import { COMMENT, MEDIA, type IgComment, type IgMedia } from './state.ts';

interface CommentPath {
  version: string;
  commentId: string;
}

export function registerIgReplies(app: FastifyInstance, sim: IgSim): void {
  app.post<{ Params: CommentPath }>('/:version/:commentId/replies', (request, reply) =>
    createReply(sim, request, reply),
  );
  app.get<{ Params: CommentPath }>('/:version/:commentId/replies', (request, reply) =>
    listReplies(sim, request, reply),
  );
}

/** `a,b{c,d},e` → [`a`, `b{c,d}`, `e`]: Graph's field list with nested expansions. */
function splitFields(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if ((ch === ',' && depth === 0) || i === text.length) {
      const field = text.slice(start, i).trim();
      if (field) out.push(field);
      start = i + 1;
    }
  }
  return out;
}

function commentJson(
  c: IgComment,
  all: readonly IgComment[],
  fieldsParam: string | undefined,
): Record<string, unknown> {
  const fields = splitFields(fieldsParam ?? 'id,text,timestamp');
  const full: Record<string, unknown> = {
    id: c.id,
    text: c.text,
    username: c.username,
    timestamp: isoTime(c.timestamp),
    from: { id: igUserFor(c.username).id, username: c.username },
    ...(c.parentId ? { parent_id: c.parentId } : {}),
    media: { id: c.mediaId },
  };
  const names: string[] = [];
  for (const f of fields) {
    const nested = /^(\w+)\{(.*)\}$/.exec(f);
    if (nested?.[1] === 'replies')
      full.replies = { data: all.filter((r) => r.parentId === c.id).map((r) => commentJson(r, all, nested[2])) };
    names.push(nested ? nested[1]! : f);
  }
  return pick(full, names);
}

/** A media's top-level comments, as `GET /{ig-media-id}/comments` answers them. */
export function commentsJson(all: readonly IgComment[], fieldsParam: string | undefined): Record<string, unknown>[] {
  return all.filter((c) => !c.parentId).map((c) => commentJson(c, all, fieldsParam));
}

async function writeComment(sim: IgSim, media: IgMedia, author: string, text: string, parentId?: string) {
  const { kit } = sim;
  const comment: IgComment = {
    id: await nextGraphId(kit),
    mediaId: media.id,
    text,
    username: author.toLowerCase(),
    timestamp: kit.now(),
    ...(parentId ? { parentId } : {}),
  };
  await kit.store.put(COMMENT, comment.id, comment, media.id);
  await kit.store.update<IgMedia>(MEDIA, media.id, (m) => ({ ...m, commentCount: m.commentCount + 1 }));
  return comment;
}

/** Comments the trickle owes a media item (run when its comments are read). */
export async function trickleIgComments(sim: IgSim, media: IgMedia): Promise<void> {
  await runTrickle(sim.kit, [{ id: media.id, createdAt: media.timestamp }], async (_m, n) => {
    const { author, text } = trickleItem(media.id, n);
    await writeComment(sim, media, author, text);
  });
}

/** The control switch: comments on the account's media (`comment`) and replies to a comment (`reply`). */
export async function injectInstagram(sim: IgSim, input: InboxInjection): Promise<InjectResult> {
  if (input.kind !== 'comment' && input.kind !== 'reply')
    return { error: `Herald reads no Instagram ${input.kind}s: only comments on the account's media (docs/inbox.md).` };
  const store = sim.kit.store;
  const owner = igUserFor(input.account);
  const media = input.post_id
    ? await store.get<IgMedia>(MEDIA, input.post_id)
    : (
        await store.list<IgMedia>(MEDIA, { owner: edgeOwner(owner.id, 'media'), match: { deleted: false }, limit: 1 })
      )[0];
  if (!media || media.deleted)
    return { error: input.post_id ? `No media ${input.post_id}.` : 'No media to comment on.' };
  let parentId: string | undefined;
  if (input.kind === 'reply') {
    const parent = input.parent_id ? await store.get<IgComment>(COMMENT, input.parent_id) : undefined;
    if (!parent) return { error: 'A reply needs the `parent_id` of a comment.' };
    parentId = parent.parentId ?? parent.id;
  }
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    ids.push((await writeComment(sim, media, author, text, parentId)).id);
  }
  return { ids };
}

const missing = (reply: FastifyReply, id: string) =>
  graphError(reply, 400, {
    message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'GraphMethodException',
    code: 100,
    subcode: 33,
  });

async function createReply(sim: IgSim, request: FastifyRequest<{ Params: CommentPath }>, reply: FastifyReply) {
  const { kit } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const fault = kit.faults.take('create_comment', ctx.user.id);
  const applied = applyGraphFault(kit, fault, request, reply, { businessId: ctx.user.id, type: 'instagram' });
  if (applied === 'sent') return reply;
  const parent = await kit.store.get<IgComment>(COMMENT, request.params.commentId);
  const media = parent ? await kit.store.get<IgMedia>(MEDIA, parent.mediaId) : undefined;
  if (!parent || !media || media.deleted || fault?.fault === 'item_deleted')
    return missing(reply, request.params.commentId);
  const message = ctx.params.message ?? '';
  if (!message.trim()) return graphError(reply, 400, { message: 'The parameter message is required.', code: 100 });
  if (measure(message) > 2200)
    return graphError(reply, 400, { message: 'The comment is too long (2200 characters at most).', code: 100 });
  const written = await writeComment(sim, media, ctx.user.username, message, parent.parentId ?? parent.id);
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return { id: written.id };
}

async function listReplies(sim: IgSim, request: FastifyRequest<{ Params: CommentPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const parent = await sim.kit.store.get<IgComment>(COMMENT, request.params.commentId);
  if (!parent) return missing(reply, request.params.commentId);
  const all = await sim.kit.store.list<IgComment>(COMMENT, { owner: parent.mediaId, ascending: true });
  return {
    data: all.filter((c) => c.parentId === parent.id).map((c) => commentJson(c, all, ctx.params.fields)),
  };
}
