// The X simulator: X API v2 as docs/platforms/x.md describes it (OAuth 2.0 PKCE, posts, media, rate limits,
// problem-JSON errors), in memory.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerXAuth } from './auth.ts';
import { registerXMedia } from './media.ts';
import { createXState, problem } from './state.ts';
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
  let state = createXState();
  const errorReply = (reply: FastifyReply, status: number, message: string) =>
    reply.code(status).send(problem(status, TITLES[status] ?? 'Error', message));
  return {
    errorReply,
    routes(app) {
      // Routes read `state` through this getter so that reset() swaps it for every route at once.
      const live = new Proxy({} as ReturnType<typeof createXState>, {
        get: (_t, key) => state[key as keyof typeof state],
      });
      const ctx = { kit, state: live, errorReply, prefix: app.prefix };
      registerXAuth(app, ctx);
      registerXTweets(app, ctx);
      registerXMedia(app, ctx);
    },
    posts: () =>
      [...state.tweets.values()].map((t) => ({
        id: t.id,
        account: t.authorId,
        text: t.submitted,
        replyTo: t.replyTo,
        media: t.mediaIds.length,
        createdAt: new Date(t.createdAt).toISOString(),
        deleted: t.deleted,
      })),
    reset() {
      state = createXState();
    },
  };
}
