// The Threads simulator: the Threads API as docs/platforms/threads.md "Calls" describes it (OAuth with the long-lived
// exchange and refresh, containers for text, images, videos and carousels, reply chains, status polling,
// threads_publish under the 250-post and 1,000-reply rolling quotas, delete, the Graph error envelope), in memory.
// Container timings and quotas are settable (`containerImageMs`, `containerVideoMs`, `containerExpiryMs`,
// `threadsPublishQuota`, `threadsReplyQuota`).
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { containerTimings, graphStatusReply } from '../meta/graph.ts';
import { registerThreadsAuth } from './auth.ts';
import { registerThreadsContainers } from './containers.ts';
import { registerThreadsPosts } from './posts.ts';
import { registerThreadsPublishing } from './publish.ts';
import { createThState, type ThState } from './state.ts';

export function threadsSimulator(kit: SimulatorKit): PlatformSimulator {
  const fresh = () => createThState(kit.now, containerTimings(kit.settings).expiryMs);
  let state = fresh();
  return {
    errorReply: graphStatusReply,
    routes(app) {
      const live = new Proxy({} as ThState, { get: (_t, key) => state[key as keyof ThState] });
      registerThreadsAuth(app, kit, live);
      const sim = { kit, state: live };
      registerThreadsContainers(app, sim);
      registerThreadsPublishing(app, sim);
      registerThreadsPosts(app, sim);
    },
    posts: () =>
      [...state.posts.values()].map((p) => ({
        id: p.id,
        account: p.owner,
        text: p.text,
        replyTo: p.replyTo,
        media: p.items,
        createdAt: new Date(p.timestamp).toISOString(),
        deleted: p.deleted,
      })),
    reset() {
      state = fresh();
    },
  };
}
