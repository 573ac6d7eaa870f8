// The Pinterest simulator (API v5, docs/platforms/pinterest.md): OAuth with continuous refresh tokens, the user
// account and its boards, video uploads registered with `POST /v5/media` and posted as an S3-style form, image Pins
// whose images it fetches from their URL, carousels of 2–5 images, video Pins, the board's Pin list (Herald's
// look-up), delete, Pin analytics, and the web page of a Pin. Trial access is a switch
// (`settings.pinterestTrialAccess`): calls then count against 1,000 a day and Pins can only be created through the
// API Sandbox (served under `/api-sandbox`), where they are visible only to their pinner.
// What the documentation leaves open is marked "⚠ unverified" and listed in docs/platform-fidelity.md.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerPinterestAuth } from './auth.ts';
import { registerPinterestMedia } from './media.ts';
import { registerPinterestPages } from './pages.ts';
import { registerPinterestPins } from './pins.ts';
import { KIND, type PinterestContext, type PinterestPin } from './state.ts';

/**
 * Pinterest's error body `{ code, message }` (the OpenAPI's `Error`). A message starting `<n>: ` names its own code
 * (2 authentication failed, 29 not permitted, both in the OpenAPI's examples); otherwise the code is the status, as
 * the OpenAPI's Pin examples show (`{"code": 404, "message": "Pin not found."}`). ⚠ unverified beyond those.
 */
export function pinterestErrorReply(reply: FastifyReply, status: number, message: string): FastifyReply {
  const own = /^(\d+): (.*)$/s.exec(message);
  return reply.code(status).send({ code: own ? Number(own[1]) : status, message: own?.[2] ?? message });
}

function registerApi(app: FastifyInstance, ctx: PinterestContext): void {
  registerPinterestAuth(app, ctx);
  registerPinterestMedia(app, ctx);
  registerPinterestPins(app, ctx);
}

export function pinterestSimulator(kit: SimulatorKit): PlatformSimulator {
  return {
    errorReply: pinterestErrorReply,
    routes(app) {
      const ctx: PinterestContext = { kit, errorReply: pinterestErrorReply, prefix: app.prefix, apiSandbox: false };
      registerApi(app, ctx);
      registerPinterestPages(app, ctx);
      // Pinterest's API Sandbox host, on the same state (its Pins are the account's, visible only to it).
      void app.register(async (sandboxApi) => registerApi(sandboxApi, { ...ctx, apiSandbox: true }), {
        prefix: '/api-sandbox',
      });
    },
    posts: async () =>
      (await kit.store.list<PinterestPin>(KIND.pin, { ascending: true })).map((p) => ({
        id: p.id,
        account: p.accountId,
        text: p.description ?? '',
        replyTo: null,
        media: p.media.length,
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
  };
}
