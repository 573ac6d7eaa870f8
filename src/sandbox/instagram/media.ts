// Instagram content publishing (platforms.md §3 "Calls"): containers for images, Reels, stories and carousels
// (children first, 2–10), whose media Instagram fetches from the given URL; the container life
// IN_PROGRESS → FINISHED | ERROR, EXPIRED after 24 h, PUBLISHED; media_publish refusing containers that are not
// FINISHED (9007/2207027) and accounts past the rolling 24-hour quota (9/2207042); content_publishing_limit;
// media reads (node and the account's media edge); comments; and a web page per post for sandbox URLs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countHashtags, countMentions, measure } from '../../platforms/instagram/limits.ts';
import type { SimulatorKit } from '../framework/simulator.ts';
import { fetchMedia } from '../meta/fetch.ts';
import { applyGraphFault, containerTimings, graphError, recentTimes, type SimContainer } from '../meta/graph.ts';
import {
  beginGraphCall,
  fieldsOf,
  isoTime,
  ownAccount as ownAccountOf,
  pick,
  createVideoContainer,
  refuseUnpublishable,
  shortcodeOf,
} from '../meta/publishing.ts';
import { igAuthenticate, igScopes } from './auth.ts';
import { type IgContainerData, type IgMedia, type IgMediaType, type IgState, type IgUser } from './state.ts';

const DAY_MS = 24 * 3600_000;
const CALLS_PER_HOUR = 200; // ⚠ unverified: Instagram's Business Use Case budget depends on impressions; a flat figure here
const CONTAINERS_PER_DAY = 400; // ⚠ unverified (platforms.md §3 "Rate limits")
const DEFAULT_QUOTA = 100; // content-publishing guide; content_publishing_limit reports the live figure
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const MAX_VIDEO_BYTES = 300 * 1024 * 1024;
const MEDIA_TYPES: readonly IgMediaType[] = ['IMAGE', 'VIDEO', 'REELS', 'STORIES', 'CAROUSEL'];

export function publishQuota(kit: SimulatorKit): number {
  const q = kit.settings.instagramPublishQuota;
  // Scaled like every simulated rate limit (HERALD_SANDBOX_RATE_LIMIT_FACTOR, load tests).
  return kit.limit(typeof q === 'number' && q >= 0 ? q : DEFAULT_QUOTA);
}

const STATUS_TEXT: Record<string, string> = {
  IN_PROGRESS: 'In Progress: Media is still being processed.',
  FINISHED: 'Finished: Media has been uploaded and it is ready to be published.',
  PUBLISHED: 'Published: Media has been successfully published.',
  EXPIRED: 'Expired: Media was not published within 24 hours.',
};

export function mediaJson(m: IgMedia, user: IgUser | undefined): Record<string, unknown> {
  return {
    id: m.id,
    caption: m.caption || undefined,
    media_type: m.mediaType,
    media_product_type: m.productType,
    permalink: `https://www.instagram.com/${m.productType === 'REELS' ? 'reel' : 'p'}/${m.shortcode}/`,
    shortcode: m.shortcode,
    timestamp: isoTime(m.timestamp),
    username: user?.username,
    like_count: 0,
    comments_count: m.comments.length,
  };
}

export function registerIgMedia(app: FastifyInstance, kit: SimulatorKit, state: IgState): void {
  const timings = () => containerTimings(kit.settings);

  /** What every Graph call goes through: version, token, the per-account call budget and the usage headers. */
  const begin = (
    request: FastifyRequest,
    reply: FastifyReply,
  ): { user: IgUser; params: Record<string, string> } | undefined => {
    const ctx = beginGraphCall(
      kit,
      {
        windowPrefix: 'ig-calls',
        usageType: 'instagram',
        callsPerHour: CALLS_PER_HOUR,
        authenticate: (req, rep, params) => igAuthenticate(kit, state, req, rep, params),
        userId: (user) => user.id,
        limited: {
          message: 'There have been too many calls to this Instagram account. Wait a bit and try again.',
          code: 80002,
          isTransient: true,
        },
      },
      request,
      reply,
    );
    return ctx && { user: ctx.auth, params: ctx.params };
  };

  /** The account a path names: its id or `me`; another account is out of reach of this token. */
  const ownAccount = (reply: FastifyReply, user: IgUser, id: string): boolean =>
    ownAccountOf(reply, user.id, id, `Unsupported request - method type: ${id}.`);

  const needsPublish = (request: FastifyRequest, reply: FastifyReply, params: Record<string, string>): boolean => {
    const token = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? params.access_token;
    if (igScopes(kit, token).includes('instagram_business_content_publish')) return true;
    graphError(reply, 403, { message: 'Application does not have permission for this action', code: 10 });
    return false;
  };

  app.get('/:version/me', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const all = {
      id: ctx.user.appScopedId,
      user_id: ctx.user.id,
      username: ctx.user.username,
      name: ctx.user.name,
      account_type: 'BUSINESS',
      media_count: [...state.media.values()].filter((m) => m.owner === ctx.user.id && !m.deleted).length,
    };
    return pick(all, fieldsOf(ctx.params, ['user_id', 'username']));
  });

  app.post('/:version/:userId/media', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const { user, params } = ctx;
    if (!ownAccount(reply, user, (request.params as { userId: string }).userId)) return reply;
    if (!needsPublish(request, reply, params)) return reply;
    const carouselItem = params.is_carousel_item === 'true';
    const mediaType = (
      params.media_type ?? (params.image_url ? 'IMAGE' : params.video_url ? 'VIDEO' : '')
    ).toUpperCase() as IgMediaType;
    if (!MEDIA_TYPES.includes(mediaType))
      return graphError(reply, 400, {
        message:
          'The parameter media_type is required and must be one of IMAGE, REELS, STORIES, CAROUSEL (VIDEO for carousel items).',
        code: 100,
      });
    if (mediaType === 'VIDEO' && !carouselItem)
      return graphError(reply, 400, {
        message: 'The VIDEO media type is no longer supported for single feed videos. Use REELS.',
        code: 100,
        subcode: 2207023,
      });
    if (carouselItem && (mediaType === 'REELS' || mediaType === 'STORIES' || mediaType === 'CAROUSEL'))
      return graphError(reply, 400, {
        message: `A carousel item must be an IMAGE or a VIDEO, not ${mediaType}.`,
        code: 100,
        subcode: 2207028,
      });
    const isVideo = mediaType === 'VIDEO' || mediaType === 'REELS' || (mediaType === 'STORIES' && !!params.video_url);
    const url = isVideo ? params.video_url : params.image_url;
    if (mediaType !== 'CAROUSEL' && !url)
      return graphError(reply, 400, {
        message: `The parameter ${isVideo ? 'video_url' : 'image_url'} is required.`,
        code: 100,
      });
    const caption = carouselItem ? '' : (params.caption ?? '');
    if (measure(caption) > 2200)
      return graphError(reply, 400, {
        message: 'The caption is too long. It must be 2200 characters or fewer.',
        code: 100,
        subcode: 2207010,
      });
    if (countHashtags(caption) > 30 || countMentions(caption) > 20)
      return graphError(reply, 400, {
        message: 'The caption has too many hashtags or mentions (30 hashtags, 20 mentions at most).',
        code: 100,
        subcode: 2207040,
      });
    const altText = params.alt_text ?? null;
    if (altText !== null && (isVideo || mediaType === 'CAROUSEL'))
      return graphError(reply, 400, { message: 'alt_text is only supported on images.', code: 100 });
    if (altText !== null && altText.length > 1000)
      return graphError(reply, 400, { message: 'alt_text must be 1000 characters or fewer.', code: 100 });
    const made = recentTimes(state.creations, user.id, kit.now(), DAY_MS);
    if (made.length >= kit.limit(CONTAINERS_PER_DAY))
      return graphError(reply, 400, {
        message: 'Application request limit reached',
        code: 9,
        subcode: 2207042,
        userTitle: 'Too many containers',
        userMessage: `At most ${CONTAINERS_PER_DAY} containers can be created in 24 hours.`,
      });

    const t = timings();
    if (mediaType === 'CAROUSEL') {
      const ids = (params.children ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (ids.length < 2 || ids.length > 10)
        return graphError(reply, 400, {
          message: `A carousel needs 2 to 10 children; got ${ids.length}.`,
          code: 100,
          subcode: 2207028,
        });
      for (const id of ids) {
        const child = state.containers.get(id);
        if (!child || child.owner !== user.id)
          return graphError(reply, 400, { message: `Invalid child container ${id}.`, code: 100, subcode: 33 });
        if (!child.data.carouselItem)
          return graphError(reply, 400, {
            message: `Container ${id} was not created with is_carousel_item=true.`,
            code: 100,
            subcode: 2207028,
          });
        const status = state.containers.status(child);
        if (status === 'IN_PROGRESS')
          return graphError(reply, 400, {
            message: 'Media ID is not available',
            code: 9007,
            subcode: 2207027,
            userTitle: 'Media not ready',
            userMessage: `Child container ${id} is still being processed; wait until it is FINISHED.`,
          });
        if (status === 'ERROR' || status === 'EXPIRED' || status === 'PUBLISHED')
          return graphError(reply, 400, {
            message: `Child container ${id} is ${status}.`,
            code: 100,
            subcode: 2207028,
          });
      }
      made.push(kit.now());
      const container = state.containers.create(
        user.id,
        {
          mediaType,
          carouselItem: false,
          caption,
          altText: null,
          children: ids,
          mediaUrl: null,
          isVideo: false,
          shareToFeed: true,
        },
        t.otherMs,
      );
      return { id: container.id };
    }

    const fault = kit.faults.take('upload_media', user.id);
    if (applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'instagram' }) === 'sent')
      return reply;
    const extra = fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0;
    const data: IgContainerData = {
      mediaType,
      carouselItem,
      caption,
      altText,
      children: [],
      mediaUrl: url!,
      isVideo,
      shareToFeed: params.share_to_feed !== 'false',
    };
    if (!isVideo) {
      // Images are fetched while the container is created: a URL Instagram cannot read fails the call itself.
      const got = await fetchMedia(url!, kit.settings);
      if (!got.ok)
        return graphError(reply, 400, {
          message: "Media download has failed. The media URI doesn't meet our requirements.",
          code: 9004,
          subcode: 2207052,
          userTitle: 'Media download failed',
          userMessage: `The media could not be fetched from this URI: ${got.reason}.`,
        });
      if (got.contentType !== 'image/jpeg')
        return graphError(reply, 400, {
          message: 'The image format is not supported. Only JPEG images can be published.',
          code: 9004,
          subcode: 2207005,
        });
      if (got.size > MAX_IMAGE_BYTES)
        return graphError(reply, 400, {
          message: 'The image is too large to upload (8 MB at most).',
          code: 9004,
          subcode: 2207004,
        });
      if (got.width && got.height && !carouselItem && mediaType === 'IMAGE') {
        const ratio = got.width / got.height;
        if (ratio < 0.8 - 1e-9 || ratio > 1.91 + 1e-9)
          return graphError(reply, 400, {
            message: `The aspect ratio ${ratio.toFixed(2)} is not supported (4:5 to 1.91:1).`,
            code: 36003,
            subcode: 2207009,
          });
      }
      made.push(kit.now());
      const container = state.containers.create(
        user.id,
        data,
        t.imageMs + extra,
        fault?.fault === 'media_failed' ? 'Error: Media upload has failed with error code 2207001' : null,
      );
      return { id: container.id };
    }
    // Videos are fetched and processed after the answer: failures show as ERROR on the container.
    made.push(kit.now());
    const container = createVideoContainer(kit, state.containers, user.id, data, url!, {
      processingMs: t.videoMs + extra,
      maxBytes: MAX_VIDEO_BYTES,
      faulted: fault?.fault === 'media_failed',
      failures: {
        download: (reason) => `Error: Media download has failed (2207052): ${reason}`,
        format: 'Error: Media upload has failed with error code 2207026 (unsupported video format)',
        tooLarge: 'Error: Media upload has failed with error code 2207026 (video too large)',
        failed: 'Error: Media upload has failed with error code 2207026',
      },
    });
    return { id: container.id };
  });

  app.post('/:version/:userId/media_publish', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const { user, params } = ctx;
    if (!ownAccount(reply, user, (request.params as { userId: string }).userId)) return reply;
    if (!needsPublish(request, reply, params)) return reply;
    const fault = kit.faults.take('create_post', user.id);
    const applied = applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'instagram' });
    if (applied === 'sent') return reply;
    const container = params.creation_id ? state.containers.get(params.creation_id) : undefined;
    if (!params.creation_id)
      return graphError(reply, 400, { message: 'The parameter creation_id is required.', code: 100 });
    if (!container || container.owner !== user.id)
      return graphError(reply, 400, {
        message: `Unsupported post request. Object with ID '${params.creation_id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    if (container.data.carouselItem)
      return graphError(reply, 400, {
        message: 'A carousel item cannot be published on its own; publish its carousel container.',
        code: 100,
        subcode: 2207028,
      });
    const status = state.containers.status(container);
    const refused = refuseUnpublishable(reply, status, container, {
      notReady: {
        message: 'Media ID is not available',
        code: 9007,
        subcode: 2207027,
        userTitle: 'Media not ready for publishing',
        userMessage: 'The media is not ready for publishing, please wait for a moment.',
      },
      expired: 'The media you are trying to access has expired. Please try to upload again.',
      // ⚠ unverified: the exact answer to publishing a container twice.
      published: 'This media container has already been published.',
    });
    if (refused) return refused;
    const published = recentTimes(state.publishes, user.id, kit.now(), DAY_MS);
    const quota = publishQuota(kit);
    if (published.length >= quota)
      return graphError(reply, 400, {
        message: 'Application request limit reached',
        code: 9,
        subcode: 2207042,
        userTitle: 'Reached maximum number of posts',
        userMessage: `You have reached the maximum of ${quota} posts in 24 hours. Try again later.`,
      });
    const id = state.nextId();
    const d = container.data;
    const children = d.children
      .map((c) => state.containers.get(c))
      .filter((c): c is SimContainer<IgContainerData> => c !== undefined);
    const media: IgMedia = {
      id,
      owner: user.id,
      containerId: container.id,
      caption: d.caption,
      mediaType: d.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : !d.isVideo ? 'IMAGE' : 'VIDEO',
      productType: d.mediaType === 'REELS' ? 'REELS' : d.mediaType === 'STORIES' ? 'STORY' : 'FEED',
      shortcode: shortcodeOf(id),
      items: d.mediaType === 'CAROUSEL' ? children.length : 1,
      timestamp: kit.now(),
      comments: [],
      deleted: false,
    };
    state.media.set(id, media);
    state.containers.markPublished(container, id);
    published.push(kit.now());
    if (applied === 'drop') return kit.dropConnection(request, reply);
    if (fault?.fault === 'published_but_blocked') {
      return graphError(reply, 400, {
        message: 'Application does not have permission for this action',
        code: 10,
        subcode: 2207051,
        userTitle: 'Action blocked',
        userMessage: 'We restrict certain activity to protect our community. Tell us if you think we made a mistake.',
      });
    }
    return { id };
  });

  app.get('/:version/:userId/content_publishing_limit', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    if (!ownAccount(reply, ctx.user, (request.params as { userId: string }).userId)) return reply;
    const fields = fieldsOf(ctx.params, ['quota_usage']);
    const entry: Record<string, unknown> = {
      quota_usage: recentTimes(state.publishes, ctx.user.id, kit.now(), DAY_MS).length,
    };
    if (fields.includes('config')) entry.config = { quota_total: publishQuota(kit), quota_duration: 86400 };
    return { data: [entry] };
  });

  app.get('/:version/:userId/media', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    if (!ownAccount(reply, ctx.user, (request.params as { userId: string }).userId)) return reply;
    const fields = fieldsOf(ctx.params, ['id']);
    const limit = Math.min(100, Math.max(1, Number(ctx.params.limit) || 25));
    const since = ctx.params.since && /^\d+$/.test(ctx.params.since) ? Number(ctx.params.since) * 1000 : 0;
    const all = [...state.media.values()]
      .filter((m) => m.owner === ctx.user.id && !m.deleted && m.productType !== 'STORY' && m.timestamp >= since)
      .sort((a, b) => b.timestamp - a.timestamp || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const start = ctx.params.after
      ? Math.max(0, all.findIndex((m) => m.id === Buffer.from(ctx.params.after!, 'base64url').toString()) + 1)
      : 0;
    const page = all.slice(start, start + limit);
    const body: Record<string, unknown> = { data: page.map((m) => pick(mediaJson(m, ctx.user), fields)) };
    if (page.length > 0) {
      const cursors = {
        before: Buffer.from(page[0]!.id).toString('base64url'),
        after: Buffer.from(page.at(-1)!.id).toString('base64url'),
      };
      body.paging = { cursors, ...(start + limit < all.length ? { next: `?after=${cursors.after}` } : {}) };
    }
    return body;
  });

  app.get('/:version/:userId/stories', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    if (!ownAccount(reply, ctx.user, (request.params as { userId: string }).userId)) return reply;
    const fields = fieldsOf(ctx.params, ['id']);
    // Stories stay listed for 24 hours.
    const live = [...state.media.values()]
      .filter(
        (m) => m.owner === ctx.user.id && !m.deleted && m.productType === 'STORY' && m.timestamp > kit.now() - DAY_MS,
      )
      .sort((a, b) => b.timestamp - a.timestamp);
    return { data: live.map((m) => pick(mediaJson(m, ctx.user), fields)) };
  });

  app.get('/:version/:id', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const id = (request.params as { id: string }).id;
    const container = state.containers.get(id);
    if (container && container.owner === ctx.user.id) {
      const status = state.containers.status(container);
      return pick(
        { id, status_code: status, status: status === 'ERROR' ? container.failure : STATUS_TEXT[status] },
        fieldsOf(ctx.params, ['id']),
      );
    }
    const media = state.media.get(id);
    if (media && media.owner === ctx.user.id && !media.deleted)
      return pick(mediaJson(media, ctx.user), fieldsOf(ctx.params, ['id']));
    if (id === ctx.user.id)
      return pick({ id, username: ctx.user.username, name: ctx.user.name }, fieldsOf(ctx.params, ['id']));
    return graphError(reply, 400, {
      message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  });

  // Media insights (platforms.md §3 "Metrics"): `impressions` is gone since v22 and is refused as Graph refuses it.
  const IG_METRICS = ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions'];
  app.get('/:version/:mediaId/insights', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const token =
      /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? ctx.params.access_token;
    if (!igScopes(kit, token).includes('instagram_business_manage_insights'))
      return graphError(reply, 403, {
        message: 'Application does not have permission for this action (instagram_business_manage_insights).',
        code: 10,
      });
    const media = state.media.get((request.params as { mediaId: string }).mediaId);
    if (!media || media.deleted || media.owner !== ctx.user.id)
      return graphError(reply, 400, {
        message: 'Unsupported get request. The media does not exist.',
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    const wanted = (ctx.params.metric ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (wanted.length === 0) return graphError(reply, 400, { message: 'The parameter metric is required.', code: 100 });
    const unknown = wanted.find((m) => !IG_METRICS.includes(m));
    if (unknown)
      return graphError(reply, 400, {
        message: `(#100) metric[0] must be one of the following values: ${IG_METRICS.join(', ')}`,
        code: 100,
        userMessage: `${unknown} is not supported.`,
      });
    const value = (m: string) =>
      m === 'comments' ? media.comments.length : m === 'total_interactions' ? media.comments.length : 0;
    return {
      data: wanted.map((m) => ({
        name: m,
        period: 'lifetime',
        values: [{ value: value(m) }],
        title: m,
        id: `${media.id}/insights/${m}/lifetime`,
      })),
    };
  });

  app.post('/:version/:mediaId/comments', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const media = state.media.get((request.params as { mediaId: string }).mediaId);
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
    const comment = { id: state.nextId(), text: message, username: ctx.user.username, timestamp: kit.now() };
    media.comments.push(comment);
    if (applied === 'drop') return kit.dropConnection(request, reply);
    return { id: comment.id };
  });

  app.get('/:version/:mediaId/comments', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const media = state.media.get((request.params as { mediaId: string }).mediaId);
    if (!media || media.deleted)
      return graphError(reply, 400, {
        message: 'Unsupported get request. The media does not exist.',
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    const fields = fieldsOf(ctx.params, ['id', 'text', 'timestamp']);
    return {
      data: media.comments.map((c) =>
        pick({ id: c.id, text: c.text, username: c.username, timestamp: isoTime(c.timestamp) }, fields),
      ),
    };
  });

  // Instagram Login tokens cannot delete media (Meta allows it only under Facebook Login). ⚠ unverified answer shape.
  app.delete('/:version/:id', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    return graphError(reply, 400, {
      message: 'Unsupported delete request. Media can be deleted only by apps using Facebook Login for Business.',
      type: 'GraphMethodException',
      code: 100,
    });
  });

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const { shortcode } = request.params as { kind: string; shortcode: string };
    const media = [...state.media.values()].find((m) => m.shortcode === shortcode.replace(/\/$/, '') && !m.deleted);
    if (!media)
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send("<!doctype html><title>Not found</title><p>Sorry, this page isn't available.</p>");
    const user = state.users.get(media.owner);
    const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><title>@${esc(user?.username ?? '')} on Instagram (sandbox)</title><article><h1>@${esc(user?.username ?? '')}</h1><p>${esc(media.caption)}</p><p>${media.items} media item(s) · ${media.productType}</p><ul>${media.comments.map((c) => `<li>@${esc(c.username)}: ${esc(c.text)}</li>`).join('')}</ul></article>`,
      );
  };
  // Instagram permalinks end with a slash; both spellings are served.
  app.get('/web/:kind/:shortcode', page);
  app.get('/web/:kind/:shortcode/', page);
}
