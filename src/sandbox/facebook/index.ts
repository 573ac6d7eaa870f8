// The Facebook Pages simulator: the Graph API as docs/platforms/facebook.md "Calls" describes it (Facebook Login with
// Page access tokens, feed posts, unpublished photos + attached_media, resumable video upload with processing, the Page
// feed with cursor paging, Graph error envelopes and usage headers, a web page per post), its state in `kit.store`
// (state.ts), so posts, media and spent codes survive a restart and every API node serves the same Pages.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { graphStatusReply } from '../meta/graph.ts';
import { registerFbAuth } from './auth.ts';
import { injectFacebook, registerFbComments } from './comments.ts';
import { registerFbInsights } from './insights.ts';
import { registerFbObjects } from './objects.ts';
import { registerFbPages } from './pages.ts';
import { KIND, type FbPost, type FbSim } from './state.ts';
import { registerFbVideos } from './videos.ts';

const errorReply = graphStatusReply;

export function facebookSimulator(kit: SimulatorKit): PlatformSimulator {
  return {
    errorReply,
    routes(app) {
      const sim: FbSim = { kit, errorReply, prefix: () => app.prefix };
      registerFbAuth(app, sim);
      registerFbPages(app, sim);
      registerFbObjects(app, sim);
      registerFbInsights(app, sim);
      registerFbComments(app, sim);
      registerFbVideos(app, sim);
    },
    inject: (input) => injectFacebook({ kit, errorReply, prefix: () => '' }, input),
    posts: async () =>
      (await kit.store.list<FbPost>(KIND.post, { ascending: true })).map((p) => ({
        id: p.id,
        account: p.pageId,
        text: p.message,
        replyTo: null,
        media: p.photoIds.length + (p.videoId ? 1 : 0),
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
  };
}
