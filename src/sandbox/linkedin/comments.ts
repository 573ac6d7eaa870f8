// Comments as the simulator plays the Community Management API (docs/inbox.md "Platforms"):
// `GET /rest/socialActions/{urn}/comments` (the comments on a post, or the replies to a comment when `{urn}` is a
// comment URN; oldest first, paged with `start`/`count`, `paging.total`) and `POST /rest/socialActions/{urn}/comments`
// (`{actor, object, message: {text}, parentComment?}`: 201, the comment in the body and its URN in `x-restli-id`).
// Comment URNs are `urn:li:comment:(<post urn>,<id>)`. Other members' comments come from the trickle and the control
// switch (src/sandbox/framework/inbox.ts). Faults: `list_inbox` on the list; `create_post` on the create, where
// `item_deleted` is the 404 of a comment its author deleted. ⚠ unverified: the order (oldest first) and that the
// object may be the share URN rather than its activity URN.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { applyFault, type SimulatorKit } from '../framework/simulator.ts';
import { memberFor } from './auth.ts';
import type { LiContext } from './gate.ts';
import { KIND, liError, type LiPost } from './state.ts';

const COMMENT = 'comment';
const COMMENT_COUNTER = 'comment';
const READ_SCOPES = ['r_member_social', 'r_organization_social', 'w_member_social', 'w_organization_social'];
const WRITE_SCOPES = ['w_member_social', 'w_organization_social'];
const MAX_TEXT = 1250;

export interface LiComment {
  id: string;
  urn: string;
  /** The post it is on. */
  post: string;
  /** The comment it answers (a nested reply); null on the post itself. */
  parent: string | null;
  actor: string;
  actorName: string;
  text: string;
  createdAt: number;
  deleted: boolean;
}

/** Store key of a comment: by its URN; owner: the post (top level) or the parent comment's URN (replies). */
async function writeComment(
  kit: SimulatorKit,
  post: string,
  parent: string | null,
  actor: string,
  actorName: string,
  text: string,
): Promise<LiComment> {
  const id = String(7_200_000_000_000_000_000n + (await kit.store.next(COMMENT_COUNTER)));
  const comment: LiComment = {
    id,
    urn: `urn:li:comment:(${post},${id})`,
    post,
    parent,
    actor,
    actorName,
    text,
    createdAt: kit.now(),
    deleted: false,
  };
  await kit.store.put(COMMENT, comment.urn, comment, parent ?? post);
  return comment;
}

/** A simulated member commenting. */
function commenter(username: string) {
  const m = memberFor(username);
  return { urn: `urn:li:person:${m.id}`, name: m.name };
}

/** The control switch: comments on the member's post, replies to one of them. */
export async function injectLinkedin(kit: SimulatorKit, input: InboxInjection): Promise<InjectResult> {
  if (input.kind !== 'comment' && input.kind !== 'reply')
    return { error: `LinkedIn gives Herald comments on posts, not ${input.kind}s (docs/inbox.md).` };
  const owner = `urn:li:person:${memberFor(input.account).id}`;
  const postUrn =
    input.post_id ?? (await kit.store.list<LiPost>(KIND.post, { owner, match: { deleted: false }, limit: 1 }))[0]?.urn;
  const post = postUrn ? await kit.store.get<LiPost>(KIND.post, postUrn) : undefined;
  if (!post || post.deleted) return { error: postUrn ? `No post ${postUrn}.` : `${input.account} has no post.` };
  let parent = input.parent_id ? await kit.store.get<LiComment>(COMMENT, input.parent_id) : undefined;
  if (input.parent_id && !parent) return { error: `No comment ${input.parent_id}.` };
  if (input.kind === 'reply' && !parent) {
    const first = commenter('grace_ho');
    parent = await writeComment(kit, post.urn, null, first.urn, first.name, 'First!');
  }
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    const who = commenter(author);
    const made = await writeComment(
      kit,
      post.urn,
      input.kind === 'reply' ? parent!.urn : null,
      who.urn,
      who.name,
      text,
    );
    ids.push(made.urn);
  }
  return { ids };
}

function commentJson(c: LiComment) {
  const stamp = { actor: c.actor, time: c.createdAt };
  return {
    actor: c.actor,
    commentUrn: c.urn,
    id: c.id,
    object: c.post,
    ...(c.parent ? { parentComment: c.parent } : {}),
    message: { text: c.text, attributes: [] },
    created: stamp,
    lastModified: stamp,
    likesSummary: { totalLikes: 0, likedByCurrentUser: false, selectedLikes: [] },
  };
}

export function registerLiComments(app: FastifyInstance, ctx: LiContext): void {
  app.get<{ Params: { urn: string }; Querystring: { start?: string; count?: string } }>(
    '/rest/socialActions/:urn/comments',
    (request, reply) => listComments(ctx, request, reply),
  );
  app.post<{ Params: { urn: string } }>('/rest/socialActions/:urn/comments', (request, reply) =>
    createComment(ctx, request, reply),
  );
}

/** The 429 of a rate-limit fault carries Retry-After (LinkedIn sends none: tests need not wait for midnight UTC). */
function faulted(
  ctx: LiContext,
  g: NonNullable<Awaited<ReturnType<LiContext['gate']>>>,
  op: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const fault = ctx.kit.faults.take(op, g.member.id);
  if (fault?.fault === 'rate_limited') {
    reply
      .code(429)
      .header('retry-after', String(fault.retryAfterSeconds ?? 2))
      .send(liError(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.'));
    return { sent: true, fault: fault.fault };
  }
  return { sent: applyFault(ctx.kit, g.errors, fault, request, reply, 'ietf') === 'sent', fault: fault?.fault };
}

async function listComments(
  ctx: LiContext,
  request: FastifyRequest<{ Params: { urn: string }; Querystring: { start?: string; count?: string } }>,
  reply: FastifyReply,
) {
  const { kit } = ctx;
  const g = await ctx.gate(request, reply, READ_SCOPES, true);
  if (!g) return reply;
  if (faulted(ctx, g, 'list_inbox', request, reply).sent) return reply;
  const urn = request.params.urn;
  const start = request.query.start === undefined ? 0 : Number(request.query.start);
  const count = request.query.count === undefined ? 10 : Number(request.query.count);
  if (!Number.isInteger(start) || start < 0 || !Number.isInteger(count) || count < 0 || count > 100)
    return reply
      .code(400)
      .send(liError(400, 'start and count must be integers (count at most 100)', { code: 'ILLEGAL_ARGUMENT' }));
  if (urn.startsWith('urn:li:share:') || urn.startsWith('urn:li:ugcPost:')) {
    const post = await kit.store.get<LiPost>(KIND.post, urn);
    if (!post || post.deleted) return reply.code(404).send(liError(404, `Not Found: ${urn}`));
    await runTrickle(kit, [{ id: post.urn, createdAt: post.createdAt }], async (p, n) => {
      const { author, text } = trickleItem(p.id, n);
      const who = commenter(author);
      await writeComment(kit, p.id, null, who.urn, who.name, text);
    });
  } else if (!urn.startsWith('urn:li:comment:'))
    return reply.code(400).send(liError(400, `Invalid URN ${urn}`, { code: 'ILLEGAL_ARGUMENT' }));
  const all = await kit.store.list<LiComment>(COMMENT, { owner: urn, match: { deleted: false }, ascending: true });
  return {
    paging: { start, count, total: all.length, links: [] },
    elements: all.slice(start, start + count).map(commentJson),
  };
}

async function createComment(
  ctx: LiContext,
  request: FastifyRequest<{ Params: { urn: string } }>,
  reply: FastifyReply,
) {
  const { kit } = ctx;
  const g = await ctx.gate(request, reply, WRITE_SCOPES, true);
  if (!g) return reply;
  const f = faulted(ctx, g, 'create_post', request, reply);
  if (f.sent) return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  const b = body.fields as { actor?: unknown; object?: unknown; parentComment?: unknown; message?: { text?: unknown } };
  if (
    !body.valid ||
    body.contentType !== 'application/json' ||
    typeof b.actor !== 'string' ||
    typeof b.object !== 'string'
  )
    return reply.code(400).send(liError(400, 'actor and object are required', { code: 'ILLEGAL_ARGUMENT' }));
  const text = b.message?.text;
  if (typeof text !== 'string' || text.trim() === '' || [...text].length > MAX_TEXT)
    return reply.code(422).send(liError(422, `message.text must be 1 to ${MAX_TEXT} characters`));
  const member = `urn:li:person:${g.member.id}`;
  if (b.actor !== member && !b.actor.startsWith('urn:li:organization:'))
    return reply
      .code(403)
      .send(liError(403, `Not enough permissions to comment as ${b.actor}`, { code: 'ACCESS_DENIED' }));
  const target = request.params.urn;
  const post = await kit.store.get<LiPost>(KIND.post, b.object);
  const parent = target.startsWith('urn:li:comment:') ? await kit.store.get<LiComment>(COMMENT, target) : undefined;
  if (
    !post ||
    post.deleted ||
    (target.startsWith('urn:li:comment:') && (!parent || parent.deleted || parent.post !== post.urn)) ||
    f.fault === 'item_deleted'
  )
    return reply.code(404).send(liError(404, `Not Found: ${target}`));
  const made = await writeComment(kit, post.urn, parent ? parent.urn : null, b.actor, g.member.name, text);
  return reply.code(201).header('x-restli-id', made.urn).send(commentJson(made));
}

/** Comments written through the API by the members themselves (the inbox's answers), for the control surface. */
export async function apiComments(kit: SimulatorKit): Promise<LiComment[]> {
  return (await kit.store.list<LiComment>(COMMENT, { ascending: true })).filter((c) => c.parent !== null);
}
