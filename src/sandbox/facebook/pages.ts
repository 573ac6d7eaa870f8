// Page publishing on the Graph API (docs/platforms/facebook.md "Calls"): feed posts with message / link /
// attached_media, and photos (published with their own post, or unpublished to attach later; their bytes kept in
// the store, served once posted). Every call passes the Page gate.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sniff } from '../framework/sniff.ts';
import { graphError, invalidParameter } from './graph-reply.ts';
import { falsy, MAX_MESSAGE, pageGate, type PagePath } from './page-gate.ts';
import { KIND, photoBlob, type FbPhoto, type FbPost, type FbSim } from './state.ts';

const MAX_PHOTO_BYTES = 10 * 1_000_000; // ⚠ unverified: Meta only recommends < 4 MB; Herald's own cap
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const MAX_ATTACHED = 100; // ⚠ unverified: Meta documents no cap on attached_media

export function registerFbPages(app: FastifyInstance, sim: FbSim): void {
  app.post<{ Params: PagePath }>('/:version/:pageId/feed', (request, reply) => createFeedPost(sim, request, reply));
  app.post<{ Params: PagePath }>('/:version/:pageId/photos', (request, reply) => uploadPhoto(sim, request, reply));
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

async function createFeedPost(sim: FbSim, request: FastifyRequest<{ Params: PagePath }>, reply: FastifyReply) {
  const { kit } = sim;
  const { store } = kit;
  const call = await pageGate(sim, request, reply, {
    ...request.params,
    operation: 'create_post',
    scope: 'pages_manage_posts',
  });
  if (!call) return reply;
  const f = call.fields;
  if (f.message !== undefined && typeof f.message !== 'string')
    return invalidParameter(reply, 'Param message must be a string.');
  const message = typeof f.message === 'string' ? f.message : '';
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
  if (ids.length > MAX_ATTACHED) return invalidParameter(reply, `attached_media takes at most ${MAX_ATTACHED} photos.`);
  if (link && ids.length > 0) return invalidParameter(reply, 'A post cannot carry both a link and attached_media.');
  if (message.trim() === '' && !link && ids.length === 0)
    return invalidParameter(reply, 'Either message, link or attached_media must be supplied.');
  // At once: what the checks need (the photos, the Page's last post, newest stored first) and the new post's id
  // (a refused post only leaves a gap among ids).
  const [photos, [last], number] = await Promise.all([
    Promise.all(ids.map((id) => store.get<FbPhoto>(KIND.photo, id))),
    store.list<FbPost>(KIND.post, { owner: call.page.id, match: { deleted: false }, limit: 1 }),
    kit.snowflake(),
  ]);
  for (const [i, photo] of photos.entries()) {
    if (!photo || photo.pageId !== call.page.id)
      return invalidParameter(reply, `attached_media: ${ids[i]} is not a photo of this Page.`);
    if (photo.published || photo.postId) return alreadyPosted(reply);
  }
  const duplicate =
    message.trim() !== '' &&
    last !== undefined &&
    last.message === message &&
    last.link === link &&
    ids.length === 0 &&
    last.photoIds.length === 0;
  if (duplicate || call.fault?.fault === 'duplicate') {
    // ⚠ unverified: the subcode and user texts (docs/platforms/facebook.md "Errors" has only code 506 and its message).
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
    id: `${call.page.id}_${number}`,
    pageId: call.page.id,
    message,
    link,
    photoIds: ids,
    videoId: null,
    createdAt: kit.now(),
    deleted: false,
  };
  // The photos are claimed one by one under their row lock: of two posts attaching one photo at once (two API
  // nodes), one gets it and the other is refused as Facebook refuses a photo posted before.
  if (!(await claimPhotos(sim, ids, post.id))) return alreadyPosted(reply);
  await store.put(KIND.post, post.id, post, post.pageId);
  if (call.drop) return kit.dropConnection(request, reply);
  return { id: post.id };
}

const alreadyPosted = (reply: FastifyReply) =>
  graphError(reply, 400, { code: 100, subcode: 1366051, message: '(#100) These photos were already posted.' });

/** Attaches the photos to `postId`; false (and none attached) when another post took one of them first. */
async function claimPhotos({ kit }: FbSim, ids: string[], postId: string): Promise<boolean> {
  const claim = (id: string, from: string | null, to: string | null) =>
    kit.store.update<FbPhoto>(KIND.photo, id, (p) => (p.postId === from ? { ...p, postId: to } : undefined));
  const claimed = await Promise.all(ids.map((id) => claim(id, null, postId)));
  if (claimed.every((p) => p?.postId === postId)) return true;
  await Promise.all(ids.filter((_id, i) => claimed[i]?.postId === postId).map((id) => claim(id, postId, null)));
  return false;
}

async function uploadPhoto(sim: FbSim, request: FastifyRequest<{ Params: PagePath }>, reply: FastifyReply) {
  const { kit } = sim;
  const { store } = kit;
  const call = await pageGate(sim, request, reply, {
    ...request.params,
    operation: 'upload_media',
    scope: 'pages_manage_posts',
  });
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
  const photo: FbPhoto = {
    id: await kit.snowflake(),
    pageId: call.page.id,
    contentType: type,
    bytes: file.data.length,
    altText: typeof alt === 'string' ? alt : null,
    published,
    postId: null,
    createdAt: kit.now(),
  };
  if (!published) {
    await Promise.all([
      store.putBytes(photoBlob(photo.id), file.data),
      store.put(KIND.photo, photo.id, photo, photo.pageId),
    ]);
    return { id: photo.id };
  }
  const caption =
    typeof call.fields.message === 'string'
      ? call.fields.message
      : typeof call.fields.caption === 'string'
        ? call.fields.caption
        : '';
  const post: FbPost = {
    id: `${call.page.id}_${await kit.snowflake()}`,
    pageId: call.page.id,
    message: caption,
    link: null,
    photoIds: [photo.id],
    videoId: null,
    createdAt: kit.now(),
    deleted: false,
  };
  photo.postId = post.id;
  await Promise.all([
    store.putBytes(photoBlob(photo.id), file.data),
    store.put(KIND.photo, photo.id, photo, photo.pageId),
    store.put(KIND.post, post.id, post, post.pageId),
  ]);
  if (call.drop) return kit.dropConnection(request, reply);
  return { id: photo.id, post_id: post.id };
}
