// TikTok's Direct Post as the simulator plays it (developers.tiktok.com content-posting-api-reference-direct-post,
// -photo-post, -media-transfer-guide): `creator_info/query`, `video/init` (FILE_UPLOAD with TikTok's chunk rules, or
// PULL_FROM_URL from a verified URL prefix) and `content/init` (photos, PULL_FROM_URL only). Every init checks the
// post info against the creator (privacy level among the creator's options, interactions the creator disabled),
// the unaudited-client rules when that switch is on (SELF_ONLY only, a cap on users posting per day, a cap on posts
// per day), and spends the 6-a-minute init window. The publish is a document (state.ts) that the upload route and
// the status route carry on.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fetchMedia, mayFetch } from '../meta/fetch.ts';
import { keepMedia, type MediaFile } from '../meta/media-files.ts';
import { ok } from './envelope.ts';
import { bool, dayOf, gate, obj, str, type Gated } from './gate.ts';
import {
  KIND,
  PRIVACY_LEVELS,
  tiktokSettings,
  type PrivacyLevel,
  type TiktokAccount,
  type TiktokContext,
  type TiktokPublish,
} from './state.ts';
import { UPLOAD_URL_TTL_MS, VIDEO_PROCESSING_MS, checkChunking } from './upload.ts';

const MAX_CAPTION = 2200; // video caption, UTF-16 code units
const MAX_PHOTO_TITLE = 90;
const MAX_PHOTO_DESCRIPTION = 4000;
const MAX_PHOTOS = 35; // ⚠ unverified: 35 is the aggregators' figure
const PHOTO_PROCESSING_MS = 0; // ⚠ unverified: how long a photo post takes to publish
const KEEP_BYTES = 16 * 1024 * 1024;

/**
 * The creator as `creator_info/query` shows them. The sandbox username shapes it, so tests can meet each case: a
 * name with `private` is a private account (no PUBLIC_TO_EVERYONE), `locked` has comments, duets and stitches
 * disabled, `short` may post videos of at most 60 s.
 */
export function creatorOf(account: TiktokAccount) {
  const name = account.username.toLowerCase();
  const locked = name.includes('locked');
  const options: PrivacyLevel[] = name.includes('private')
    ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
    : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
  return {
    creator_avatar_url: null,
    creator_username: account.username,
    creator_nickname: account.name,
    privacy_level_options: options,
    comment_disabled: locked,
    duet_disabled: locked,
    stitch_disabled: locked,
    max_video_post_duration_sec: name.includes('short') ? 60 : 600,
  };
}

export function registerTiktokPublish(app: FastifyInstance, ctx: TiktokContext): void {
  app.post('/v2/post/publish/creator_info/query/', (request, reply) => creatorInfo(ctx, request, reply));
  app.post('/v2/post/publish/video/init/', (request, reply) => init(ctx, request, reply, 'VIDEO'));
  app.post('/v2/post/publish/content/init/', (request, reply) => init(ctx, request, reply, 'PHOTO'));
}

async function creatorInfo(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply) {
  const g = await gate(ctx, request, reply, 'creator_info', 'video.publish', 'creator');
  if (!g) return reply;
  return ok(ctx.kit, creatorOf(g.account));
}

/** The post info's common checks: privacy among the creator's options, disabled interactions, the audit rules. */
async function checkPostInfo(
  ctx: TiktokContext,
  g: Gated,
  info: Record<string, unknown>,
  mediaType: 'VIDEO' | 'PHOTO',
): Promise<string | undefined> {
  const creator = creatorOf(g.account);
  const privacy = str(info, 'privacy_level');
  if (!privacy || !(PRIVACY_LEVELS as readonly string[]).includes(privacy))
    return 'invalid_params: post_info.privacy_level is required and must be a privacy level.';
  if (!(creator.privacy_level_options as string[]).includes(privacy))
    return `privacy_level_option_mismatch: privacy_level ${privacy} is not one of the creator's options (${creator.privacy_level_options.join(', ')}).`;
  // ⚠ unverified: TikTok's answer when an interaction the creator disabled is asked for.
  for (const [flag, disabled] of [
    ['disable_comment', creator.comment_disabled],
    ['disable_duet', mediaType === 'VIDEO' && creator.duet_disabled],
    ['disable_stitch', mediaType === 'VIDEO' && creator.stitch_disabled],
  ] as const)
    if (disabled && info[flag] === false)
      return `invalid_params: the creator has disabled ${flag.slice(8)}s; ${flag} must be true.`;
  if (bool(info, 'brand_content_toggle') && privacy === 'SELF_ONLY')
    return 'invalid_params: branded content cannot be private (SELF_ONLY).';
  const settings = tiktokSettings(ctx.kit);
  if (settings.unaudited && privacy !== 'SELF_ONLY')
    return 'unaudited_client_can_only_post_to_private_accounts: This unaudited client can only post SELF_ONLY content.';
  const today = dayOf(ctx.kit.now());
  if (settings.unaudited) {
    // The active-user cap: the first `activeUserCap` accounts to post today may, the others are refused.
    let capped = false;
    const doc = { accounts: [] as string[] };
    await ctx.kit.store.insert(KIND.activeUsers, `day:${today}`, doc);
    await ctx.kit.store.update<{ accounts: string[] }>(KIND.activeUsers, `day:${today}`, (d) => {
      if (d.accounts.includes(g.account.id)) return undefined;
      if (d.accounts.length >= settings.activeUserCap) {
        capped = true;
        return undefined;
      }
      return { accounts: [...d.accounts, g.account.id] };
    });
    if (capped)
      return `reached_active_user_cap: This unaudited client reached its cap of ${settings.activeUserCap} users posting in 24 hours.`;
  }
  if (settings.unaudited || ctx.kit.settings.tiktokDailyPostCap !== undefined) {
    let over = false;
    const key = `${g.account.id}:${today}`;
    await ctx.kit.store.insert(KIND.dailyPosts, key, { count: 0 });
    await ctx.kit.store.update<{ count: number }>(KIND.dailyPosts, key, (d) => {
      if (d.count >= settings.dailyPostCap) {
        over = true;
        return undefined;
      }
      return { count: d.count + 1 };
    });
    if (over) return 'spam_risk_too_many_posts: The user has reached the daily post cap for API posting.';
  }
  return undefined;
}

/** The pulled media, or the fail reason the publish ends with. ⚠ unverified: which reason names which failure. */
async function pull(
  ctx: TiktokContext,
  urls: string[],
  kind: 'video' | 'image',
): Promise<{ media: MediaFile[]; bytes: number } | { failReason: string }> {
  const media: MediaFile[] = [];
  let bytes = 0;
  for (const url of urls) {
    const got = await fetchMedia(url, ctx.kit.settings, { keepBytes: KEEP_BYTES });
    if (!got.ok) return { failReason: kind === 'video' ? 'video_pull_failed' : 'photo_pull_failed' };
    const fits =
      kind === 'video'
        ? /^video\/(mp4|quicktime|webm)$/.test(got.contentType ?? '')
        : /^image\/(jpeg|webp)$/.test(got.contentType ?? '');
    if (!fits) return { failReason: 'file_format_check_failed' };
    bytes += got.size;
    media.push({ key: await keepMedia(ctx.kit.store, got.bytes), kind, alt: null });
  }
  return { media, bytes };
}

async function init(ctx: TiktokContext, request: FastifyRequest, reply: FastifyReply, mediaType: 'VIDEO' | 'PHOTO') {
  const { kit, errorReply } = ctx;
  const g = await gate(ctx, request, reply, 'create_post', 'video.publish', 'init');
  if (!g) return reply;
  const info = obj(g.body, 'post_info') ?? {};
  const source = obj(g.body, 'source_info');
  const sourceKind = str(source, 'source');
  const title = str(info, 'title') ?? '';
  const description = str(info, 'description') ?? '';
  let inbox = false;
  if (mediaType === 'PHOTO') {
    if (g.body.media_type !== 'PHOTO') return errorReply(reply, 400, 'invalid_params: media_type must be PHOTO.');
    if (g.body.post_mode !== 'DIRECT_POST' && g.body.post_mode !== 'MEDIA_UPLOAD')
      return errorReply(reply, 400, 'invalid_params: post_mode must be DIRECT_POST or MEDIA_UPLOAD.');
    inbox = g.body.post_mode === 'MEDIA_UPLOAD';
    if (title.length > MAX_PHOTO_TITLE)
      return errorReply(reply, 400, `invalid_params: post_info.title is longer than ${MAX_PHOTO_TITLE} characters.`);
    if (description.length > MAX_PHOTO_DESCRIPTION)
      return errorReply(reply, 400, `invalid_params: post_info.description is longer than ${MAX_PHOTO_DESCRIPTION}.`);
    if (sourceKind !== 'PULL_FROM_URL')
      return errorReply(reply, 400, 'invalid_params: photo posts take source PULL_FROM_URL only.');
  } else {
    if (title.length > MAX_CAPTION)
      return errorReply(reply, 400, `invalid_params: post_info.title is longer than ${MAX_CAPTION} characters.`);
    if (sourceKind !== 'FILE_UPLOAD' && sourceKind !== 'PULL_FROM_URL')
      return errorReply(reply, 400, 'invalid_params: source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
  }
  // Checked before anything is fetched or counted: a refused init makes nothing.
  const images = Array.isArray(source?.photo_images) ? (source.photo_images as unknown[]) : [];
  const urls = mediaType === 'PHOTO' ? images : [source?.video_url];
  let chunking = { videoSize: 0, chunkSize: 0, totalChunks: 0 };
  if (mediaType === 'PHOTO') {
    if (images.length < 1 || images.length > MAX_PHOTOS || !images.every((u) => typeof u === 'string'))
      return errorReply(reply, 400, `invalid_params: photo_images must list 1 to ${MAX_PHOTOS} URLs.`);
    const cover = source?.photo_cover_index ?? 0;
    if (!Number.isInteger(cover) || (cover as number) < 0 || (cover as number) >= images.length)
      return errorReply(reply, 400, 'invalid_params: photo_cover_index must index photo_images.');
  } else if (sourceKind === 'FILE_UPLOAD') {
    const checked = checkChunking(source!);
    if (typeof checked === 'string') return errorReply(reply, 400, `invalid_params: ${checked}`);
    chunking = checked;
  } else if (typeof source?.video_url !== 'string') {
    return errorReply(reply, 400, 'invalid_params: source_info.video_url is required for PULL_FROM_URL.');
  }
  if (sourceKind === 'PULL_FROM_URL')
    for (const url of urls) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(String(url));
      } catch {
        parsed = undefined;
      }
      // TikTok pulls only from URL prefixes the app verified; the simulator's are `mediaFetchUrls`.
      if (!parsed || !mayFetch(parsed, kit.settings))
        return errorReply(
          reply,
          403,
          'url_ownership_unverified: The media URL is not on a domain or prefix this app verified.',
        );
    }
  const refused = await checkPostInfo(ctx, g, info, mediaType);
  if (refused) return errorReply(reply, /^(invalid_params|privacy_level)/.test(refused) ? 400 : 403, refused);

  const now = kit.now();
  const [seq, postId] = await Promise.all([kit.store.next('publish', 1000n), kit.snowflake()]);
  // TikTok's shapes: `v_pub_file~…`, `v_pub_url~…` for videos, `p_pub_url~…` for photo posts.
  const prefix = mediaType === 'PHOTO' ? 'p_pub_url' : sourceKind === 'FILE_UPLOAD' ? 'v_pub_file' : 'v_pub_url';
  const id = `${prefix}~v2-1.${seq}`;
  const publish: TiktokPublish = {
    id,
    accountId: g.account.id,
    mediaType,
    source: sourceKind as TiktokPublish['source'],
    title,
    description,
    privacyLevel: str(info, 'privacy_level') as PrivacyLevel,
    disableComment: bool(info, 'disable_comment'),
    disableDuet: bool(info, 'disable_duet'),
    disableStitch: bool(info, 'disable_stitch'),
    ...chunking,
    uploadedBytes: 0,
    downloadedBytes: 0,
    receivedAt: null,
    processingMs: 0,
    failReason: null,
    postId,
    media: [],
    createdAt: now,
    uploadExpiresAt: now + UPLOAD_URL_TTL_MS,
    inbox,
    plannedFail: null,
    extraProcessingMs: 0,
  };
  if (sourceKind === 'PULL_FROM_URL') {
    // Media faults of a pulled post are met here: the pull is TikTok's upload.
    const fault = kit.faults.take('upload_media', g.account.id);
    const pulled = await pull(ctx, urls as string[], mediaType === 'PHOTO' ? 'image' : 'video');
    publish.receivedAt = kit.now();
    publish.processingMs =
      (mediaType === 'PHOTO' ? PHOTO_PROCESSING_MS : VIDEO_PROCESSING_MS) +
      (fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0);
    if ('failReason' in pulled) publish.failReason = pulled.failReason;
    else Object.assign(publish, { media: pulled.media, downloadedBytes: pulled.bytes });
    if (fault?.fault === 'media_failed') publish.failReason = 'file_format_check_failed';
  }
  await Promise.all([
    kit.store.put(KIND.publish, id, publish, g.account.id),
    kit.store.put(KIND.postIndex, postId, { publishId: id }),
  ]);
  if (g.drop) return kit.dropConnection(request, reply);
  const host = `${request.protocol}://${request.headers.host}${ctx.prefix}`;
  return ok(kit, {
    publish_id: id,
    ...(sourceKind === 'FILE_UPLOAD' && {
      upload_url: `${host}/upload/video/${encodeURIComponent(id)}?upload_token=${encodeURIComponent(
        kit.tokens.sign({ sub: id, typ: 'tiktok_upload', ttlSeconds: UPLOAD_URL_TTL_MS / 1000 }),
      )}`,
    }),
  });
}
