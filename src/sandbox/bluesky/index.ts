// The Bluesky simulator: a PDS's XRPC surface as docs/platforms/bluesky.md describes it (sessions, blobs, records with
// client-chosen keys, lexicon checks, IETF rate-limit headers, `{error, message}` bodies, public blobs, a web page per
// post). Its repos live in the sandbox store (state.ts), so they survive a restart and every API node shares them.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerBskyAuth } from './auth.ts';
import { registerBskyFeed } from './feed.ts';
import { injectBluesky, registerBskyNotifications } from './notifications.ts';
import { registerBskyRepo } from './repo.ts';
import { KIND, xrpcError, type BskyRecord } from './state.ts';

const NAMES: Record<number, string> = {
  400: 'InvalidRequest',
  401: 'AuthMissing',
  404: 'MethodNotImplemented',
  429: 'RateLimitExceeded',
  500: 'InternalServerError',
  502: 'UpstreamFailure',
  503: 'NotEnoughResources',
};

export function blueskySimulator(kit: SimulatorKit): PlatformSimulator {
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    // An expired access token is a 400 ExpiredToken on a PDS, not a 401.
    if (status === 401 && /expired/i.test(message))
      return reply.code(400).send(xrpcError('ExpiredToken', 'Token has expired'));
    return reply.code(status).send(xrpcError(NAMES[status] ?? 'InternalServerError', message));
  };
  return {
    errorReply,
    routes(app) {
      const ctx = { kit, errorReply, prefix: app.prefix };
      registerBskyAuth(app, ctx);
      registerBskyRepo(app, ctx);
      registerBskyFeed(app, ctx);
      registerBskyNotifications(app, ctx);
    },
    inject: (input) => injectBluesky({ kit, errorReply, prefix: '' }, input),
    posts: async () =>
      (
        await kit.store.list<BskyRecord>(KIND.record, { match: { collection: 'app.bsky.feed.post' }, ascending: true })
      ).map((r) => {
        const embed = r.value.embed as { images?: unknown[]; video?: unknown } | undefined;
        const reply = r.value.reply as { parent?: { uri?: string } } | undefined;
        return {
          id: r.uri,
          account: r.did,
          text: String(r.value.text),
          replyTo: reply?.parent?.uri ?? null,
          media: embed?.images?.length ?? (embed?.video ? 1 : 0),
          createdAt: new Date(r.createdAt).toISOString(),
          deleted: false,
        };
      }),
  };
}
