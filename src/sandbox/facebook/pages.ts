// Page publishing on the Graph API (platforms.md §4 "Calls"): feed posts with message / link /
// attached_media, photos (published, or unpublished to attach later), reading a Page's feed with cursor paging
// (the adapter's reconciliation look-up), reading and deleting one object, and a small web page per post for
// sandbox URLs. Every Page call needs that Page's access token and counts against the Page's usage.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ParsedBody } from '../framework/body.ts';
import { parseBody } from '../framework/body.ts';
import { snowflake, type SimulatorKit } from '../framework/simulator.ts';
import { applyGraphFault } from '../meta/graph.ts';
import type { FaultRule } from '../framework/faults.ts';
import { sniff } from '../framework/sniff.ts';
import { GRAPH_VERSION, pageOf } from './auth.ts';
import { checkToken, graphError, invalidParameter, pageUsage } from './graph-reply.ts';
import type { FbPage, FbPost, FbState } from './state.ts';
import { videoJson } from './videos.ts';

export const MAX_MESSAGE = 63_206; // platforms.md §4 "Limits" (Postiz maxLength)
const MAX_PHOTO_BYTES = 10 * 1_000_000; // ⚠ unverified: Meta only recommends < 4 MB; Herald's own cap
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const MAX_ATTACHED = 100; // ⚠ unverified: Meta documents no cap on attached_media

type ErrorReply = (reply: FastifyReply, status: number, message: string) => FastifyReply;

export interface PageCall {
  page: FbPage;
  fields: Record<string, unknown>;
  body: ParsedBody;
  fault: FaultRule | undefined;
  /** The shared fault decided the answer must be dropped after the work is done. */
  drop: boolean;
}

/** Graph's time format: `2026-11-23T17:40:00+0000`. */
export const graphTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

/**
 * The gate of every Page call: the Page's own token with the needed permission, the Page's usage budget, and
 * the fault switches in Graph shapes (src/sandbox/meta/graph.ts).
 */
export function pageGate(
  kit: SimulatorKit,
  state: FbState,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string | null | ((fields: Record<string, unknown>) => string | null),
  scope: string,
  objectPage?: string,
): PageCall | undefined {
  const params = request.params as { version: string; pageId?: string };
  const version = params.version;
  const pageId = objectPage ?? params.pageId;
  if (!GRAPH_VERSION.test(version)) {
    graphError(reply, 400, {
      code: 2635,
      message: `(#2635) ${version} is not a Graph API version this sandbox knows.`,
    });
    return undefined;
  }
  const body = parseBody(request.headers['content-type'], request.body);
  const fields = { ...(request.query as Record<string, unknown>), ...body.fields };
  const claims = checkToken(kit, state, request, reply, ['fb_page', 'fb_user'], fields);
  if (!claims) return undefined;
  const page = claims.typ === 'fb_page' ? pageOf(state, claims) : undefined;
  if (!page || page.id !== pageId) {
    graphError(reply, 400, {
      code: 200,
      message:
        '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
    });
    return undefined;
  }
  if (!String(claims.scope).split(',').includes(scope)) {
    graphError(reply, 400, { code: 200, message: `(#200) Requires ${scope} permission to perform this action` });
    return undefined;
  }
  const waitMinutes = pageUsage(kit, reply, page.id);
  if (waitMinutes !== undefined) {
    graphError(reply, 400, { code: 32, message: '(#32) Page request limit reached', isTransient: true });
    return undefined;
  }
  const op = typeof operation === 'function' ? operation(fields) : operation;
  const fault = op ? kit.faults.take(op, page.id) : undefined;
  const applied = applyGraphFault(kit, fault, request, reply, { businessId: page.id, type: 'pages' });
  if (applied === 'sent') return undefined;
  return { page, fields, body, fault, drop: applied === 'drop' };
}

/** `attached_media` as JSON (an array) or form fields (`attached_media[0]={"media_fbid":…}` or one JSON string). */
function attachedIds(fields: Record<string, unknown>): string[] | string {
  const raw: unknown[] = [];
  if (fields.attached_media !== undefined) {
    let value: unknown = fields.attached_media;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value) as unknown;
      } catch {
        return 'attached_media must be a JSON array of {"media_fbid": …} objects.';
      }
    }
    raw.push(...(Array.isArray(value) ? value : [value]));
  }
  for (const [key, value] of Object.entries(fields)) {
    if (!/^attached_media\[\d+\]$/.test(key)) continue;
    try {
      raw.push(typeof value === 'string' ? JSON.parse(value) : value);
    } catch {
      return `${key} must be a JSON object {"media_fbid": …}.`;
    }
  }
  const ids: string[] = [];
  for (const item of raw) {
    const id = (item as { media_fbid?: unknown } | null)?.media_fbid;
    if (typeof id !== 'string' && typeof id !== 'number') return 'Each attached_media entry needs a media_fbid.';
    ids.push(String(id));
  }
  return ids;
}

const falsy = (v: unknown) => v === false || v === 'false' || v === '0' || v === 0;

export function postJson(p: FbPost, fields: string[], base: string): Record<string, unknown> {
  const out: Record<string, unknown> = { id: p.id, created_time: graphTime(p.createdAt) };
  if (p.message) out.message = p.message;
  if (fields.includes('permalink_url')) out.permalink_url = `${base}/web/${p.pageId}/posts/${p.id.split('_')[1]}`;
  if (fields.includes('link') && p.link) out.link = p.link;
  if (fields.includes('attachments') && (p.photoIds.length > 0 || p.videoId))
    out.attachments = {
      data: [
        {
          type: p.videoId ? 'video_inline' : p.photoIds.length > 1 ? 'album' : 'photo',
          media_count: p.videoId ? 1 : p.photoIds.length,
        },
      ],
    };
  return out;
}

const fieldList = (fields: Record<string, unknown>) =>
  String(fields.fields ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
export const baseOf = (request: FastifyRequest, prefix: string) =>
  `${request.protocol}://${request.headers.host}${prefix}`;

export function registerFbPages(
  app: FastifyInstance,
  kit: SimulatorKit,
  state: FbState,
  errorReply: ErrorReply,
  prefix: () => string,
): void {
  app.post('/:version/:pageId/feed', async (request, reply) => {
    const call = pageGate(kit, state, request, reply, 'create_post', 'pages_manage_posts');
    if (!call) return reply;
    const f = call.fields;
    if (f.message !== undefined && typeof f.message !== 'string')
      return invalidParameter(reply, 'Param message must be a string.');
    const message = (f.message as string | undefined) ?? '';
    if ([...message].length > MAX_MESSAGE)
      return invalidParameter(reply, `Param message must be at most ${MAX_MESSAGE} characters long.`); // ⚠ unverified wording
    if (falsy(f.published) || f.scheduled_publish_time !== undefined)
      return invalidParameter(
        reply,
        'Unpublished and scheduled Page posts are not simulated by the Herald sandbox (Herald schedules itself).',
      );
    let link: string | null = null;
    if (f.link !== undefined) {
      if (typeof f.link !== 'string' || !/^https?:\/\/[^\s/]+\.[^\s]+$/i.test(f.link))
        return graphError(reply, 400, {
          code: 100,
          subcode: 1609005,
          message: '(#100) The link could not be fetched: it is not a valid http(s) URL.',
        });
      link = f.link;
    }
    const ids = attachedIds(f);
    if (typeof ids === 'string') return invalidParameter(reply, ids);
    if (ids.length > MAX_ATTACHED)
      return invalidParameter(reply, `attached_media takes at most ${MAX_ATTACHED} photos.`);
    if (link && ids.length > 0) return invalidParameter(reply, 'A post cannot carry both a link and attached_media.');
    if (message.trim() === '' && !link && ids.length === 0)
      return invalidParameter(reply, 'Either message, link or attached_media must be supplied.');
    for (const id of ids) {
      const photo = state.photos.get(id);
      if (!photo || photo.pageId !== call.page.id)
        return invalidParameter(reply, `attached_media: ${id} is not a photo of this Page.`);
      if (photo.published || photo.postId)
        return graphError(reply, 400, {
          code: 100,
          subcode: 1366051,
          message: '(#100) These photos were already posted.',
        });
    }
    const last = [...state.posts.values()]
      .filter((p) => p.pageId === call.page.id && !p.deleted)
      .sort((a, b) => b.createdAt - a.createdAt)[0];
    const duplicate =
      message.trim() !== '' &&
      last !== undefined &&
      last.message === message &&
      last.link === link &&
      ids.length === 0 &&
      last.photoIds.length === 0;
    if (duplicate || call.fault?.fault === 'duplicate') {
      // ⚠ unverified: the subcode and user texts (platforms.md §4 has only code 506 and its message).
      return graphError(reply, 400, {
        code: 506,
        subcode: 1455006,
        type: 'OAuthException',
        message: '(#506) Duplicate status message',
        userTitle: 'Duplicate Status Update',
        userMessage:
          'This status update is identical to the last one you posted. Try posting something different, or delete your previous update.',
      });
    }
    const post: FbPost = {
      id: `${call.page.id}_${snowflake(kit.now())}`,
      pageId: call.page.id,
      message,
      link,
      photoIds: ids,
      videoId: null,
      createdAt: kit.now(),
      deleted: false,
    };
    state.posts.set(post.id, post);
    for (const id of ids) state.photos.get(id)!.postId = post.id;
    if (call.drop) return kit.dropConnection(request, reply);
    return { id: post.id };
  });

  app.get('/:version/:pageId/feed', async (request, reply) => {
    const call = pageGate(kit, state, request, reply, 'lookup', 'pages_read_engagement');
    if (!call) return reply;
    const q = call.fields;
    const limit = q.limit === undefined ? 25 : Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return invalidParameter(reply, 'limit must be an integer from 1 to 100.');
    const time = (v: unknown) =>
      v === undefined ? undefined : /^\d+$/.test(String(v)) ? Number(v) * 1000 : Date.parse(String(v));
    const since = time(q.since);
    const until = time(q.until);
    if (Number.isNaN(since) || Number.isNaN(until))
      return invalidParameter(reply, 'since and until must be Unix times or ISO 8601 dates.');
    const all = [...state.posts.values()]
      .filter(
        (p) =>
          p.pageId === call.page.id &&
          !p.deleted &&
          (since === undefined || p.createdAt >= since) &&
          (until === undefined || p.createdAt <= until),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (b.id > a.id ? 1 : -1));
    const after = typeof q.after === 'string' ? Number(Buffer.from(q.after, 'base64url').toString()) || 0 : 0;
    const page = all.slice(after, after + limit);
    const fields = fieldList(q);
    const base = baseOf(request, prefix());
    const paging: Record<string, unknown> = {
      cursors: {
        before: Buffer.from(String(after)).toString('base64url'),
        after: Buffer.from(String(after + page.length)).toString('base64url'),
      },
    };
    if (after + limit < all.length) {
      const next = new URL(`${base}${request.url.split('?')[0]}`);
      for (const [k, v] of Object.entries(request.query as Record<string, string>))
        if (k !== 'access_token' && k !== 'after') next.searchParams.set(k, v);
      next.searchParams.set('after', Buffer.from(String(after + limit)).toString('base64url'));
      paging.next = next.toString();
    }
    return { data: page.map((p) => postJson(p, fields, base)), paging };
  });

  app.post('/:version/:pageId/photos', async (request, reply) => {
    const call = pageGate(kit, state, request, reply, 'upload_media', 'pages_manage_posts');
    if (!call) return reply;
    const file = call.body.files.source;
    if (!file) {
      if (call.fields.url !== undefined)
        return graphError(reply, 400, {
          code: 100,
          subcode: 2207052,
          message: '(#100) The sandbox cannot fetch photos by url; upload the bytes as source.',
        });
      return graphError(reply, 400, { code: 324, message: '(#324) Requires upload file' });
    }
    const type = sniff(file.data);
    if (!type || !PHOTO_TYPES.includes(type))
      return graphError(reply, 400, { code: 324, subcode: 1366046, message: '(#324) Missing or invalid image file' });
    if (file.data.length > MAX_PHOTO_BYTES)
      return graphError(reply, 400, {
        code: 100,
        subcode: 1366046,
        message: `(#100) The photo is larger than ${MAX_PHOTO_BYTES} bytes.`,
      });
    if (call.fault?.fault === 'media_failed')
      return graphError(reply, 400, {
        code: 324,
        subcode: 1366046,
        message: '(#324) The photo could not be processed (injected).',
      });
    if (call.fault?.fault === 'slow_media') await new Promise((r) => setTimeout(r, call.fault!.delayMs ?? 3000));
    const alt = call.fields.alt_text_custom;
    if (alt !== undefined && (typeof alt !== 'string' || alt.length > 1000))
      return invalidParameter(reply, 'alt_text_custom must be a string of at most 1000 characters.'); // ⚠ unverified cap
    const published = !falsy(call.fields.published);
    const id = snowflake(kit.now());
    state.photos.set(id, {
      id,
      pageId: call.page.id,
      contentType: type,
      bytes: file.data.length,
      altText: (alt as string | undefined) ?? null,
      published,
      postId: null,
      createdAt: kit.now(),
    });
    if (!published) return { id };
    const caption =
      typeof call.fields.message === 'string'
        ? call.fields.message
        : typeof call.fields.caption === 'string'
          ? call.fields.caption
          : '';
    const post: FbPost = {
      id: `${call.page.id}_${snowflake(kit.now())}`,
      pageId: call.page.id,
      message: caption,
      link: null,
      photoIds: [id],
      videoId: null,
      createdAt: kit.now(),
      deleted: false,
    };
    state.posts.set(post.id, post);
    state.photos.get(id)!.postId = post.id;
    if (call.drop) return kit.dropConnection(request, reply);
    return { id, post_id: post.id };
  });

  app.get('/:version/:id', async (request, reply) => {
    const { version, id } = request.params as { version: string; id: string };
    if (!GRAPH_VERSION.test(version)) return errorReply(reply, 404, `Unknown path components: /${version}`);
    const fields = fieldList(request.query as Record<string, unknown>);
    const claims = checkToken(kit, state, request, reply, ['fb_page', 'fb_user']);
    if (!claims) return reply;
    if (id === 'me') {
      if (claims.typ === 'fb_page') {
        const page = pageOf(state, claims);
        return page
          ? { id: page.id, name: page.name, username: page.username }
          : errorReply(reply, 404, 'Page not found');
      }
      return { id: claims.sub, name: String(claims.username).replace(/_/g, ' ') };
    }
    const owner = claims.typ === 'fb_page' ? claims.sub : undefined;
    // Reads of posts, photos and videos (reconciliation, processing status) take the `lookup` faults.
    if (
      owner &&
      applyGraphFault(kit, kit.faults.take('lookup', owner), request, reply, { businessId: owner, type: 'pages' }) ===
        'sent'
    )
      return reply;
    const missing = () =>
      graphError(reply, 400, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
    const page = state.pages.get(id);
    if (page)
      return {
        id: page.id,
        name: page.name,
        username: page.username,
        link: `${baseOf(request, prefix())}/web/${page.id}`,
      };
    const post = state.posts.get(id);
    if (post && !post.deleted && post.pageId === owner) return postJson(post, fields, baseOf(request, prefix()));
    const photo = state.photos.get(id);
    if (photo && photo.pageId === owner)
      return {
        id: photo.id,
        created_time: graphTime(photo.createdAt),
        ...(photo.altText ? { alt_text_custom: photo.altText } : {}),
        ...(photo.postId ? { page_story_id: photo.postId } : {}),
      };
    const video = state.videos.get(id);
    if (video && video.pageId === owner) return videoJson(kit, video, fields, baseOf(request, prefix()));
    return missing();
  });

  app.delete('/:version/:id', async (request, reply) => {
    const claims = checkToken(kit, state, request, reply, ['fb_page']);
    if (!claims) return reply;
    const id = (request.params as { id: string }).id;
    const post = state.posts.get(id);
    if (!post || post.deleted || post.pageId !== claims.sub)
      return graphError(reply, 400, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported delete request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
    post.deleted = true;
    return { success: true };
  });

  // Sandbox URLs of posts point here (real ones are https://www.facebook.com/<page-id>/posts/<post-id>).
  app.get('/web/:pageId/posts/:postId', async (request, reply) => {
    const { pageId, postId } = request.params as { pageId: string; postId: string };
    const post = state.posts.get(`${pageId}_${postId}`);
    if (!post || post.deleted)
      return reply
        .code(404)
        .type('text/plain')
        .send('This post does not exist in the sandbox (it may have been deleted, or the sandbox restarted).');
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const name = state.pages.get(pageId)?.name ?? pageId;
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><meta charset="utf-8"><title>Sandbox Facebook post</title><p><b>${esc(name)}</b> (Herald sandbox)</p><p>${esc(post.message)}</p>${post.link ? `<p><a href="${esc(post.link)}">${esc(post.link)}</a></p>` : ''}<p>${post.photoIds.length} photos${post.videoId ? ' · 1 video' : ''} · ${new Date(post.createdAt).toISOString()}</p>`,
      );
  });
}
