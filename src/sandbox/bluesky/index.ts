// The Bluesky simulator: a PDS's XRPC surface as docs/platforms/bluesky.md describes it (sessions, blobs, records with
// client-chosen keys, lexicon checks, IETF rate-limit headers, `{error, message}` bodies), in memory.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerBskyAuth } from './auth.ts';
import { registerBskyRepo } from './repo.ts';
import { createBskyState, xrpcError, type BskyState } from './state.ts';

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
  let state = createBskyState();
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    // An expired access token is a 400 ExpiredToken on a PDS, not a 401.
    if (status === 401 && /expired/i.test(message))
      return reply.code(400).send(xrpcError('ExpiredToken', 'Token has expired'));
    return reply.code(status).send(xrpcError(NAMES[status] ?? 'InternalServerError', message));
  };
  return {
    errorReply,
    routes(app) {
      const live = new Proxy({} as BskyState, { get: (_t, key) => state[key as keyof BskyState] });
      const ctx = { kit, state: live, errorReply };
      registerBskyAuth(app, ctx);
      registerBskyRepo(app, ctx);
    },
    posts: () =>
      [...state.records.values()]
        .filter((r) => r.collection === 'app.bsky.feed.post')
        .map((r) => {
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
    reset() {
      state = createBskyState();
    },
  };
}
