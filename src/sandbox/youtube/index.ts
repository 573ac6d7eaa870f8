// The YouTube simulator (docs/platforms/youtube.md): Google's OAuth 2.0 (refresh tokens that do not rotate), the
// channel of the signed-in user, resumable uploads (session, chunks in multiples of 256 KiB, status query, resume),
// videos.list (status, processing, statistics), videos.delete, the uploads playlist, the daily quota in units, and
// Google's error body. Its state is in `kit.store` (state.ts), so it survives restarts and is shared by every API
// node. What the documentation does not settle is marked "⚠ unverified" and listed in docs/platform-fidelity.md.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerYoutubeAuth } from './auth.ts';
import { injectYoutube, ownReplies, registerYoutubeComments } from './comments.ts';
import { registerYoutubeUploads } from './uploads.ts';
import { registerYoutubeVideos } from './videos.ts';
import { KIND, type YoutubeContext, type YoutubeVideo } from './state.ts';

/** The `reason` of an error without its own, by status (the Data API's error reference: docs/platforms/youtube.md "Errors"). */
const REASONS: Record<number, string> = {
  400: 'badRequest',
  401: 'authError',
  403: 'forbidden',
  404: 'notFound',
  409: 'conflict',
  429: 'rateLimitExceeded',
  500: 'backendError',
  503: 'backendError',
};

/** The error domain of reasons outside `global` (the Data API's error reference: docs/platforms/youtube.md "Errors"). */
const DOMAINS: Record<string, string> = {
  quotaExceeded: 'youtube.quota',
  uploadLimitExceeded: 'youtube.video',
  invalidTitle: 'youtube.video',
  invalidDescription: 'youtube.video',
  invalidTags: 'youtube.video',
  invalidCategoryId: 'youtube.video',
  invalidVideoMetadata: 'youtube.video',
  videoNotFound: 'youtube.video',
};

/**
 * Google's error body: `{ error: { code, message, errors: [{ message, domain, reason }] } }`. A message that starts
 * with `reason: ` names its own reason (`quotaExceeded: …`).
 */
export function googleError(reply: FastifyReply, status: number, message: string): FastifyReply {
  const own = /^([a-zA-Z]+): (.*)$/s.exec(message);
  const reason = own?.[1] ?? REASONS[status] ?? (status >= 500 ? 'backendError' : 'badRequest');
  const text = own?.[2] ?? message;
  return reply.code(status).send({
    error: { code: status, message: text, errors: [{ message: text, domain: DOMAINS[reason] ?? 'global', reason }] },
  });
}

export function youtubeSimulator(kit: SimulatorKit): PlatformSimulator {
  return {
    errorReply: googleError,
    routes(app) {
      const ctx: YoutubeContext = { kit, errorReply: googleError, prefix: app.prefix };
      registerYoutubeAuth(app, ctx);
      registerYoutubeUploads(app, ctx);
      registerYoutubeVideos(app, ctx);
      registerYoutubeComments(app, ctx);
    },
    inject: (input) => injectYoutube({ kit, errorReply: googleError, prefix: '' }, input),
    posts: async () => [
      ...(await kit.store.list<YoutubeVideo>(KIND.video, { ascending: true })).map((v) => ({
        id: v.id,
        account: v.channelId,
        text: v.metadata.description,
        replyTo: null,
        media: 1,
        createdAt: new Date(v.createdAt).toISOString(),
        deleted: v.deleted,
      })),
      // The channel's replies to comments (the inbox's answers), each replying to its top-level comment.
      ...(await ownReplies({ kit, errorReply: googleError, prefix: '' })).map((c) => ({
        id: c.id,
        account: c.channelId,
        text: c.text,
        replyTo: c.parentId,
        media: 0,
        createdAt: new Date(c.createdAt).toISOString(),
        deleted: c.deleted,
      })),
    ],
  };
}
