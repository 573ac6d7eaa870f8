// What a LinkedIn post's `content` may hold (docs/platforms/linkedin.md "Calls"): one media or a multiImage set of
// 2–20, each by the URN of an asset that exists, belongs to the post's author and is AVAILABLE; other kinds are
// refused. The assets are read from the store together.
import type { FastifyReply } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import { assetStatus } from './processing.ts';
import { inputError, KIND, type LiAsset } from './state.ts';

/** The content's media: each must exist, belong to the author and be AVAILABLE. `refused` once the 422 is sent. */
export async function checkContent(
  kit: SimulatorKit,
  reply: FastifyReply,
  author: string,
  content: unknown,
): Promise<{ count: number } | { refused: FastifyReply }> {
  const refuse = (r: FastifyReply) => ({ refused: r });
  if (content === undefined) return { count: 0 };
  const c = content as Record<string, unknown>;
  if (!c || typeof c !== 'object')
    return refuse(reply.code(422).send(inputError('/content', 'INVALID_VALUE', 'content must be an object')));
  const keys = Object.keys(c);
  if (keys.length !== 1)
    return refuse(
      reply
        .code(422)
        .send(inputError('/content', 'INVALID_VALUE', 'content holds exactly one of media, multiImage, article, poll')),
    );
  let items: Array<{ id: unknown; kinds: string[] }>;
  if (c.media !== undefined) {
    const m = c.media as Record<string, unknown>;
    items = [{ id: m?.id, kinds: ['image', 'video', 'document'] }];
    if (
      typeof m?.id === 'string' &&
      m.id.startsWith('urn:li:document:') &&
      (typeof m.title !== 'string' || m.title.trim() === '')
    ) {
      return refuse(
        reply.code(422).send(inputError('/content/media/title', 'FIELD_REQUIRED', 'A document post needs a title')),
      );
    }
  } else if (c.multiImage !== undefined) {
    const images = (c.multiImage as { images?: unknown })?.images;
    if (!Array.isArray(images) || images.length < 2 || images.length > 20)
      return refuse(
        reply
          .code(422)
          .send(inputError('/content/multiImage/images', 'INVALID_VALUE', 'A multi-image post has 2 to 20 images')),
      );
    items = images.map((i: { id?: unknown }) => ({ id: i?.id, kinds: ['image'] }));
  } else {
    return refuse(
      reply
        .code(422)
        .send(
          inputError(`/content/${keys[0]}`, 'INVALID_VALUE', `content.${keys[0]} is not supported by this simulator`),
        ),
    );
  }
  const assets = await Promise.all(
    items.map((item) => (typeof item.id === 'string' ? kit.store.get<LiAsset>(KIND.asset, item.id) : undefined)),
  );
  for (const [n, item] of items.entries()) {
    const asset = assets[n];
    if (!asset || !item.kinds.includes(asset.kind))
      return refuse(
        reply
          .code(422)
          .send(
            inputError(
              `/content/${n}/id`,
              'INVALID_URN_ID',
              `Media ${String(item.id)} does not exist or cannot be used here`,
            ),
          ),
      );
    if (asset.owner !== author)
      return refuse(
        reply
          .code(422)
          .send(
            inputError(
              `/content/${n}/id`,
              'INVALID_VALUE',
              `Media ${asset.urn} belongs to ${asset.owner}, not to the author ${author}`,
            ),
          ),
      );
    const status = assetStatus(kit, asset);
    if (status !== 'AVAILABLE')
      return refuse(
        reply
          .code(422)
          .send(
            inputError(`/content/${n}/id`, 'INVALID_MEDIA_STATE', `Media ${asset.urn} is ${status}, not AVAILABLE`),
          ),
      );
  }
  return { count: items.length };
}
