// The Facebook Pages simulator: the Graph API as docs/platforms/facebook.md "Calls" describes it (Facebook Login with
// Page access tokens, feed posts, unpublished photos + attached_media, resumable video upload with processing, the Page
// feed with cursor paging, Graph error envelopes and usage headers), in memory.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { graphStatusReply } from '../meta/graph.ts';
import { registerFbAuth } from './auth.ts';
import { registerFbObjects } from './objects.ts';
import { registerFbPages } from './pages.ts';
import { createFbState, type FbSim, type FbState } from './state.ts';
import { registerFbVideos } from './videos.ts';

const errorReply = graphStatusReply;

export function facebookSimulator(kit: SimulatorKit): PlatformSimulator {
  let state = createFbState();
  return {
    errorReply,
    routes(app) {
      // Routes read `state` through this getter so that reset() swaps it for every route at once.
      const live = new Proxy({} as FbState, { get: (_t, key) => state[key as keyof FbState] });
      const sim: FbSim = { kit, state: live, errorReply, prefix: () => app.prefix };
      registerFbAuth(app, sim);
      registerFbPages(app, sim);
      registerFbObjects(app, sim);
      registerFbVideos(app, sim);
    },
    posts: () =>
      [...state.posts.values()].map((p) => ({
        id: p.id,
        account: p.pageId,
        text: p.message,
        replyTo: null,
        media: p.photoIds.length + (p.videoId ? 1 : 0),
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
    reset() {
      state = createFbState();
    },
  };
}
