// LinkedIn posts (docs/platforms/linkedin.md "Calls"): POST /rest/posts with its required fields, the commentary in
// "little" text (unescaped reserved characters cut the post short, as LinkedIn silently does), member and
// organization authors, media by URN (one image, video or document, or a multi-image set of 2–20), 201 with the
// id in `x-restli-id`, duplicate commentary → 422 DUPLICATE_POST; read, delete, the author finder the adapter's
// reconciliation uses, and the web page of each post for sandbox URLs. What `content` may hold: content.ts. Posts are
// store documents; their ids come from a store counter, so none is handed out twice, restarts and API nodes included.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { sendMissingPost, sendPostPage, type PagePart } from '../framework/post-page.ts';
import { applyFault, type SimulatorKit } from '../framework/simulator.ts';
import { grantedScopes, hasScopes, organizationOf } from './auth.ts';
import { checkContent } from './content.ts';
import { hostOf, type LiContext } from './gate.ts';
import { mayActAs } from './media.ts';
import { FIRST_SHARE, inputError, KIND, liError, SHARE_COUNTER, type LiCommentary, type LiPost } from './state.ts';

const MAX_COMMENTARY = 3000; // ⚠ unverified (clients' figure, docs/platforms/linkedin.md "Limits")
const DUPLICATE_WINDOW_MS = 24 * 3600_000; // ⚠ unverified: how far back LinkedIn compares commentary
const POSTS_PER_DAY = 150; // ⚠ unverified (Ayrshare's figure; LinkedIn publishes none)
const REQUIRED = ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState'] as const;
const ALLOWED = new Set([
  ...REQUIRED,
  'content',
  'isReshareDisabledByAuthor',
  'contentLandingPage',
  'contentCallToActionLabel',
  'reshareContext',
  'container',
  'adContext',
]);
const VISIBILITIES = new Set(['PUBLIC', 'CONNECTIONS', 'LOGGED_IN', 'CONTAINER']);
const RESERVED = new Set(['|', '{', '}', '@', '[', ']', '(', ')', '<', '>', '#', '\\', '*', '_', '~']);

/**
 * What readers see of a little-text commentary: escapes removed, `#tag` hashtags and `@[Name](urn)` mentions kept
 * as text, and the rest cut at the first unescaped reserved character. ⚠ unverified: exactly where LinkedIn cuts.
 */
export function readLittleText(commentary: string): { plain: string; truncated: boolean } {
  let out = '';
  const chars = [...commentary];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (!RESERVED.has(c)) {
      out += c;
      continue;
    }
    if (c === '\\' && i + 1 < chars.length) {
      out += chars[++i];
      continue;
    }
    if (c === '#' && i + 1 < chars.length && /[\p{L}\p{N}]/u.test(chars[i + 1]!)) {
      out += c;
      continue;
    }
    const mention = /^@\[([^\]]*)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/.exec(chars.slice(i).join(''));
    if (c === '@' && mention) {
      out += mention[1];
      i += [...mention[0]].length - 1;
      continue;
    }
    return { plain: out, truncated: true };
  }
  return { plain: out, truncated: false };
}

function postJson(p: LiPost): Record<string, unknown> {
  return {
    id: p.urn,
    author: p.author,
    commentary: p.commentary,
    visibility: p.visibility,
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
    isReshareDisabledByAuthor: false,
    createdAt: p.createdAt,
    lastModifiedAt: p.createdAt,
    publishedAt: p.createdAt,
    lifecycleStateInfo: { isEditedByAuthor: false },
    ...(p.content && { content: p.content }),
  };
}

/** Where an author's claim on a commentary is kept: the duplicate check is one document, however many posts. */
function commentaryKey(author: string, commentary: string): string {
  return `${author} ${createHash('sha256').update(commentary).digest('base64url')}`;
}

/** Posts are read and written with either member or organization scopes; the author decides which is needed. */
const WRITE_SCOPES = ['w_member_social', 'w_organization_social'];

interface UrnParams {
  urn: string;
}

interface AuthorFinderQuery {
  q?: string;
  author?: string;
  count?: string;
  start?: string;
}

export function registerLiPosts(app: FastifyInstance, ctx: LiContext): void {
  app.post('/rest/posts', (request, reply) => createPost(ctx, request, reply));
  app.get<{ Params: UrnParams }>('/rest/posts/:urn', (request, reply) => readPost(ctx, request, reply));
  app.delete<{ Params: UrnParams }>('/rest/posts/:urn', (request, reply) => deletePost(ctx, request, reply));
  app.get<{ Querystring: AuthorFinderQuery }>('/rest/posts', (request, reply) => postsByAuthor(ctx, request, reply));
  // Sandbox URLs of posts point here (the real ones are https://www.linkedin.com/feed/update/<urn>).
  app.get<{ Params: UrnParams }>('/web/feed/update/:urn', (request, reply) => postPage(ctx, request, reply));
}

async function createPost(ctx: LiContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, gate } = ctx;
  const g = await gate(request, reply, WRITE_SCOPES, true);
  if (!g) return reply;
  const day = new Date(kit.now()).toISOString().slice(0, 10); // daily windows reset at midnight UTC
  if (!kit.windows.hit(`posts:${g.member.id}:${day}`, kit.limit(POSTS_PER_DAY), 24 * 3600_000).allowed) {
    return reply
      .code(429)
      .send(liError(429, 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.'));
  }
  const fault = kit.faults.take('create_post', g.member.id);
  if (fault?.fault === 'rate_limited') {
    // ⚠ unverified: LinkedIn sends no rate-limit headers; the injected fault carries Retry-After so tests can
    // wait a short time instead of until midnight UTC.
    return reply
      .code(429)
      .header('retry-after', String(fault.retryAfterSeconds ?? 2))
      .send(liError(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.'));
  }
  const applied = applyFault(kit, g.errors, fault, request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json')
    return reply
      .code(400)
      .send(liError(400, 'Request body could not be converted to data map', { code: 'ILLEGAL_ARGUMENT' }));
  const f = body.fields;
  const missing = REQUIRED.filter((k) => f[k] === undefined);
  if (missing.length > 0) {
    return reply.code(422).send(
      liError(422, `Missing required fields: ${missing.join(', ')}`, {
        errorDetailType: 'com.linkedin.common.error.BadRequest',
        errorDetails: {
          inputErrors: missing.map((k) => ({
            description: 'Field is required',
            input: { inputPath: { fieldPath: `/${k}` } },
            code: 'FIELD_REQUIRED',
          })),
        },
      }),
    );
  }
  const unknown = Object.keys(f).filter((k) => !ALLOWED.has(k));
  if (unknown.length > 0)
    return reply.code(422).send(inputError(`/${unknown[0]}`, 'UNRECOGNIZED_FIELD', `Unrecognized field ${unknown[0]}`));
  if (typeof f.author !== 'string' || !/^urn:li:(person|organization):[A-Za-z0-9_-]+$/.test(f.author))
    return reply
      .code(422)
      .send(inputError('/author', 'INVALID_URN_TYPE', 'author must be a person or organization URN'));
  if (!mayActAs(g.member, f.author)) {
    return reply.code(403).send(
      liError(403, `Not enough permissions to access: partnerApiPostsExternal.CREATE.20240101 (author ${f.author})`, {
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
      }),
    );
  }
  const scopes = f.author.startsWith('urn:li:organization:') ? ['w_organization_social'] : ['w_member_social'];
  if (!hasScopes(grantedScopes(kit, request), request, reply, scopes)) return reply;
  if (typeof f.commentary !== 'string')
    return reply.code(422).send(inputError('/commentary', 'INVALID_VALUE', 'commentary must be a string'));
  if ([...f.commentary].length > MAX_COMMENTARY)
    return reply
      .code(422)
      .send(inputError('/commentary', 'MAX_LENGTH_EXCEEDED', `commentary is longer than ${MAX_COMMENTARY} characters`));
  if (typeof f.visibility !== 'string' || !VISIBILITIES.has(f.visibility))
    return reply
      .code(422)
      .send(
        inputError('/visibility', 'INVALID_ENUM_VALUE', `visibility must be one of ${[...VISIBILITIES].join(', ')}`),
      );
  // ⚠ unverified: the exact answer; a company page has no connections, so its posts are public.
  if (f.author.startsWith('urn:li:organization:') && f.visibility === 'CONNECTIONS')
    return reply
      .code(422)
      .send(inputError('/visibility', 'INVALID_VALUE', 'An organization post cannot be limited to connections'));
  const d = f.distribution as Record<string, unknown> | undefined;
  if (!d || typeof d !== 'object' || (d.feedDistribution !== 'MAIN_FEED' && d.feedDistribution !== 'NONE'))
    return reply
      .code(422)
      .send(
        inputError(
          '/distribution/feedDistribution',
          'INVALID_ENUM_VALUE',
          'distribution.feedDistribution must be MAIN_FEED or NONE',
        ),
      );
  if (f.lifecycleState !== 'PUBLISHED' && f.lifecycleState !== 'DRAFT')
    return reply
      .code(422)
      .send(inputError('/lifecycleState', 'INVALID_ENUM_VALUE', 'lifecycleState must be PUBLISHED or DRAFT'));
  const commentary = f.commentary;
  const content = await checkContent(kit, reply, f.author, f.content);
  if ('refused' in content) return content.refused;
  const mediaCount = content.count;
  if (commentary.trim() === '' && mediaCount === 0)
    return reply.code(422).send(inputError('/commentary', 'FIELD_REQUIRED', 'A post without media needs commentary'));
  const duplicate = (earlier: string) =>
    reply.code(422).send(
      liError(422, `Content is a duplicate of ${earlier}`, {
        errorDetailType: 'com.linkedin.common.error.BadRequest',
        errorDetails: {
          inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }],
        },
      }),
    );
  if (fault?.fault === 'duplicate') return duplicate('urn:li:share:0');
  const urn = `urn:li:share:${await kit.store.next(SHARE_COUNTER, FIRST_SHARE)}`;
  const org = organizationOf(g.member);
  const post: LiPost = {
    urn,
    author: f.author,
    memberId: g.member.id,
    by: f.author.startsWith('urn:li:organization:')
      ? { name: org.name, handle: `company/${org.vanityName}` }
      : { name: g.member.name, handle: `in/${g.member.username.toLowerCase()}` },
    commentary,
    plain: readLittleText(commentary).plain,
    visibility: f.visibility,
    content: f.content as Record<string, unknown> | undefined,
    mediaCount,
    createdAt: kit.now(),
    deleted: false,
  };
  // The commentary is claimed before the post is written, so of two identical posts sent at once (on any nodes)
  // one is refused, naming the other.
  const earlier = commentary === '' ? undefined : await claimCommentary(kit, post);
  if (earlier) return duplicate(earlier.urn);
  await kit.store.insert(KIND.post, urn, post, f.author);
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return reply.code(201).header('x-restli-id', urn).header('x-linkedin-id', urn).send();
}

/**
 * Claims the author's commentary for `post`: undefined when it holds the claim afterwards, else the live post that
 * does (younger than the duplicate window, not deleted). An expired claim, or one whose post was deleted, is taken
 * over atomically, so of two requests only one gets it. A claim whose post is not in the store (its node stopped
 * between the claim and the post, or is writing it now) has its post written from the claim, which carries it
 * whole: that post stands, as it would have.
 */
async function claimCommentary(kit: SimulatorKit, post: LiPost): Promise<LiPost | undefined> {
  const { store } = kit;
  const id = commentaryKey(post.author, post.commentary);
  const mine: LiCommentary = { post };
  const now = kit.now();
  let holder: LiPost | undefined;
  // A few rounds at most: each one ends unless another request changed the claim in between.
  for (let round = 0; round < 3; round++) {
    if (await store.insert<LiCommentary>(KIND.commentary, id, mine, post.author)) return undefined;
    const held = await store.update<LiCommentary>(KIND.commentary, id, (claim) =>
      claim.post.createdAt <= now - DUPLICATE_WINDOW_MS ? mine : undefined,
    );
    if (!held) continue; // removed in between (a reset): claim it afresh
    if (held.post.urn === post.urn) return undefined;
    holder = held.post;
    const stored = await store.get<LiPost>(KIND.post, holder.urn);
    if (!stored) await store.insert(KIND.post, holder.urn, holder, holder.author);
    if (!stored || !stored.deleted) return holder;
    const urn = holder.urn;
    const after = await store.update<LiCommentary>(KIND.commentary, id, (claim) =>
      claim.post.urn === urn ? mine : undefined,
    );
    if (after?.post.urn === post.urn) return undefined;
  }
  return holder ?? post;
}

async function readPost(ctx: LiContext, request: FastifyRequest<{ Params: UrnParams }>, reply: FastifyReply) {
  const { kit, gate } = ctx;
  const g = await gate(request, reply, WRITE_SCOPES, true);
  if (!g) return reply;
  const post = await kit.store.get<LiPost>(KIND.post, request.params.urn);
  if (!post || post.deleted) return reply.code(404).send(liError(404, 'Not Found', { serviceErrorCode: 0 }));
  return postJson(post);
}

async function deletePost(ctx: LiContext, request: FastifyRequest<{ Params: UrnParams }>, reply: FastifyReply) {
  const { kit, gate } = ctx;
  const g = await gate(request, reply, WRITE_SCOPES, true);
  if (!g) return reply;
  const post = await kit.store.get<LiPost>(KIND.post, request.params.urn);
  if (!post || post.deleted) return reply.code(404).send(liError(404, 'Not Found'));
  if (!mayActAs(g.member, post.author))
    return reply
      .code(403)
      .send(
        liError(403, 'Not enough permissions to delete this post', { serviceErrorCode: 100, code: 'ACCESS_DENIED' }),
      );
  // Kept, marked deleted: its id stays spent and the control surface still reports it. Its commentary may be posted
  // again: a claim whose post is deleted is taken over (claimCommentary).
  await kit.store.update<LiPost>(KIND.post, post.urn, (p) => ({ ...p, deleted: true }));
  return reply.code(204).send();
}

/**
 * The author finder (`q=author`), newest first. ⚠ unverified: LinkedIn's docs ask r_member_social for a member's
 * posts; the simulator lets a member read their own with w_member_social (docs/platform-fidelity.md).
 */
async function postsByAuthor(
  ctx: LiContext,
  request: FastifyRequest<{ Querystring: AuthorFinderQuery }>,
  reply: FastifyReply,
) {
  const { kit, gate } = ctx;
  const g = await gate(request, reply, WRITE_SCOPES, true);
  if (!g) return reply;
  const applied = applyFault(kit, g.errors, kit.faults.take('lookup', g.member.id), request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const q = request.query;
  if (q.q !== 'author')
    return reply.code(400).send(liError(400, 'Unsupported finder: use q=author', { code: 'ILLEGAL_ARGUMENT' }));
  if (!q.author)
    return reply
      .code(400)
      .send(liError(400, 'The author parameter is required with q=author', { code: 'ILLEGAL_ARGUMENT' }));
  if (!mayActAs(g.member, q.author))
    return reply.code(403).send(
      liError(403, `Not enough permissions to read the posts of ${q.author}`, {
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
      }),
    );
  const count = q.count === undefined ? 10 : Number(q.count);
  const start = q.start === undefined ? 0 : Number(q.start);
  if (!Number.isInteger(count) || count < 1 || count > 100)
    return reply.code(400).send(liError(400, 'count must be from 1 to 100', { code: 'ILLEGAL_ARGUMENT' }));
  if (!Number.isInteger(start) || start < 0)
    return reply.code(400).send(liError(400, 'start must be a non-negative integer', { code: 'ILLEGAL_ARGUMENT' }));
  // Newest first, reading only as far as the page asked for (and one more, to know whether there is a next page).
  const read = await kit.store.list<LiPost>(KIND.post, {
    owner: q.author,
    match: { deleted: false },
    limit: start + count + 1,
  });
  const elements = read.slice(start, start + count).map(postJson);
  // ⚠ unverified: that LinkedIn's finder may leave out `total`; the simulator knows it only on the last page.
  const last = read.length <= start + count;
  return { paging: { start, count, links: [], ...(last && { total: read.length }) }, elements };
}

/** A post's images and video at their download URLs; a document becomes a link after the text, as its card would. */
function mediaOf(post: LiPost, host: string): { media: PagePart['media']; documents: string[] } {
  const c = post.content ?? {};
  const items: unknown[] = [];
  if (typeof c.media === 'object' && c.media !== null) items.push(c.media);
  const multi = c.multiImage;
  if (typeof multi === 'object' && multi !== null && 'images' in multi && Array.isArray(multi.images))
    items.push(...(multi.images as unknown[]));
  const media: PagePart['media'] = [];
  const documents: string[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null || !('id' in item) || typeof item.id !== 'string') continue;
    const url = `${host}/dms/${encodeURIComponent(item.id)}`;
    const alt = 'altText' in item && typeof item.altText === 'string' ? item.altText : null;
    if (item.id.startsWith('urn:li:document:'))
      documents.push(`${'title' in item && typeof item.title === 'string' ? item.title : 'Document'}: ${url}`);
    else media.push({ url, kind: item.id.startsWith('urn:li:video:') ? 'video' : 'image', alt });
  }
  return { media, documents };
}

/** The page of a post, the way LinkedIn's feed shows it; a missing or deleted post is a 404. */
async function postPage(ctx: LiContext, request: FastifyRequest<{ Params: UrnParams }>, reply: FastifyReply) {
  const post = await ctx.kit.store.get<LiPost>(KIND.post, request.params.urn);
  if (!post || post.deleted) return sendMissingPost(reply, 'LinkedIn');
  const host = hostOf(request, ctx.prefix);
  const { media, documents } = mediaOf(post, host);
  return sendPostPage(reply, {
    platform: 'LinkedIn',
    accent: '#0A66C2',
    noun: 'Post',
    // LinkedIn shows who can see a post beside its author (PUBLIC, CONNECTIONS …).
    account: { name: post.by.name, handle: `${post.by.handle} · ${post.visibility}` },
    parts: [
      {
        text: [post.plain, ...documents].join('\n\n'),
        media,
        createdAt: post.createdAt,
        url: `${host}/web/feed/update/${post.urn}`,
      },
    ],
  });
}
