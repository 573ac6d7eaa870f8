// The Facebook Pages simulator: the Graph API as platforms.md §4 describes it (Facebook Login with Page access
// tokens, feed posts, unpublished photos + attached_media, resumable video upload with processing, the Page
// feed with cursor paging, Graph error envelopes and usage headers), in memory.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerFbAuth } from './auth.ts';
import { graphError } from './graph-reply.ts';
import { registerFbPages } from './pages.ts';
import { createFbState, type FbState } from './state.ts';
import { registerFbVideos } from './videos.ts';

/** Graph's answer for the statuses the framework and the shared faults produce. */
function errorReply(reply: FastifyReply, status: number, message: string): FastifyReply {
  if (status === 401) return graphError(reply, 400, { code: 190, message: `Error validating access token: ${message}` });
  if (status === 404) return graphError(reply, 400, { code: 2500, message: `Unknown path components: ${message}` });
  if (status === 429) return graphError(reply, 400, { code: 4, message: '(#4) Application request limit reached', transient: true });
  if (status >= 500) return graphError(reply, status, { code: status === 503 ? 2 : 1, message: status === 503 ? 'An unexpected error has occurred. Please retry your request later.' : 'An unknown error has occurred.', transient: true });
  return graphError(reply, status, { code: 100, message: `(#100) ${message}` });
}

export function facebookSimulator(kit: SimulatorKit): PlatformSimulator {
  let state = createFbState();
  return {
    errorReply,
    routes(app) {
      // Routes read `state` through this getter so that reset() swaps it for every route at once.
      const live = new Proxy({} as FbState, { get: (_t, key) => state[key as keyof FbState] });
      registerFbAuth(app, kit, live);
      registerFbPages(app, kit, live, errorReply, () => app.prefix);
      registerFbVideos(app, kit, live, errorReply);
    },
    posts: () => [...state.posts.values()].map((p) => ({ id: p.id, account: p.pageId, text: p.message, replyTo: null, media: p.photoIds.length + (p.videoId ? 1 : 0), createdAt: new Date(p.createdAt).toISOString(), deleted: p.deleted })),
    reset() {
      state = createFbState();
    },
  };
}
