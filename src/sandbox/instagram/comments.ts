// Comments on Instagram media (docs/platforms/instagram.md "Calls"): posting one (`POST /{ig-media-id}/comments`, a
// publishing step Herald uses for first comments) and listing them. Each comment is a document of its own (owner:
// its media), and the media counts them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measure } from '../../platforms/instagram/limits.ts';
import { nextGraphId } from '../meta/containers.ts';
import { applyGraphFault, graphError } from '../meta/graph.ts';
import { type GraphMediaPath } from '../meta/publishing.ts';
import { beginIgCall, type IgSim } from './graph-call.ts';
import { commentsJson, trickleIgComments } from './replies.ts';
import { COMMENT, MEDIA, type IgComment, type IgMedia } from './state.ts';

export function registerIgComments(app: FastifyInstance, sim: IgSim): void {
  app.post<{ Params: GraphMediaPath }>('/:version/:mediaId/comments', (request, reply) =>
    createComment(sim, request, reply),
  );
  app.get<{ Params: GraphMediaPath }>('/:version/:mediaId/comments', (request, reply) =>
    listComments(sim, request, reply),
  );
}

async function createComment(sim: IgSim, request: FastifyRequest<{ Params: GraphMediaPath }>, reply: FastifyReply) {
  const { kit } = sim;
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const media = await kit.store.get<IgMedia>(MEDIA, request.params.mediaId);
  if (!media || media.deleted)
    return graphError(reply, 400, {
      message: 'Unsupported post request. The media does not exist.',
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  const applied = applyGraphFault(kit, kit.faults.take('create_comment', ctx.user.id), request, reply, {
    businessId: ctx.user.id,
    type: 'instagram',
  });
  if (applied === 'sent') return reply;
  const message = ctx.params.message ?? '';
  if (!message.trim()) return graphError(reply, 400, { message: 'The parameter message is required.', code: 100 });
  if (measure(message) > 2200)
    return graphError(reply, 400, { message: 'The comment is too long (2200 characters at most).', code: 100 });
  const comment: IgComment = {
    id: await nextGraphId(kit),
    mediaId: media.id,
    text: message,
    username: ctx.user.username,
    timestamp: kit.now(),
  };
  await kit.store.put(COMMENT, comment.id, comment, media.id);
  await kit.store.update<IgMedia>(MEDIA, media.id, (m) => ({ ...m, commentCount: m.commentCount + 1 }));
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return { id: comment.id };
}

async function listComments(sim: IgSim, request: FastifyRequest<{ Params: GraphMediaPath }>, reply: FastifyReply) {
  const ctx = beginIgCall(sim, request, reply);
  if (!ctx) return reply;
  const media = await sim.kit.store.get<IgMedia>(MEDIA, request.params.mediaId);
  if (!media || media.deleted)
    return graphError(reply, 400, {
      message: 'Unsupported get request. The media does not exist.',
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  // Top-level comments only; their replies through `replies{…}` (src/sandbox/instagram/replies.ts).
  if (media.owner === ctx.user.id) await trickleIgComments(sim, media);
  const all = await sim.kit.store.list<IgComment>(COMMENT, { owner: media.id, ascending: true });
  return { data: commentsJson(all, ctx.params.fields) };
}
