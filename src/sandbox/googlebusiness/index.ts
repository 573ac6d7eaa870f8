// The Google Business Profile simulator (docs/platforms/googlebusiness.md): Google's OAuth (auth.ts), the accounts and
// locations a user manages (accounts.ts), and local posts with their review (posts.ts). Its state is in `kit.store`
// (state.ts), so it survives restarts and is shared by every API node. What the documentation does not settle is
// marked "⚠ unverified" and listed in docs/platform-fidelity.md.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerGbpAccounts } from './accounts.ts';
import { registerGbpAuth } from './auth.ts';
import { registerGbpPosts } from './posts.ts';
import { injectGbp, ownerReplies, registerGbpReviews } from './reviews.ts';
import { KIND, type GbpContext, type GbpLocalPost } from './state.ts';

/** google.rpc status names by HTTP status, as Google's JSON error body carries them. */
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export function googlebusinessSimulator(kit: SimulatorKit): PlatformSimulator {
  /**
   * Google's error body `{ error: { code, message, status, details } }`. A message that starts with `media_invalid: `
   * carries a validation detail naming the media field (⚠ unverified: the shape of My Business v4's
   * ValidationError detail).
   */
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    const media = /^media_invalid: (.*)$/.exec(message);
    return reply.code(status).send({
      error: {
        code: status,
        message: media?.[1] ?? message,
        status: STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
        ...(media
          ? {
              details: [
                {
                  '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
                  errorDetails: [{ code: 3, field: 'media.source_url', message: media[1] }],
                },
              ],
            }
          : {}),
      },
    });
  };
  return {
    errorReply,
    routes(app) {
      const ctx: GbpContext = { kit, errorReply, prefix: app.prefix };
      registerGbpAuth(app, ctx);
      registerGbpAccounts(app, ctx);
      registerGbpPosts(app, ctx);
      registerGbpReviews(app, ctx);
    },
    inject: (input) => injectGbp({ kit, errorReply, prefix: '' }, input),
    posts: async () => [
      ...(await kit.store.list<GbpLocalPost>(KIND.post, { ascending: true })).map((p) => ({
        id: p.name,
        account: p.parent,
        text: p.summary,
        replyTo: null,
        media: p.media.length,
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
      // The owner's replies to reviews (the inbox's answers): `<review>/reply`, replying to the review.
      ...(await ownerReplies({ kit, errorReply, prefix: '' })).map((r) => ({
        id: `${r.name}/reply`,
        account: r.parent,
        text: r.reply!.comment,
        replyTo: r.name,
        media: 0,
        createdAt: new Date(r.reply!.updatedAt).toISOString(),
        deleted: false,
      })),
    ],
  };
}
