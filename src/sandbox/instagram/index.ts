// The Instagram simulator: Instagram API with Instagram Login as docs/platforms/instagram.md "Calls" describes it
// (OAuth with the long-lived exchange and refresh, containers whose media is fetched from its URL, status polling,
// media_publish under the rolling 24-hour quota, comments, the Graph error envelope, a page per post), its state in
// the simulator's store (state.ts). Container timings and the quota are settable per simulator (`containerImageMs`,
// `containerVideoMs`, `containerExpiryMs`, `instagramPublishQuota`).
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { graphStatusReply } from '../meta/graph.ts';
import { registerIgAuth } from './auth.ts';
import { registerIgComments } from './comments.ts';
import { registerIgContainers } from './containers.ts';
import { registerIgMedia } from './media.ts';
import { registerIgPublishing } from './publish.ts';
import { injectInstagram, registerIgReplies } from './replies.ts';
import { MEDIA, type IgMedia } from './state.ts';

export function instagramSimulator(kit: SimulatorKit): PlatformSimulator {
  return {
    errorReply: graphStatusReply,
    routes(app) {
      registerIgAuth(app, kit);
      const sim = { kit };
      registerIgContainers(app, sim);
      registerIgPublishing(app, sim);
      registerIgMedia(app, sim);
      registerIgComments(app, sim);
      registerIgReplies(app, sim);
    },
    inject: (input) => injectInstagram({ kit }, input),
    posts: async () =>
      (await kit.store.list<IgMedia>(MEDIA, { ascending: true })).map((m) => ({
        id: m.id,
        account: m.owner,
        text: m.caption,
        replyTo: null,
        media: m.items,
        createdAt: new Date(m.timestamp).toISOString(),
        deleted: m.deleted,
      })),
  };
}
