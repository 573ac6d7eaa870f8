// Mastodon statuses and media (docs/platforms/mastodon.md "Calls"): POST /api/v2/media answering 200 for images and 202
// for video still processing (GET /api/v1/media/:id gives 206 until done); POST /api/v1/statuses with the
// instance's own length rule, attachment rules and the one-hour Idempotency-Key memory; read, source, delete,
// an account's statuses, 300 requests / 5 min per account and 30 media uploads / 30 min; the attachments' bytes at
// their public URLs, and the route of a status's public page (page.ts). Statuses, media and Idempotency-Key claims
// are store documents: they survive a restart, and every API node sees the same ones.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measureWith } from '../../platforms/mastodon/limits.ts';
import { arrayField, parseBody } from '../framework/body.ts';
import { growMetrics } from '../framework/metrics-growth.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { accountJson, accountOf, authenticate, hostOf, instanceConfig } from './auth.ts';
import { statusPage } from './page.ts';
import {
  idempotencyId,
  KIND,
  mediaBlob,
  threadKey,
  type MastoAccount,
  type MastoAttachment,
  type MastoContext,
  type MastoIdempotency,
  type MastoMedia,
  type MastoStatus,
  type MastoThreadPart,
} from './state.ts';
import { uploadedBytesHeaders } from '../framework/served-bytes.ts';

const IDEMPOTENCY_TTL_MS = 3600_000;
const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'];

function mediaJson(m: MastoMedia, host: string, now: number): Record<string, unknown> {
  const ready = now >= m.readyAt && !m.failed;
  return {
    id: m.id,
    type: m.type,
    url: ready ? `${host}/media/${m.id}` : null,
    preview_url: ready ? `${host}/media/${m.id}/small` : null,
    remote_url: null,
    description: m.description,
    blurhash: null,
    meta: {},
  };
}

/** An attachment as a status shows it: it was processed before it could be attached, so its URLs are set. */
function attachmentJson(a: MastoAttachment, host: string): Record<string, unknown> {
  return {
    id: a.id,
    type: a.type,
    url: `${host}/media/${a.id}`,
    preview_url: `${host}/media/${a.id}/small`,
    remote_url: null,
    description: a.description,
    blurhash: null,
    meta: {},
  };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A status as the API gives it: built from its document alone (author, reply account and attachments are in it). */
export function statusJson(ctx: MastoContext, s: MastoStatus, request: FastifyRequest): Record<string, unknown> {
  const account = accountOf(s.username);
  const h = hostOf(request, ctx.prefix);
  const grown = growMetrics(s.id, s.createdAt, ctx.kit.now(), { audience: 400 });
  return {
    id: s.id,
    created_at: new Date(s.createdAt).toISOString(),
    in_reply_to_id: s.inReplyToId,
    in_reply_to_account_id: s.inReplyToAccountId,
    sensitive: s.sensitive,
    spoiler_text: s.spoilerText,
    visibility: s.visibility,
    language: s.language,
    uri: `${h}/users/${account.username}/statuses/${s.id}`,
    url: `${h}/@${account.username}/${s.id}`,
    // Counts grow as on a live instance (src/sandbox/framework/metrics-growth.ts); Mastodon has no views.
    replies_count: grown.comments,
    reblogs_count: grown.shares,
    favourites_count: grown.likes,
    quotes_count: grown.quotes,
    content: `<p>${esc(s.text).replace(/\n/g, '<br />')}</p>`,
    account: accountJson(account, h),
    media_attachments: s.attachments.map((a) => attachmentJson(a, h)),
    mentions: [],
    tags: [],
    emojis: [],
    application: { name: 'Herald', website: null },
  };
}

/** Every authenticated call: the token, 300 requests per 5 minutes per account, and the operation's faults. */
export async function gate(
  ctx: MastoContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
): Promise<{ account: MastoAccount; drop: boolean; fault?: string } | undefined> {
  const { kit, errorReply } = ctx;
  const account = await authenticate(ctx, request, reply);
  if (!account) return undefined;
  const window = kit.windows.hit(`all:${account.id}`, kit.limit(300), 5 * 60_000);
  reply.headers(windowHeaders(window, 'mastodon'));
  if (!window.allowed) {
    errorReply(reply, 429, 'Too many requests');
    return undefined;
  }
  const fault = kit.faults.take(operation, account.id);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'mastodon');
  return applied === 'sent' ? undefined : { account, drop: applied === 'drop', fault: fault?.fault };
}

interface IdParams {
  id: string;
}

interface AccountStatusesQuery {
  limit?: string;
  max_id?: string;
  since_id?: string;
}

export function registerMastoStatuses(app: FastifyInstance, ctx: MastoContext): void {
  app.post('/api/v2/media', (request, reply) => uploadMedia(ctx, request, reply));
  app.get<{ Params: IdParams }>('/api/v1/media/:id', (request, reply) => readMedia(ctx, request, reply));
  app.post('/api/v1/statuses', (request, reply) => createStatus(ctx, request, reply));
  app.get<{ Params: IdParams }>('/api/v1/statuses/:id', (request, reply) => readStatus(ctx, request, reply));
  app.get<{ Params: IdParams }>('/api/v1/statuses/:id/source', (request, reply) => statusSource(ctx, request, reply));
  app.delete<{ Params: IdParams }>('/api/v1/statuses/:id', (request, reply) => deleteStatus(ctx, request, reply));
  app.get<{ Params: IdParams; Querystring: AccountStatusesQuery }>('/api/v1/accounts/:id/statuses', (request, reply) =>
    accountStatuses(ctx, request, reply),
  );
  app.get<{ Params: { username: string; id: string } }>('/@:username/:id', (request, reply) =>
    statusPage(ctx, request, reply),
  );
  // The attachments' bytes, public as an instance's media files are (`url` and `preview_url` point here).
  app.get<{ Params: IdParams }>('/media/:id', (request, reply) => serveMedia(ctx, request, reply));
  app.get<{ Params: IdParams }>('/media/:id/small', (request, reply) => serveMedia(ctx, request, reply));
}

async function uploadMedia(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const g = await gate(ctx, request, reply, 'upload_media');
  if (!g) return reply;
  // ⚠ unverified: docs/platforms/mastodon.md "Rate limits" gives 30 / 30 min for media uploads without saying whether
  // v2 shares v1's limit.
  const window = kit.windows.hit(`media:${g.account.id}`, kit.limit(30), 30 * 60_000);
  if (!window.allowed)
    return reply.headers(windowHeaders(window, 'mastodon')).code(429).send({ error: 'Too many requests' });
  const body = parseBody(request.headers['content-type'], request.body);
  const file = body.files.file;
  if (!file) return reply.code(422).send({ error: "Validation failed: File can't be blank" });
  const type = sniff(file.data);
  const c = instanceConfig(kit);
  const kind = type?.startsWith('image/')
    ? type === 'image/gif'
      ? 'gifv'
      : 'image'
    : type?.startsWith('video/')
      ? 'video'
      : undefined;
  if (!kind) return reply.code(422).send({ error: 'Validation failed: File content type is invalid' });
  if (file.data.length > (kind === 'image' ? c.imageSizeLimit : c.videoSizeLimit))
    return reply.code(422).send({
      error: `Validation failed: File file size must be less than ${kind === 'image' ? c.imageSizeLimit : c.videoSizeLimit} Bytes`,
    });
  const description = typeof body.fields.description === 'string' ? body.fields.description : null;
  if (description && description.length > 1500)
    return reply.code(422).send({ error: 'Validation failed: Description is too long (maximum is 1500 characters)' });
  const fault = kit.faults.take('media_processing', g.account.id);
  const processing = kind === 'image' ? 0 : 1500;
  const m: MastoMedia = {
    id: await kit.snowflake(),
    accountId: g.account.id,
    type: kind,
    contentType: type!,
    size: file.data.length,
    description,
    readyAt: kit.now() + processing + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0),
    failed: fault?.fault === 'media_failed',
  };
  // The bytes first: once the document exists, its URL may be fetched.
  await kit.store.putBytes(mediaBlob(m.id), file.data);
  await kit.store.put(KIND.media, m.id, m, m.accountId);
  const ready = kit.now() >= m.readyAt && !m.failed;
  return reply.code(ready ? 200 : 202).send(mediaJson(m, hostOf(request, ctx.prefix), kit.now()));
}

async function readMedia(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { kit } = ctx;
  const g = await gate(ctx, request, reply, 'media_status');
  if (!g) return reply;
  const m = await kit.store.get<MastoMedia>(KIND.media, request.params.id);
  if (!m || m.accountId !== g.account.id) return reply.code(404).send({ error: 'Record not found' });
  // ⚠ unverified: how Mastodon reports a failed transcode; the simulator answers 422.
  if (m.failed && kit.now() >= m.readyAt) return reply.code(422).send({ error: 'Media processing failed' });
  return reply.code(kit.now() >= m.readyAt ? 200 : 206).send(mediaJson(m, hostOf(request, ctx.prefix), kit.now()));
}

/** The status an Idempotency-Key claim made, while the claim is less than an hour old (older: as if absent). */
async function remembered(ctx: MastoContext, claim: MastoIdempotency | undefined): Promise<MastoStatus | undefined> {
  if (!claim || claim.at <= ctx.kit.now() - IDEMPOTENCY_TTL_MS) return undefined;
  return ctx.kit.store.get<MastoStatus>(KIND.status, claim.statusId);
}

/**
 * Claims an Idempotency-Key for the status just stored: the id of the status that holds the key afterwards —
 * this one, unless a request with the same key (on any node) claimed it first and its hour is not over.
 * ⚠ unverified: how Mastodon answers two requests racing with one new key; here both get the first one's status.
 */
async function claimKey(ctx: MastoContext, id: string, statusId: string, accountId: string): Promise<string> {
  const { store } = ctx.kit;
  const now = ctx.kit.now();
  if (await store.insert<MastoIdempotency>(KIND.idempotency, id, { statusId, at: now }, accountId)) return statusId;
  // Taken: an expired claim is taken over (atomically, so of two requests only one does), a live one stands.
  const after = await store.update<MastoIdempotency>(KIND.idempotency, id, (claim) =>
    claim.at <= now - IDEMPOTENCY_TTL_MS ? { statusId, at: now } : undefined,
  );
  return after?.statusId ?? statusId;
}

async function createStatus(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const g = await gate(ctx, request, reply, 'create_post');
  if (!g) return reply;
  const key = request.headers['idempotency-key'];
  const keyId = typeof key === 'string' ? idempotencyId(g.account.id, key) : undefined;
  if (keyId) {
    const earlier = await remembered(ctx, await kit.store.get<MastoIdempotency>(KIND.idempotency, keyId));
    if (earlier) return statusJson(ctx, earlier, request);
  }
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid) return reply.code(400).send({ error: 'The body is not valid.' });
  const f = body.fields;
  const text = typeof f.status === 'string' ? f.status : '';
  const mediaIds = (arrayField(f, 'media_ids') ?? []).map(String);
  const c = instanceConfig(kit);
  if (text.trim() === '' && mediaIds.length === 0)
    return reply.code(422).send({ error: "Validation failed: Text can't be blank" });
  const length =
    measureWith(text, c.charactersReservedPerUrl) +
    (typeof f.spoiler_text === 'string' ? measureWith(f.spoiler_text, c.charactersReservedPerUrl) : 0);
  if (length > c.maxCharacters)
    return reply.code(422).send({ error: `Validation failed: Text character limit of ${c.maxCharacters} exceeded` });
  const visibility = typeof f.visibility === 'string' ? f.visibility : 'public';
  if (!VISIBILITIES.includes(visibility))
    return reply.code(422).send({ error: 'Validation failed: Visibility is not included in the list' });
  if (f.language !== undefined && f.language !== null && !/^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(String(f.language)))
    return reply.code(422).send({ error: 'Validation failed: Language is not a valid ISO 639 code' });
  if (mediaIds.length > c.maxMediaAttachments)
    return reply
      .code(422)
      .send({ error: `Validation failed: Media attachments exceed the limit of ${c.maxMediaAttachments}` });
  const inReplyTo = f.in_reply_to_id === undefined || f.in_reply_to_id === null ? null : String(f.in_reply_to_id);
  // The attachments and the status replied to, read at once.
  const [media, parent] = await Promise.all([
    Promise.all(mediaIds.map((id) => kit.store.get<MastoMedia>(KIND.media, id))),
    inReplyTo === null ? undefined : kit.store.get<MastoStatus>(KIND.status, inReplyTo),
  ]);
  if (media.some((m) => !m || m.accountId !== g.account.id))
    return reply.code(422).send({ error: 'Validation failed: Media attachments are invalid' });
  if (media.some((m) => m!.readyAt > kit.now() || m!.failed))
    return reply
      .code(422)
      .send({ error: 'Cannot attach files that have not finished processing. Try again in a moment!' });
  if (media.some((m) => m!.type === 'video') && media.length > 1)
    return reply.code(422).send({ error: 'Cannot attach a video to a post that already contains images' });
  if (inReplyTo !== null && (!parent || parent.deleted || g.fault === 'item_deleted'))
    return reply.code(404).send({ error: 'Record not found' });
  const bool = (v: unknown) => v === true || v === 'true' || v === '1';
  const id = await kit.snowflake();
  const status: MastoStatus = {
    id,
    accountId: g.account.id,
    username: g.account.username,
    text,
    spoilerText: typeof f.spoiler_text === 'string' ? f.spoiler_text : '',
    sensitive: bool(f.sensitive) || (media.length > 0 && typeof f.spoiler_text === 'string' && f.spoiler_text !== ''),
    visibility,
    language: typeof f.language === 'string' ? f.language : null,
    inReplyToId: inReplyTo,
    inReplyToAccountId: parent?.accountId ?? null,
    conversationId: parent?.conversationId ?? id,
    mediaIds,
    attachments: media.flatMap((m) => (m ? [{ id: m.id, type: m.type, description: m.description }] : [])),
    createdAt: kit.now(),
    deleted: false,
  };
  // Stored before the key is claimed, so whoever holds a key has its status in the store; a request that loses
  // the key to a concurrent one with the same key takes its status back and answers the winner's (its thread part
  // stays, and a page skips a part whose status is gone). The part goes first, so a stored status is on its page.
  // A first status needs none: its page finds it as the conversation itself (one write less for most posts).
  if (inReplyTo !== null)
    await kit.store.insert<MastoThreadPart>(
      KIND.threadPart,
      id,
      { id },
      threadKey(status.accountId, status.conversationId),
    );
  await kit.store.put(KIND.status, id, status, status.accountId);
  const holder = keyId ? await claimKey(ctx, keyId, id, g.account.id) : id;
  if (holder !== id) {
    await kit.store.delete(KIND.status, id);
    const winner = await kit.store.get<MastoStatus>(KIND.status, holder);
    return winner ? statusJson(ctx, winner, request) : reply.code(404).send({ error: 'Record not found' });
  }
  if (g.drop) return kit.dropConnection(request, reply);
  return statusJson(ctx, status, request);
}

/** The status at `:id`, unless deleted. */
async function own(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>): Promise<MastoStatus | undefined> {
  const s = await ctx.kit.store.get<MastoStatus>(KIND.status, request.params.id);
  return s && !s.deleted ? s : undefined;
}

async function readStatus(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  if (!(await gate(ctx, request, reply, 'lookup'))) return reply;
  const s = await own(ctx, request);
  return s ? statusJson(ctx, s, request) : reply.code(404).send({ error: 'Record not found' });
}

async function statusSource(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'lookup');
  if (!g) return reply;
  const s = await own(ctx, request);
  if (!s || s.accountId !== g.account.id) return reply.code(404).send({ error: 'Record not found' });
  return { id: s.id, text: s.text, spoiler_text: s.spoilerText };
}

async function deleteStatus(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'delete');
  if (!g) return reply;
  const s = await own(ctx, request);
  if (!s || s.accountId !== g.account.id) return reply.code(404).send({ error: 'Record not found' });
  await ctx.kit.store.update<MastoStatus>(KIND.status, s.id, (doc) => ({ ...doc, deleted: true }));
  return { ...statusJson(ctx, s, request), text: s.text };
}

/**
 * An account's statuses, newest first, paged by `max_id` / `since_id`: one page read from the store, the statuses
 * posted before `max_id` and after `since_id`. ⚠ Both must name a status the simulator holds (they always do when
 * taken from a page, as clients do); Mastodon also takes any id and compares numerically, the simulator then
 * answers an empty page.
 */
async function accountStatuses(
  ctx: MastoContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: AccountStatusesQuery }>,
  reply: FastifyReply,
) {
  if (!(await gate(ctx, request, reply, 'lookup'))) return reply;
  const q = request.query;
  const limit = Math.min(40, Math.max(1, Number(q.limit ?? 20) || 20));
  const list = await ctx.kit.store.list<MastoStatus>(KIND.status, {
    owner: request.params.id,
    match: { deleted: false },
    limit,
    beforeId: q.max_id || undefined,
    afterId: q.since_id || undefined,
  });
  return list.map((s) => statusJson(ctx, s, request));
}

/**
 * An attachment's bytes, with the type sniffed at upload; nothing until it has processed. No sniffing by the browser
 * and a sandboxed CSP: the bytes came from a client.
 */
async function serveMedia(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { kit } = ctx;
  const m = await kit.store.get<MastoMedia>(KIND.media, request.params.id);
  const bytes = m && !m.failed && kit.now() >= m.readyAt ? await kit.store.getBytes(mediaBlob(m.id)) : undefined;
  if (!m || !bytes) return reply.code(404).send({ error: 'Record not found' });
  return reply.type(m.contentType).headers(uploadedBytesHeaders(86400)).send(bytes);
}
