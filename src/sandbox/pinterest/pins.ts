// Pinterest's Pins and boards as the simulator plays them (docs/platforms/pinterest.md "Calls"): `POST /v5/pins` to
// a board of the account, with an image it fetches from `image_url`, 2–5 images (`multiple_image_urls`) or a processed
// video (`video_id`, with a cover); `GET /v5/pins/{id}`, `DELETE /v5/pins/{id}`, the account's boards and a board's
// Pins, newest first (Herald's look-up). Every route takes the shared faults. Pinterest takes no idempotency key.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { fetchMedia } from '../meta/fetch.ts';
import { keepMedia } from '../meta/media-files.ts';
import { registerPinAnalytics } from './analytics.ts';
import { boardsOf } from './auth.ts';
import { gate, hostOf } from './gate.ts';
import { mediaJson } from './media.ts';
import {
  KIND,
  trialAccess,
  type PinMediaItem,
  type PinterestContext,
  type PinterestPin,
  type PinterestUpload,
} from './state.ts';

/** The PinCreate field limits of the OpenAPI (`pinterest/api-description` v5). */
const MAX = { title: 100, description: 800, link: 2048, alt_text: 500 } as const;
const IMAGE_TYPES = /^image\/(jpeg|png|gif|webp|bmp|tiff)$/;
const KEEP_BYTES = 20 * 1024 * 1024;
const DIGITS = /^\d+$/;

interface IdParams {
  id: string;
}
interface PageQuery {
  page_size?: string;
  bookmark?: string;
}

function imageSizes(url: string, m: PinMediaItem) {
  const size = { width: m.width, height: m.height, url };
  return { '150x150': size, '400x300': size, '600x': size, '1200x': size };
}

/** A Pin as the API answers it (the OpenAPI's `Pin`). */
export function pinJson(ctx: PinterestContext, request: FastifyRequest, pin: PinterestPin, username: string) {
  const host = hostOf(ctx, request);
  const url = (m: PinMediaItem) => (m.key ? `${host}/cdn/${m.key}` : `${host}/pin/${pin.id}/`);
  const first = pin.media[0]!;
  const media =
    pin.mediaType === 'video'
      ? { media_type: 'video', cover_image_url: url(first), video_url: null, duration: null, width: null, height: null }
      : pin.mediaType === 'multiple_images'
        ? {
            media_type: 'multiple_images',
            items: pin.media.map((m) => ({ item_type: 'image', images: imageSizes(url(m), m), title: null })),
          }
        : { media_type: 'image', images: imageSizes(url(first), first) };
  return {
    id: pin.id,
    created_at: new Date(pin.createdAt).toISOString().replace(/\.\d+Z$/, ''),
    link: pin.link,
    title: pin.title,
    description: pin.description,
    alt_text: pin.altText,
    board_id: pin.boardId,
    board_section_id: pin.boardSectionId,
    board_owner: { username },
    is_owner: true,
    is_standard: true,
    has_been_promoted: false,
    parent_pin_id: null,
    dominant_color: null,
    creative_type: pin.mediaType === 'video' ? 'VIDEO' : pin.mediaType === 'multiple_images' ? 'CAROUSEL' : 'REGULAR',
    media,
    pin_metrics: null,
  };
}

export function registerPinterestPins(app: FastifyInstance, ctx: PinterestContext): void {
  app.post('/v5/pins', (request, reply) => createPin(ctx, request, reply));
  app.get<{ Params: IdParams }>('/v5/pins/:id', (request, reply) => getPin(ctx, request, reply));
  app.delete<{ Params: IdParams }>('/v5/pins/:id', (request, reply) => deletePin(ctx, request, reply));
  app.get<{ Querystring: PageQuery }>('/v5/boards', (request, reply) => listBoards(ctx, request, reply));
  app.get<{ Params: IdParams; Querystring: PageQuery }>('/v5/boards/:id/pins', (request, reply) =>
    boardPins(ctx, request, reply),
  );
  registerPinAnalytics(app, ctx);
}

type Fields = Record<string, unknown>;
const optionalText = (f: Fields, name: keyof typeof MAX) =>
  f[name] === undefined || f[name] === null ? null : typeof f[name] === 'string' ? (f[name] as string) : undefined;

/** The Pin's images fetched from their URLs (as Pinterest fetches them), or the reason they cannot be used. */
async function fetchImages(ctx: PinterestContext, urls: unknown[]): Promise<PinMediaItem[] | string> {
  const out: PinMediaItem[] = [];
  for (const url of urls) {
    if (typeof url !== 'string' || url === '') return 'Every image needs a url.';
    const got = await fetchMedia(url, ctx.kit.settings, { keepBytes: KEEP_BYTES });
    // ⚠ unverified: Pinterest's wording when it cannot fetch or read an image.
    if (!got.ok) return `Sorry we could not fetch the image: ${got.reason}.`;
    if (!got.contentType || !IMAGE_TYPES.test(got.contentType)) return 'The image is not a format Pinterest supports.';
    out.push({ key: await keepMedia(ctx.kit.store, got.bytes), kind: 'image', width: got.width, height: got.height });
  }
  return out;
}

/** The media of a new Pin from its `media_source`, or the 400 message. */
async function mediaOf(ctx: PinterestContext, accountId: string, source: unknown) {
  const s = (source && typeof source === 'object' ? source : {}) as Fields;
  switch (s.source_type) {
    case 'image_url': {
      const media = await fetchImages(ctx, [s.url]);
      return typeof media === 'string' ? media : { type: 'image' as const, media };
    }
    case 'multiple_image_urls': {
      const items = Array.isArray(s.items) ? (s.items as Fields[]) : [];
      if (items.length < 2 || items.length > 5) return 'multiple_image_urls takes 2 to 5 items.';
      const media = await fetchImages(
        ctx,
        items.map((i) => i?.url),
      );
      return typeof media === 'string' ? media : { type: 'multiple_images' as const, media };
    }
    case 'video_id': {
      if (typeof s.media_id !== 'string' || !DIGITS.test(s.media_id)) return 'video_id needs a media_id.';
      // ⚠ unverified: that a cover is required (the OpenAPI lists the three cover fields as optional).
      if (
        s.cover_image_url === undefined &&
        s.cover_image_data === undefined &&
        s.cover_image_key_frame_time === undefined
      )
        return 'A video Pin needs a cover: cover_image_url, cover_image_data or cover_image_key_frame_time.';
      const u = await ctx.kit.store.get<PinterestUpload>(KIND.upload, s.media_id);
      if (!u || u.accountId !== accountId) return 'Media upload not found.';
      if (mediaJson(u, ctx.kit.now()).status !== 'succeeded') return 'The media upload has not succeeded.';
      const item: PinMediaItem = { key: u.bytesKey, kind: 'video', width: null, height: null };
      return { type: 'video' as const, media: [item] };
    }
    default:
      return 'media_source.source_type must be image_url, multiple_image_urls or video_id (the ones Herald uses).';
  }
}

async function createPin(ctx: PinterestContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'create_post', 'org_write');
  if (!g) return reply;
  const body = parseBody(request.headers['content-type'], request.body);
  if (!body.valid || body.contentType !== 'application/json') return errorReply(reply, 400, 'The body must be JSON.');
  const f = body.fields;
  if (typeof f.board_id !== 'string' || !DIGITS.test(f.board_id))
    return errorReply(reply, 400, 'board_id is required.');
  const texts = {
    title: optionalText(f, 'title'),
    description: optionalText(f, 'description'),
    link: optionalText(f, 'link'),
    alt_text: optionalText(f, 'alt_text'),
  };
  for (const [name, value] of Object.entries(texts) as Array<[keyof typeof MAX, string | null | undefined]>) {
    if (value === undefined) return errorReply(reply, 400, `${name} must be a string.`);
    if (value !== null && [...value].length > MAX[name])
      return errorReply(reply, 400, `${name} is longer than ${MAX[name]} characters.`);
  }
  if (texts.link !== null && !/^https?:\/\/[^\s]+$/.test(texts.link!))
    return errorReply(reply, 400, 'link must be an http or https URL.');
  const board = boardsOf(g.account).find((b) => b.id === f.board_id);
  if (!board) return errorReply(reply, 404, 'Board not found.');
  // The simulator's boards have no sections. ⚠ unverified: Pinterest's answer to an unknown section.
  if (f.board_section_id !== undefined && f.board_section_id !== null)
    return errorReply(reply, 404, 'Board section not found.');
  if (trialAccess(ctx) && !ctx.apiSandbox)
    return errorReply(
      reply,
      403,
      '29: Apps with Trial access may not create Pins in production https://api.pinterest.com - ' +
        'use API Sandbox https://api-sandbox.pinterest.com instead.',
    );
  const made = await mediaOf(ctx, g.account.id, f.media_source);
  if (typeof made === 'string') return errorReply(reply, 400, made);
  const pin: PinterestPin = {
    id: await kit.snowflake(),
    accountId: g.account.id,
    boardId: board.id,
    boardSectionId: null,
    title: texts.title!,
    description: texts.description!,
    link: texts.link!,
    altText: texts.alt_text!,
    mediaType: made.type,
    media: made.media,
    pinnerOnly: ctx.apiSandbox,
    createdAt: kit.now(),
    deleted: false,
  };
  await kit.store.put(KIND.pin, pin.id, pin, board.id);
  if (g.drop) return kit.dropConnection(request, reply);
  return reply.code(201).send(pinJson(ctx, request, pin, g.account.username));
}

async function getPin(ctx: PinterestContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'get_pin', 'org_read');
  if (!g) return reply;
  const pin = await ctx.kit.store.get<PinterestPin>(KIND.pin, request.params.id);
  if (!pin || pin.deleted || pin.accountId !== g.account.id) return ctx.errorReply(reply, 404, 'Pin not found.');
  return pinJson(ctx, request, pin, g.account.username);
}

async function deletePin(ctx: PinterestContext, request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'delete', 'org_write');
  if (!g) return reply;
  // Changed under the document's lock: of two deletes at once, one succeeds and the other meets 404.
  const outcome = { deleted: false };
  await ctx.kit.store.update<PinterestPin>(KIND.pin, request.params.id, (pin) => {
    if (pin.deleted || pin.accountId !== g.account.id) return undefined;
    outcome.deleted = true;
    return { ...pin, deleted: true };
  });
  if (!outcome.deleted) return ctx.errorReply(reply, 404, 'Pin not found.');
  return reply.code(204).send();
}

/** `page_size` (1–250, default 25) or the 400 message. */
function pageSize(query: PageQuery): number | string {
  if (query.page_size === undefined) return 25;
  const n = Number(query.page_size);
  return Number.isInteger(n) && n >= 1 && n <= 250 ? n : 'page_size must be between 1 and 250.';
}

async function listBoards(
  ctx: PinterestContext,
  request: FastifyRequest<{ Querystring: PageQuery }>,
  reply: FastifyReply,
) {
  const g = await gate(ctx, request, reply, 'boards', 'org_read');
  if (!g) return reply;
  const size = pageSize(request.query);
  if (typeof size === 'string') return ctx.errorReply(reply, 400, size);
  const all = boardsOf(g.account);
  const from = request.query.bookmark === undefined ? 0 : all.findIndex((b) => b.id === request.query.bookmark) + 1;
  if (from === 0 && request.query.bookmark !== undefined) return ctx.errorReply(reply, 400, 'Invalid bookmark.');
  const boards = all.slice(from, from + size + 1);
  const page = boards.slice(0, size);
  return {
    items: page.map((b) => ({
      id: b.id,
      name: b.name,
      description: null,
      privacy: b.privacy,
      owner: { username: g.account.username },
      created_at: new Date(b.createdAt).toISOString().replace(/\.\d+Z$/, ''),
    })),
    bookmark: boards.length > size ? page.at(-1)!.id : null,
  };
}

async function boardPins(
  ctx: PinterestContext,
  request: FastifyRequest<{ Params: IdParams; Querystring: PageQuery }>,
  reply: FastifyReply,
) {
  const g = await gate(ctx, request, reply, 'lookup', 'org_read');
  if (!g) return reply;
  const size = pageSize(request.query);
  if (typeof size === 'string') return ctx.errorReply(reply, 400, size);
  const board = boardsOf(g.account).find((b) => b.id === request.params.id);
  if (!board) return ctx.errorReply(reply, 404, 'Board not found.');
  // ⚠ unverified: the order of a board's Pins (Pinterest lets the owner arrange a board); newest first here.
  const pins = await ctx.kit.store.list<PinterestPin>(KIND.pin, {
    owner: board.id,
    match: { deleted: false },
    beforeId: request.query.bookmark,
    limit: size + 1,
  });
  const page = pins.slice(0, size);
  return {
    items: page.map((p) => pinJson(ctx, request, p, g.account.username)),
    bookmark: pins.length > size ? page.at(-1)!.id : null,
  };
}
