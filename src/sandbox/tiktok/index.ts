// The TikTok simulator: TikTok's v2 OAuth (authorization code, 2 h access tokens, rotating refresh tokens), the
// user info, the Content Posting API's Direct Post (creator info, video init with chunked FILE_UPLOAD or
// PULL_FROM_URL, photo posts pulled from URLs, status polling through processing and moderation), the Display API's
// video list and query (with metrics), and the public page of a post. It rejects what TikTok rejects (chunk rules,
// privacy levels outside the creator's options, the unaudited-client rules, the daily cap). Its state is in
// `kit.store` (state.ts), so it survives restarts and is shared by every API node. What TikTok's pages do not settle
// is marked "⚠ unverified" (docs/platforms/tiktok.md "Unverified", docs/platform-fidelity.md).
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerTiktokAuth } from './auth.ts';
import { logId } from './envelope.ts';
import { registerTiktokPublish } from './publish.ts';
import { registerTiktokUpload } from './upload.ts';
import { registerTiktokVideos } from './videos.ts';
import { KIND, statusOf, type TiktokContext, type TiktokPublish } from './state.ts';

/** TikTok's `error.code` by HTTP status, for answers that name none (docs/platforms/tiktok.md "Errors"). */
const CODES: Record<number, string> = {
  400: 'invalid_params',
  401: 'access_token_invalid',
  403: 'access_denied', // ⚠ unverified: a 403 without a more specific code
  404: 'invalid_params',
  413: 'invalid_file_upload',
  416: 'invalid_file_upload',
  429: 'rate_limit_exceeded',
};

export function tiktokSimulator(kit: SimulatorKit): PlatformSimulator {
  // Every answer is `{ data, error: { code, message, log_id } }`; a message that starts with `code: ` names its code.
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    const own = /^([a-z_]+): (.*)$/s.exec(message);
    return reply.code(status).send({
      data: {},
      error: {
        code: own?.[1] ?? CODES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_params'),
        message: own?.[2] ?? message,
        log_id: logId(kit.now()),
      },
    });
  };
  return {
    errorReply,
    routes(app) {
      const ctx: TiktokContext = { kit, errorReply, prefix: app.prefix };
      registerTiktokAuth(app, ctx);
      registerTiktokPublish(app, ctx);
      registerTiktokUpload(app, ctx);
      registerTiktokVideos(app, ctx);
    },
    // What the platform holds: every Direct Post whose media all arrived and that did not fail (processing included,
    // since the post is on its way to the profile), with its caption.
    posts: async () =>
      (await kit.store.list<TiktokPublish>(KIND.publish, { ascending: true }))
        .filter((p) => p.receivedAt !== null && !p.inbox && statusOf(p, kit.now()) !== 'FAILED')
        .map((p) => ({
          id: p.postId,
          account: p.accountId,
          text: p.mediaType === 'PHOTO' ? p.description : p.title,
          replyTo: null,
          media: p.media.length,
          createdAt: new Date(p.receivedAt!).toISOString(),
          deleted: false,
        })),
  };
}
