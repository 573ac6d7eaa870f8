// The web side of the Pinterest simulator: a Pin's page (sandbox URLs point at `/pin/{id}/`, as Pinterest's do at
// https://www.pinterest.com/pin/{id}/), saying so when trial access made it visible only to the pinner, and the kept
// bytes of its images and video (`/cdn/{key}`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendMissingPost, sendPostPage } from '../framework/post-page.ts';
import { registerMediaFiles } from '../meta/media-files.ts';
import { hostOf } from './gate.ts';
import { KIND, type PinterestAccount, type PinterestContext, type PinterestPin } from './state.ts';

/** Pinterest red, for the post page. */
const ACCENT = '#E60023';

export function registerPinterestPages(app: FastifyInstance, ctx: PinterestContext): void {
  app.get<{ Params: { id: string } }>('/pin/:id/', (request, reply) => pinPage(ctx, request, reply));
  registerMediaFiles(app, ctx.kit.store, (reply) => ctx.errorReply(reply, 404, 'No such media.'));
}

async function pinPage(
  ctx: PinterestContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const pin = await store.get<PinterestPin>(KIND.pin, request.params.id);
  if (!pin || pin.deleted) return sendMissingPost(reply, 'Pinterest');
  const account = await store.get<PinterestAccount>(KIND.account, pin.accountId);
  const host = hostOf(ctx, request);
  const heading = [pin.title, pin.pinnerOnly ? '(trial access: visible only to the pinner)' : null]
    .filter(Boolean)
    .join(' ');
  return sendPostPage(reply, {
    platform: 'Pinterest',
    accent: ACCENT,
    noun: 'Pin',
    account: { name: account?.name ?? pin.accountId, handle: `@${account?.username ?? pin.accountId}` },
    parts: [
      {
        text: [heading, pin.description ?? '', pin.link ?? ''].filter((t) => t !== '').join('\n\n'),
        media: pin.media
          .filter((m) => m.key !== null)
          .map((m) => ({ url: `${host}/cdn/${m.key}`, kind: m.kind, alt: pin.altText })),
        createdAt: pin.createdAt,
        url: `${host}/pin/${pin.id}/`,
      },
    ],
  });
}
