// Threads publishing (platforms.md §5 "Calls"): containers for text, images, videos and carousels (2–20 children),
// reply chains through `reply_to_id`, the 500-character rule with emoji counted as UTF-8 bytes and the 5-link
// rule; Threads fetches media from its URL (images at creation, videos while processing, failures as
// `error_message` FAILED_DOWNLOADING_VIDEO …); threads_publish under the rolling quotas (250 posts and 1,000
// replies per 24 h); threads_publishing_limit; reads of a post, the account's threads and replies; delete
// (100 per 24 h); and a web page per post for sandbox URLs.
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { measure } from '../../platforms/threads/limits.ts';
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
import { thAuthenticate } from './auth.ts';
import type { ThContainerData, ThMediaType, ThPost, ThState, ThUser } from './state.ts';

const twitterText = createRequire(import.meta.url)('twitter-text') as { extractUrls(text: string): string[] };

const DAY_MS = 24 * 3600_000;
const CALLS_PER_HOUR = 500; // ⚠ unverified: Threads' budget is 4,800 × impressions per 24 h; a flat figure here
const REPLY_CONTROLS = [
  'everyone',
  'accounts_you_follow',
  'mentioned_only',
  'parent_post_author_only',
  'followers_only',
];
const MEDIA_TYPES: readonly ThMediaType[] = ['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'];
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const MAX_VIDEO_BYTES = 1024 * 1024 * 1024;

function quota(kit: SimulatorKit, name: 'threadsPublishQuota' | 'threadsReplyQuota', fallback: number): number {
  const q = kit.settings[name];
  return kit.limit(typeof q === 'number' && q >= 0 ? q : fallback);
}

export function postJson(p: ThPost, user: ThUser | undefined): Record<string, unknown> {
  return {
    id: p.id,
    media_product_type: 'THREADS',
    media_type: p.mediaType,
    text: p.text || undefined,
    permalink: `https://www.threads.net/@${user?.username ?? 'unknown'}/post/${p.shortcode}`,
    shortcode: p.shortcode,
    timestamp: isoTime(p.timestamp),
    username: user?.username,
    is_reply: p.replyTo !== null,
    replied_to: p.replyTo ? { id: p.replyTo } : undefined,
    root_post: p.root ? { id: p.root } : undefined,
    reply_audience: p.replyControl.toUpperCase(),
  };
}

export function registerThreadsPosts(app: FastifyInstance, kit: SimulatorKit, state: ThState): void {
  const timings = () => containerTimings(kit.settings);

  const begin = (
    request: FastifyRequest,
    reply: FastifyReply,
  ): { user: ThUser; scopes: string[]; params: Record<string, string> } | undefined => {
    const ctx = beginGraphCall(
      kit,
      {
        windowPrefix: 'th-calls',
        usageType: 'threads',
        callsPerHour: CALLS_PER_HOUR,
        authenticate: (req, rep, params) => thAuthenticate(kit, state, req, rep, params),
        userId: (auth) => auth.user.id,
        limited: { message: 'Application request limit reached', code: 4, isTransient: true },
      },
      request,
      reply,
    );
    return ctx && { ...ctx.auth, params: ctx.params };
  };

  const ownAccount = (reply: FastifyReply, user: ThUser, id: string): boolean =>
    ownAccountOf(reply, user.id, id, 'Unsupported request.');

  const scoped = (reply: FastifyReply, scopes: string[], scope: string): boolean => {
    if (scopes.includes(scope)) return true;
    graphError(reply, 403, {
      message: `Application does not have permission for this action (${scope} is required).`,
      code: 10,
    });
    return false;
  };

  app.get('/:version/me', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    return pick(
      { id: ctx.user.id, username: ctx.user.username, name: ctx.user.name, threads_biography: '' },
      fieldsOf(ctx.params, ['id', 'username']),
    );
  });

  app.post('/:version/:userId/threads', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const { user, params } = ctx;
    if (!ownAccount(reply, user, (request.params as { userId: string }).userId)) return reply;
    if (!scoped(reply, ctx.scopes, 'threads_content_publish')) return reply;
    const carouselItem = params.is_carousel_item === 'true';
    const mediaType = (params.media_type ?? '').toUpperCase() as ThMediaType;
    if (!MEDIA_TYPES.includes(mediaType))
      return graphError(reply, 400, {
        message: 'The parameter media_type is required: TEXT, IMAGE, VIDEO or CAROUSEL.',
        code: 100,
      });
    if (carouselItem && (mediaType === 'TEXT' || mediaType === 'CAROUSEL'))
      return graphError(reply, 400, { message: 'A carousel item is an IMAGE or a VIDEO.', code: 100 });
    const text = carouselItem ? '' : (params.text ?? '');
    if (mediaType === 'TEXT' && !text.trim())
      return graphError(reply, 400, { message: 'The parameter text is required for TEXT posts.', code: 100 });
    if (measure(text) > 500)
      return graphError(reply, 400, { message: 'Param text must be at most 500 characters long.', code: 100 });
    if (twitterText.extractUrls(text).length > 5)
      return graphError(reply, 400, {
        message: 'THREADS_API__LINK_LIMIT_EXCEEDED: a post can contain at most 5 links.',
        code: 100,
      });
    const replyControl = params.reply_control ?? 'everyone';
    if (!REPLY_CONTROLS.includes(replyControl))
      return graphError(reply, 400, {
        message: `reply_control must be one of ${REPLY_CONTROLS.join(', ')}.`,
        code: 100,
      });
    const altText = params.alt_text ?? null;
    if (altText !== null && altText.length > 1000)
      return graphError(reply, 400, { message: 'alt_text must be at most 1000 characters.', code: 100 });
    let replyTo: string | null = null;
    if (params.reply_to_id) {
      const parent = state.posts.get(params.reply_to_id);
      if (!parent || parent.deleted)
        return graphError(reply, 400, {
          message: `The post you are replying to (${params.reply_to_id}) does not exist or was deleted.`,
          type: 'GraphMethodException',
          code: 100,
          subcode: 33,
        });
      replyTo = parent.id;
    }
    const base: ThContainerData = { mediaType, carouselItem, text, children: [], replyTo, replyControl, altText };
    const t = timings();
    if (mediaType === 'TEXT') return { id: state.containers.create(user.id, base, t.otherMs).id };
    if (mediaType === 'CAROUSEL') {
      const ids = (params.children ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (ids.length < 2 || ids.length > 20)
        return graphError(reply, 400, { message: `A carousel needs 2 to 20 children; got ${ids.length}.`, code: 100 });
      for (const id of ids) {
        const child: SimContainer<ThContainerData> | undefined = state.containers.get(id);
        if (!child || child.owner !== user.id || !child.data.carouselItem)
          return graphError(reply, 400, { message: `Invalid carousel child ${id}.`, code: 100, subcode: 33 });
        const status = state.containers.status(child);
        if (status === 'IN_PROGRESS')
          return graphError(reply, 400, {
            message: 'Media Not Ready',
            code: 9007,
            subcode: 2207027,
            userMessage: `Child container ${id} is still being processed.`,
          });
        if (status !== 'FINISHED')
          return graphError(reply, 400, { message: `Child container ${id} is ${status}.`, code: 100 });
      }
      return { id: state.containers.create(user.id, { ...base, children: ids }, t.otherMs).id };
    }
    const isVideo = mediaType === 'VIDEO';
    const url = isVideo ? params.video_url : params.image_url;
    if (!url)
      return graphError(reply, 400, {
        message: `The parameter ${isVideo ? 'video_url' : 'image_url'} is required.`,
        code: 100,
      });
    const fault = kit.faults.take('upload_media', user.id);
    if (applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'threads' }) === 'sent') return reply;
    const extra = fault?.fault === 'slow_media' ? (fault.delayMs ?? 3000) : 0;
    if (!isVideo) {
      const got = await fetchMedia(url, kit.settings);
      if (!got.ok)
        return graphError(reply, 400, {
          message: 'The media could not be fetched from this URI.',
          code: 100,
          subcode: 2207052,
          userMessage: got.reason,
        });
      if (got.contentType !== 'image/jpeg' && got.contentType !== 'image/png')
        return graphError(reply, 400, {
          message: 'The image format is not supported (JPEG or PNG).',
          code: 100,
          subcode: 2207005,
        });
      if (got.size > MAX_IMAGE_BYTES)
        return graphError(reply, 400, { message: 'The image is larger than 8 MB.', code: 100, subcode: 2207004 });
      return {
        id: state.containers.create(
          user.id,
          base,
          t.imageMs + extra,
          fault?.fault === 'media_failed' ? 'UNKNOWN' : null,
        ).id,
      };
    }
    const container = createVideoContainer(kit, state.containers, user.id, base, url, {
      processingMs: t.videoMs + extra,
      maxBytes: MAX_VIDEO_BYTES,
      faulted: fault?.fault === 'media_failed',
      failures: {
        download: () => 'FAILED_DOWNLOADING_VIDEO',
        format: 'FAILED_PROCESSING_VIDEO',
        tooLarge: 'FAILED_PROCESSING_VIDEO',
        failed: 'FAILED_PROCESSING_VIDEO',
      },
    });
    return { id: container.id };
  });

  app.post('/:version/:userId/threads_publish', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const { user, params } = ctx;
    if (!ownAccount(reply, user, (request.params as { userId: string }).userId)) return reply;
    if (!scoped(reply, ctx.scopes, 'threads_content_publish')) return reply;
    const fault = kit.faults.take('create_post', user.id);
    const applied = applyGraphFault(kit, fault, request, reply, { businessId: user.id, type: 'threads' });
    if (applied === 'sent') return reply;
    if (!params.creation_id)
      return graphError(reply, 400, { message: 'The parameter creation_id is required.', code: 100 });
    const container = state.containers.get(params.creation_id);
    if (!container || container.owner !== user.id)
      return graphError(reply, 400, {
        message: `Object with ID '${params.creation_id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    if (container.data.carouselItem)
      return graphError(reply, 400, { message: 'A carousel item cannot be published on its own.', code: 100 });
    const status = state.containers.status(container);
    // ⚠ unverified: Threads' codes for publishing a container that is not ready, failed, expired or published.
    const refused = refuseUnpublishable(reply, status, container, {
      notReady: {
        message: 'Media Not Ready',
        code: 9007,
        subcode: 2207027,
        userMessage: 'The media is not ready for publishing, please wait for a moment.',
      },
      expired: 'The container has expired. Please create a new one.',
      published: 'This container has already been published.',
    });
    if (refused) return refused;
    const d = container.data;
    if (d.replyTo) {
      const parent = state.posts.get(d.replyTo);
      if (!parent || parent.deleted)
        return graphError(reply, 400, {
          message: 'The post you are replying to does not exist or was deleted.',
          type: 'GraphMethodException',
          code: 100,
          subcode: 33,
        });
    }
    const times = recentTimes(d.replyTo ? state.replies : state.publishes, user.id, kit.now(), DAY_MS);
    const limit = d.replyTo ? quota(kit, 'threadsReplyQuota', 1000) : quota(kit, 'threadsPublishQuota', 250);
    // ⚠ unverified: the error Threads gives past its publishing quota (Instagram's 9/2207042 here).
    if (times.length >= limit)
      return graphError(reply, 400, {
        message: 'Application request limit reached',
        code: 9,
        subcode: 2207042,
        userTitle: 'Reached maximum number of posts',
        userMessage: `At most ${limit} ${d.replyTo ? 'replies' : 'posts'} can be published in 24 hours.`,
      });
    const id = state.nextId();
    const parent = d.replyTo ? state.posts.get(d.replyTo) : undefined;
    const post: ThPost = {
      id,
      owner: user.id,
      containerId: container.id,
      text: d.text,
      mediaType: d.mediaType === 'TEXT' ? 'TEXT_POST' : d.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : d.mediaType,
      shortcode: shortcodeOf(id),
      items: d.mediaType === 'TEXT' ? 0 : d.mediaType === 'CAROUSEL' ? d.children.length : 1,
      replyTo: parent?.id ?? null,
      root: parent ? (parent.root ?? parent.id) : null,
      replyControl: d.replyControl,
      timestamp: kit.now(),
      deleted: false,
    };
    state.posts.set(id, post);
    state.containers.markPublished(container, id);
    times.push(kit.now());
    if (applied === 'drop') return kit.dropConnection(request, reply);
    if (fault?.fault === 'published_but_blocked')
      return graphError(reply, 400, {
        message: 'Application does not have permission for this action',
        code: 10,
        subcode: 2207051,
        userMessage: 'We restrict certain activity to protect our community.',
      });
    return { id };
  });

  app.get('/:version/:userId/threads_publishing_limit', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    if (!ownAccount(reply, ctx.user, (request.params as { userId: string }).userId)) return reply;
    const fields = fieldsOf(ctx.params, ['quota_usage']);
    const now = kit.now();
    const all: Record<string, unknown> = {
      quota_usage: recentTimes(state.publishes, ctx.user.id, now, DAY_MS).length,
      config: { quota_total: quota(kit, 'threadsPublishQuota', 250), quota_duration: 86400 },
      reply_quota_usage: recentTimes(state.replies, ctx.user.id, now, DAY_MS).length,
      reply_config: { quota_total: quota(kit, 'threadsReplyQuota', 1000), quota_duration: 86400 },
      delete_quota_usage: recentTimes(state.deletions, ctx.user.id, now, DAY_MS).length,
      delete_config: { quota_total: 100, quota_duration: 86400 },
    };
    const entry: Record<string, unknown> = {};
    for (const f of fields) if (all[f] !== undefined) entry[f] = all[f];
    return { data: [entry] };
  });

  const encodeCursor = (p: { timestamp: number; id: string }) =>
    Buffer.from(`${p.timestamp}:${p.id}`).toString('base64url');
  const decodeCursor = (text: string): { timestamp: number; id: string } | undefined => {
    const match = /^(\d{1,16}):(\d{1,30})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
    return match ? { timestamp: Number(match[1]), id: match[2]! } : undefined;
  };
  const newerFirst = (a: { timestamp: number; id: string }, b: { timestamp: number; id: string }) =>
    b.timestamp - a.timestamp || (BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0);
  const listing = (edge: 'threads' | 'replies') => async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const id = (request.params as { userId: string }).userId;
    const post = state.posts.get(id);
    if (edge === 'replies' && post && !post.deleted) {
      // A post's replies edge (GET /{threads-media-id}/replies): the direct replies to it, oldest first.
      if (!scoped(reply, ctx.scopes, 'threads_read_replies')) return reply;
      const direct = [...state.posts.values()]
        .filter((p) => p.replyTo === post.id && !p.deleted)
        .sort((a, b) => a.timestamp - b.timestamp);
      return { data: direct.map((p) => pick(postJson(p, state.users.get(p.owner)), fieldsOf(ctx.params, ['id']))) };
    }
    if (!ownAccount(reply, ctx.user, id)) return reply;
    if (edge === 'replies' && !scoped(reply, ctx.scopes, 'threads_read_replies')) return reply;
    const fields = fieldsOf(ctx.params, ['id']);
    const since = /^\d+$/.test(ctx.params.since ?? '') ? Number(ctx.params.since) * 1000 : 0;
    const limit = Math.min(100, Math.max(1, Number(ctx.params.limit) || 25));
    // Cursor paging as Graph does it (paging.cursors.after, paging.next while more remain). The cursor names the
    // last item handed out, so items published meanwhile never shift a later page.
    const cursor = ctx.params.after ? decodeCursor(ctx.params.after) : undefined;
    if (ctx.params.after && !cursor)
      return graphError(reply, 400, {
        message: 'Invalid parameter',
        code: 100,
        userMessage: 'The after cursor is not valid.',
      });
    const all = [...state.posts.values()]
      .filter(
        (p) =>
          p.owner === ctx.user.id &&
          !p.deleted &&
          (edge === 'replies') === (p.replyTo !== null) &&
          p.timestamp >= since,
      )
      .sort(newerFirst)
      .filter((p) => !cursor || newerFirst(cursor, p) < 0); // after the cursor in this order
    const list = all.slice(0, limit);
    const last = list.at(-1);
    const more = all.length > limit && last !== undefined;
    const after = last ? encodeCursor(last) : undefined;
    return {
      data: list.map((p) => pick(postJson(p, ctx.user), fields)),
      ...(after
        ? {
            paging: {
              cursors: { after },
              ...(more
                ? {
                    next: `${request.protocol}://${request.host}${request.url.split('?')[0]}?after=${after}&limit=${limit}`,
                  }
                : {}),
            },
          }
        : {}),
    };
  };
  app.get('/:version/:userId/threads', listing('threads'));
  app.get('/:version/:userId/replies', listing('replies'));

  const TH_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];
  app.get('/:version/:mediaId/insights', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    if (!scoped(reply, ctx.scopes, 'threads_manage_insights')) return reply;
    const post = state.posts.get((request.params as { mediaId: string }).mediaId);
    if (!post || post.deleted || post.owner !== ctx.user.id)
      return graphError(reply, 400, {
        message:
          'Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.',
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    const wanted = (ctx.params.metric ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const unknown = wanted.find((m) => !TH_METRICS.includes(m));
    if (wanted.length === 0 || unknown)
      return graphError(reply, 400, {
        message: `The parameter metric must list some of ${TH_METRICS.join(', ')}.`,
        code: 100,
      });
    const replies = [...state.posts.values()].filter((p) => p.replyTo === post.id && !p.deleted).length;
    return {
      data: wanted.map((m) => ({
        name: m,
        period: 'lifetime',
        values: [{ value: m === 'replies' ? replies : 0 }],
        title: m,
        id: `${post.id}/insights/${m}/lifetime`,
      })),
    };
  });

  app.get('/:version/:id', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    const id = (request.params as { id: string }).id;
    const container = state.containers.get(id);
    if (container && container.owner === ctx.user.id) {
      const status = state.containers.status(container);
      return pick(
        { id, status, error_message: status === 'ERROR' ? container.failure : undefined },
        fieldsOf(ctx.params, ['id']),
      );
    }
    const post = state.posts.get(id);
    if (post && !post.deleted) return pick(postJson(post, state.users.get(post.owner)), fieldsOf(ctx.params, ['id']));
    return graphError(reply, 400, {
      message: `Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      subcode: 33,
    });
  });

  app.delete('/:version/:id', async (request, reply) => {
    const ctx = begin(request, reply);
    if (!ctx) return reply;
    if (!scoped(reply, ctx.scopes, 'threads_delete')) return reply;
    const applied = applyGraphFault(kit, kit.faults.take('delete_post', ctx.user.id), request, reply, {
      businessId: ctx.user.id,
      type: 'threads',
    });
    if (applied === 'sent') return reply;
    const post = state.posts.get((request.params as { id: string }).id);
    if (!post || post.deleted || post.owner !== ctx.user.id)
      return graphError(reply, 400, {
        message:
          'Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.',
        type: 'GraphMethodException',
        code: 100,
        subcode: 33,
      });
    const deletions = recentTimes(state.deletions, ctx.user.id, kit.now(), DAY_MS);
    if (deletions.length >= 100)
      return graphError(reply, 400, {
        message: 'Application request limit reached',
        code: 9,
        subcode: 2207042,
        userMessage: 'At most 100 posts can be deleted in 24 hours.',
      });
    post.deleted = true;
    deletions.push(kit.now());
    if (applied === 'drop') return kit.dropConnection(request, reply);
    return { success: true, deleted_id: post.id };
  });

  app.get('/web/:handle/post/:shortcode', async (request, reply) => {
    const { shortcode } = request.params as { handle: string; shortcode: string };
    const post = [...state.posts.values()].find((p) => p.shortcode === shortcode && !p.deleted);
    if (!post)
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send("<!doctype html><title>Not found</title><p>Sorry, this post isn't available.</p>");
    const user = state.users.get(post.owner);
    const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><title>@${esc(user?.username ?? '')} on Threads (sandbox)</title><article><h1>@${esc(user?.username ?? '')}</h1>${post.replyTo ? `<p>Replying to ${esc(post.replyTo)}</p>` : ''}<p>${esc(post.text)}</p><p>${post.items} media item(s)</p></article>`,
      );
  });
}
