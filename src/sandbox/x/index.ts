// The X simulator: X API v2 as docs/platforms/x.md describes it (OAuth 2.0 PKCE, posts, media, rate limits,
// problem-JSON errors). Its state is in the sandbox store (kit.store): posts, media and spent or revoked tokens
// survive a restart and are shared by every API node; nothing but the kit's fault board and rate windows is in memory.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerXAuth } from './auth.ts';
import { registerXMedia } from './media.ts';
import { injectX, registerXMentions } from './mentions.ts';
import { KIND, problem, type XTweet } from './state.ts';
import { registerXTweets } from './tweets.ts';

const TITLES: Record<number, string> = {
  400: 'Invalid Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found Error',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function xSimulator(kit: SimulatorKit): PlatformSimulator {
  const errorReply = (reply: FastifyReply, status: number, message: string) =>
    reply.code(status).send(problem(status, TITLES[status] ?? 'Error', message));
  return {
    errorReply,
    routes(app) {
      const ctx = { kit, errorReply, prefix: app.prefix };
      registerXAuth(app, ctx);
      registerXTweets(app, ctx);
      registerXMedia(app, ctx);
      registerXMentions(app, ctx);
    },
    inject: (input) => injectX({ kit, errorReply, prefix: '' }, input),
    posts: async () =>
      (await kit.store.list<XTweet>(KIND.tweet, { ascending: true })).map((t) => ({
        id: t.id,
        account: t.authorId,
        text: t.submitted,
        replyTo: t.replyTo,
        media: t.mediaIds.length,
        createdAt: new Date(t.createdAt).toISOString(),
        deleted: t.deleted,
      })),
  };
}
