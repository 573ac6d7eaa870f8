// The Instagram simulator: Instagram API with Instagram Login as docs/platforms/instagram.md "Calls" describes it
// (OAuth with the long-lived exchange and refresh, containers whose media is fetched from its URL, status polling,
// media_publish under the rolling 24-hour quota, comments, the Graph error envelope), in memory. Container timings and
// the quota are settable per simulator (`containerImageMs`, `containerVideoMs`, `containerExpiryMs`,
// `instagramPublishQuota`).
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { containerTimings, graphStatusReply } from '../meta/graph.ts';
import { registerIgAuth } from './auth.ts';
import { registerIgComments } from './comments.ts';
import { registerIgContainers } from './containers.ts';
import { registerIgMedia } from './media.ts';
import { registerIgPublishing } from './publish.ts';
import { createIgState, type IgState } from './state.ts';

export function instagramSimulator(kit: SimulatorKit): PlatformSimulator {
  const fresh = () => createIgState(kit.now, containerTimings(kit.settings).expiryMs);
  let state = fresh();
  return {
    errorReply: graphStatusReply,
    routes(app) {
      // Routes read `state` through this getter so that reset() swaps it for every route at once.
      const live = new Proxy({} as IgState, { get: (_t, key) => state[key as keyof IgState] });
      registerIgAuth(app, kit, live);
      const sim = { kit, state: live };
      registerIgContainers(app, sim);
      registerIgPublishing(app, sim);
      registerIgMedia(app, sim);
      registerIgComments(app, sim);
    },
    posts: () =>
      [...state.media.values()].map((m) => ({
        id: m.id,
        account: m.owner,
        text: m.caption,
        replyTo: null,
        media: m.items,
        createdAt: new Date(m.timestamp).toISOString(),
        deleted: m.deleted,
      })),
    reset() {
      state = fresh();
    },
  };
}
