// The LinkedIn simulator: the versioned REST API as docs/platforms/linkedin.md describes it (OAuth 2.0 and OpenID
// userinfo, LinkedIn-Version gating, posts with little-text commentary, Images / Videos / Documents upload protocols
// with processing states, organization ACLs, `{status, serviceErrorCode, code, message}` errors, daily limits, a web
// page per post). Its state lives in the sandbox store (state.ts), so it survives a restart and every API node shares
// it. Settings: `linkedinVersionMonths` (how long a version stays active), the processing times and the video part
// size (src/sandbox/linkedin/media.ts).
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerLiAnalytics } from './analytics.ts';
import { registerLiAuth } from './auth.ts';
import { apiComments, injectLinkedin, registerLiComments } from './comments.ts';
import { createGate } from './gate.ts';
import { registerLiMedia } from './media.ts';
import { registerLiOrganizations } from './organizations.ts';
import { registerLiPosts } from './posts.ts';
import { KIND, liError, type LiPost } from './state.ts';

const DETAILS: Record<number, { code?: string; serviceErrorCode?: number; message?: string }> = {
  401: { code: 'EXPIRED_ACCESS_TOKEN', serviceErrorCode: 65601, message: 'The token used in the request has expired' },
  404: { message: 'Not Found' },
  429: { message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.' },
};

export function linkedinSimulator(kit: SimulatorKit): PlatformSimulator {
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    const d = DETAILS[status] ?? {};
    return reply
      .code(status)
      .send(liError(status, d.message ?? message, { code: d.code, serviceErrorCode: d.serviceErrorCode }));
  };
  return {
    errorReply,
    routes(app) {
      const gate = createGate(kit, { errorReply });
      const ctx = { kit, gate, prefix: app.prefix };
      registerLiAuth(app, kit);
      registerLiMedia(app, ctx);
      registerLiPosts(app, ctx);
      registerLiOrganizations(app, ctx);
      registerLiAnalytics(app, ctx);
      registerLiComments(app, ctx);
    },
    inject: (input) => injectLinkedin(kit, input),
    posts: async () => [
      ...(await kit.store.list<LiPost>(KIND.post, { ascending: true })).map((p) => ({
        id: p.urn,
        account: p.author,
        text: p.plain,
        replyTo: null,
        media: p.mediaCount,
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
      // Replies to comments (the inbox's answers among them), each replying to its comment.
      ...(await apiComments(kit)).map((c) => ({
        id: c.urn,
        account: c.actor,
        text: c.text,
        replyTo: c.parent,
        media: 0,
        createdAt: new Date(c.createdAt).toISOString(),
        deleted: c.deleted,
      })),
    ],
  };
}
