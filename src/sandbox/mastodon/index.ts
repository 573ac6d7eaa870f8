// The Mastodon simulator: one instance's REST API as docs/platforms/mastodon.md describes it (apps and OAuth, instance
// configuration, v2 media with asynchronous processing, statuses with Idempotency-Key, `{error}` bodies and
// X-RateLimit headers). Limits are settable per simulator (`settings.maxCharacters`, …). Its state is in the sandbox
// store (kit.store): statuses, media, apps and Idempotency-Keys survive a restart and are shared by every API node.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { registerMastoAuth } from './auth.ts';
import { injectMastodon, registerMastoNotifications } from './notifications.ts';
import { KIND, type MastoStatus } from './state.ts';
import { registerMastoStatuses } from './statuses.ts';

const MESSAGES: Record<number, string> = {
  401: 'The access token is invalid',
  429: 'Too many requests',
  503: 'Service Unavailable',
};

export function mastodonSimulator(kit: SimulatorKit): PlatformSimulator {
  const errorReply = (reply: FastifyReply, status: number, message: string) =>
    reply.code(status).send({ error: MESSAGES[status] ?? message });
  return {
    errorReply,
    routes(app) {
      const ctx = { kit, errorReply, prefix: app.prefix };
      registerMastoAuth(app, ctx);
      registerMastoStatuses(app, ctx);
      registerMastoNotifications(app, ctx);
    },
    inject: (input) => injectMastodon({ kit, errorReply, prefix: '' }, input),
    posts: async () =>
      (await kit.store.list<MastoStatus>(KIND.status, { ascending: true })).map((s) => ({
        id: s.id,
        account: s.accountId,
        text: s.text,
        replyTo: s.inReplyToId,
        media: s.mediaIds.length,
        createdAt: new Date(s.createdAt).toISOString(),
        deleted: s.deleted,
      })),
  };
}
