// Mastodon statuses and media (docs/platforms/mastodon.md "Calls"): POST /api/v2/media answering 200 for images and 202
// for video still processing (GET /api/v1/media/:id gives 206 until done); POST /api/v1/statuses with the
// instance's own length rule, attachment rules and the one-hour Idempotency-Key memory; read, source, delete,
// an account's statuses, 300 requests / 5 min per account and 30 media uploads / 30 min.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measureWith } from '../../platforms/mastodon/limits.ts';
import { arrayField, parseBody } from '../framework/body.ts';
import { applyFault, snowflake, windowHeaders } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { accountJson, authenticate, hostOf, instanceConfig } from './auth.ts';
import type { MastoAccount, MastoContext, MastoMedia, MastoStatus } from './state.ts';

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

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function statusJson(ctx: MastoContext, s: MastoStatus, request: FastifyRequest): Record<string, unknown> {
  const { kit, state } = ctx;
  const account = state.accounts.get(s.accountId)!;
  const h = hostOf(request, ctx.prefix);
  return {
    id: s.id,
    created_at: new Date(s.createdAt).toISOString(),
    in_reply_to_id: s.inReplyToId,
    in_reply_to_account_id: s.inReplyToId ? (state.statuses.get(s.inReplyToId)?.accountId ?? null) : null,
    sensitive: s.sensitive,
    spoiler_text: s.spoilerText,
    visibility: s.visibility,
    language: s.language,
    uri: `${h}/users/${account.username}/statuses/${s.id}`,
    url: `${h}/@${account.username}/${s.id}`,
    replies_count: 0,
    reblogs_count: 0,
    favourites_count: 0,
    quotes_count: 0,
    content: `<p>${esc(s.text).replace(/\n/g, '<br />')}</p>`,
    account: accountJson(account, h),
    media_attachments: s.mediaIds.map((id) => mediaJson(state.media.get(id)!, h, kit.now())),
    mentions: [],
    tags: [],
    emojis: [],
    application: { name: 'Herald', website: null },
  };
}

/** Every authenticated call: the token, 300 requests per 5 minutes per account, and the operation's faults. */
function gate(
  ctx: MastoContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
): { account: MastoAccount; drop: boolean } | undefined {
  const { kit, state, errorReply } = ctx;
  const account = authenticate(kit, state, request, reply);
  if (!account) return undefined;
  const window = kit.windows.hit(`all:${account.id}`, kit.limit(300), 5 * 60_000);
  reply.headers(windowHeaders(window, 'mastodon'));
  if (!window.allowed) {
    errorReply(reply, 429, 'Too many requests');
    return undefined;
  }
  const applied = applyFault(kit, { errorReply }, kit.faults.take(operation, account.id), request, reply, 'mastodon');
  return applied === 'sent' ? undefined : { account, drop: applied === 'drop' };
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
}

async function uploadMedia(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const g = gate(ctx, request, reply, 'upload_media');
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
  const fault = kit.faults.take('media_processing', g.account.id);
  const processing = kind === 'image' ? 0 : 1500;
  const m: MastoMedia = {
    id: snowflake(kit.now()),
    accountId: g.account.id,
    type: kind,
    contentType: type!,
    size: file.data.length,
    description: typeof body.fields.description === 'string' ? body.fields.description : null,
    readyAt: kit.now() + processing + (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0),
    failed: fault?.fault === 'media_failed',
    attached: false,
  };
  if (m.description && m.description.length > 1500)
    return reply.code(422).send({ error: 'Validation failed: Description is too long (maximum is 1500 characters)' });
  state.media.set(m.id, m);
  const ready = kit.now() >= m.readyAt && !m.failed;
  return reply.code(ready ? 200 : 202).send(mediaJson(m, hostOf(request, ctx.prefix), kit.now()));
}

async function readMedia(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { kit, state } = ctx;
  const g = gate(ctx, request, reply, 'media_status');
  if (!g) return reply;
  const m = state.media.get(request.params.id);
  if (!m || m.accountId !== g.account.id) return reply.code(404).send({ error: 'Record not found' });
  // ⚠ unverified: how Mastodon reports a failed transcode; the simulator answers 422.
  if (m.failed && kit.now() >= m.readyAt) return reply.code(422).send({ error: 'Media processing failed' });
  return reply.code(kit.now() >= m.readyAt ? 200 : 206).send(mediaJson(m, hostOf(request, ctx.prefix), kit.now()));
}

async function createStatus(ctx: MastoContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const g = gate(ctx, request, reply, 'create_post');
  if (!g) return reply;
  const key = request.headers['idempotency-key'];
  const remembered = typeof key === 'string' ? state.idempotency.get(`${g.account.id}:${key}`) : undefined;
  if (remembered && remembered.at > kit.now() - IDEMPOTENCY_TTL_MS)
    return statusJson(ctx, state.statuses.get(remembered.statusId)!, request);
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
  const media = mediaIds.map((id) => state.media.get(id));
  if (media.some((m) => !m || m.accountId !== g.account.id))
    return reply.code(422).send({ error: 'Validation failed: Media attachments are invalid' });
  if (media.some((m) => m!.readyAt > kit.now() || m!.failed))
    return reply
      .code(422)
      .send({ error: 'Cannot attach files that have not finished processing. Try again in a moment!' });
  if (media.some((m) => m!.type === 'video') && media.length > 1)
    return reply.code(422).send({ error: 'Cannot attach a video to a post that already contains images' });
  const inReplyTo = f.in_reply_to_id === undefined || f.in_reply_to_id === null ? null : String(f.in_reply_to_id);
  if (inReplyTo !== null && (!state.statuses.get(inReplyTo) || state.statuses.get(inReplyTo)!.deleted))
    return reply.code(404).send({ error: 'Record not found' });
  const bool = (v: unknown) => v === true || v === 'true' || v === '1';
  const status: MastoStatus = {
    id: snowflake(kit.now()),
    accountId: g.account.id,
    text,
    spoilerText: typeof f.spoiler_text === 'string' ? f.spoiler_text : '',
    sensitive: bool(f.sensitive) || (media.length > 0 && typeof f.spoiler_text === 'string' && f.spoiler_text !== ''),
    visibility,
    language: typeof f.language === 'string' ? f.language : null,
    inReplyToId: inReplyTo,
    mediaIds,
    createdAt: kit.now(),
    deleted: false,
  };
  state.statuses.set(status.id, status);
  for (const m of media) m!.attached = true;
  if (typeof key === 'string') state.idempotency.set(`${g.account.id}:${key}`, { statusId: status.id, at: kit.now() });
  if (g.drop) return kit.dropConnection(request, reply);
  return statusJson(ctx, status, request);
}

/** The status at `:id`, unless deleted. */
function own(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>): MastoStatus | undefined {
  const s = ctx.state.statuses.get(request.params.id);
  return s && !s.deleted ? s : undefined;
}

async function readStatus(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  if (!gate(ctx, request, reply, 'lookup')) return reply;
  const s = own(ctx, request);
  return s ? statusJson(ctx, s, request) : reply.code(404).send({ error: 'Record not found' });
}

async function statusSource(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = gate(ctx, request, reply, 'lookup');
  if (!g) return reply;
  const s = own(ctx, request);
  if (!s || s.accountId !== g.account.id) return reply.code(404).send({ error: 'Record not found' });
  return { id: s.id, text: s.text, spoiler_text: s.spoilerText };
}

async function deleteStatus(ctx: MastoContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = gate(ctx, request, reply, 'delete');
  if (!g) return reply;
  const s = own(ctx, request);
  if (!s || s.accountId !== g.account.id) return reply.code(404).send({ error: 'Record not found' });
  s.deleted = true;
  return { ...statusJson(ctx, s, request), text: s.text };
}

/** An account's statuses, newest first, paged by `max_id` / `since_id`. */
async function accountStatuses(
  ctx: MastoContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: AccountStatusesQuery }>,
  reply: FastifyReply,
) {
  if (!gate(ctx, request, reply, 'lookup')) return reply;
  const q = request.query;
  const limit = Math.min(40, Math.max(1, Number(q.limit ?? 20) || 20));
  const id = request.params.id;
  const list = [...ctx.state.statuses.values()]
    .filter(
      (s) =>
        s.accountId === id &&
        !s.deleted &&
        (!q.max_id || BigInt(s.id) < BigInt(q.max_id)) &&
        (!q.since_id || BigInt(s.id) > BigInt(q.since_id)),
    )
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
    .slice(0, limit);
  return list.map((s) => statusJson(ctx, s, request));
}

/** Sandbox URLs of statuses point here. */
async function statusPage(
  ctx: MastoContext,
  request: FastifyRequest<{ Params: { username: string; id: string } }>,
  reply: FastifyReply,
) {
  const s = ctx.state.statuses.get(request.params.id);
  if (!s || s.deleted)
    return reply
      .code(404)
      .type('text/plain')
      .send('This status does not exist in the sandbox (it may have been deleted, or the sandbox restarted).');
  return reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><meta charset="utf-8"><title>Sandbox Mastodon status</title><p><b>@${esc(request.params.username)}</b> (Herald sandbox)</p><p>${esc(s.text)}</p>`,
    );
}
