// The LinkedIn simulator: the versioned REST API as docs/platforms/linkedin.md describes it (OAuth 2.0 and OpenID
// userinfo, LinkedIn-Version gating, posts with little-text commentary, Images / Videos / Documents upload protocols
// with processing states, organization ACLs, `{status, serviceErrorCode, code, message}` errors, daily limits), in
// memory. Settings: `linkedinVersionMonths` (how long a version stays active), the processing times and the video part
// size (src/sandbox/linkedin/media.ts).
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerLiAuth } from './auth.ts';
import { createGate } from './gate.ts';
import { registerLiMedia } from './media.ts';
import { registerLiOrganizations } from './organizations.ts';
import { registerLiPosts } from './posts.ts';
import { createLiState, liError, type LiState } from './state.ts';

const DETAILS: Record<number, { code?: string; serviceErrorCode?: number; message?: string }> = {
  401: { code: 'EXPIRED_ACCESS_TOKEN', serviceErrorCode: 65601, message: 'The token used in the request has expired' },
  404: { message: 'Not Found' },
  429: { message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.' },
};

export function linkedinSimulator(kit: SimulatorKit): PlatformSimulator {
  let state = createLiState();
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    const d = DETAILS[status] ?? {};
    return reply
      .code(status)
      .send(liError(status, d.message ?? message, { code: d.code, serviceErrorCode: d.serviceErrorCode }));
  };
  return {
    errorReply,
    routes(app) {
      // Routes read and write `state` through this proxy so that reset() swaps it for every route at once.
      const live = new Proxy({} as LiState, {
        get: (_t, key) => state[key as keyof LiState],
        set: (_t, key, value) => Reflect.set(state, key, value),
      });
      const gate = createGate(kit, live, { errorReply });
      const ctx = { kit, state: live, gate, prefix: app.prefix };
      registerLiAuth(app, kit, live);
      registerLiMedia(app, ctx);
      registerLiPosts(app, ctx);
      registerLiOrganizations(app, ctx);
    },
    posts: () =>
      [...state.posts.values()].map((p) => ({
        id: p.urn,
        account: p.author,
        text: p.plain,
        replyTo: null,
        media: p.mediaCount,
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
    reset() {
      state = createLiState();
    },
  };
}
