// The Threads simulator: the Threads API as docs/platforms/threads.md "Calls" describes it (OAuth with the long-lived
// exchange and refresh, containers for text, images, videos and carousels, reply chains, status polling,
// threads_publish under the 250-post and 1,000-reply rolling quotas, delete, the Graph error envelope, a page per
// post with its thread), its state in the simulator's store (state.ts). Container timings and quotas are settable
// (`containerImageMs`, `containerVideoMs`, `containerExpiryMs`, `threadsPublishQuota`, `threadsReplyQuota`).
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { graphStatusReply } from '../meta/graph.ts';
import { registerThreadsAuth } from './auth.ts';
import { registerThreadsContainers } from './containers.ts';
import { injectThreads, registerThreadsConversation } from './conversation.ts';
import { registerThreadsPosts } from './posts.ts';
import { registerThreadsPublishing } from './publish.ts';
import { POST, type ThPost } from './state.ts';

export function threadsSimulator(kit: SimulatorKit): PlatformSimulator {
  return {
    errorReply: graphStatusReply,
    routes(app) {
      registerThreadsAuth(app, kit);
      const sim = { kit };
      registerThreadsContainers(app, sim);
      registerThreadsPublishing(app, sim);
      registerThreadsConversation(app, sim);
      registerThreadsPosts(app, sim);
    },
    inject: (input) => injectThreads({ kit }, input),
    posts: async () =>
      (await kit.store.list<ThPost>(POST, { ascending: true })).map((p) => ({
        id: p.id,
        account: p.owner,
        text: p.text,
        replyTo: p.replyTo,
        media: p.items,
        createdAt: new Date(p.timestamp).toISOString(),
        deleted: p.deleted,
      })),
  };
}
