// GET /v1/platforms: the capabilities document — every platform Herald knows, with its limits. No key needed.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Envelope, ListOf } from '../../http/envelope.ts';
import { PLATFORM_LIMITS, describeLimits } from '../../platforms/catalogue.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import type { PlatformRegistry } from '../../platforms/registry.ts';

const PlatformEntry = Type.Object({
  id: Type.String({ examples: ['x'] }),
  object: Type.Literal('platform'),
  name: Type.String({ examples: ['X'] }),
  limits: Type.Object({}, { additionalProperties: true, description: 'Text limits (in the platform\'s own counting unit), media rules and thread support.' }),
  capabilities: Type.Object({
    publish: Type.Boolean({ description: 'Herald can publish to this platform (it has an adapter); otherwise posts can only be validated and kept as drafts.' }),
    metrics: Type.Boolean(),
    comments: Type.Boolean(),
    reply: Type.Boolean(),
  }, { description: 'What this Herald can do on the platform.' }),
});

export function platformsDocument(registry?: PlatformRegistry) {
  const capabilities = (id: (typeof PLATFORM_NAMES)[number]) => {
    const adapter = registry?.get(id);
    return { publish: adapter !== undefined, metrics: adapter?.fetchMetrics !== undefined, comments: adapter?.listComments !== undefined, reply: adapter?.reply !== undefined };
  };
  return {
    items: PLATFORM_NAMES.map((id) => ({ id, object: 'platform', name: PLATFORM_LIMITS[id].displayName, limits: describeLimits(PLATFORM_LIMITS[id]), capabilities: capabilities(id) })),
    next_cursor: null,
    has_more: false,
  };
}

export function registerPlatformsRoutes(app: FastifyInstance, registry: PlatformRegistry): void {
  const document = platformsDocument(registry);
  app.get('/platforms', {
    config: { access: { scopes: 'public', workspace: false, mutates: false } },
    schema: {
      operationId: 'listPlatforms', tags: ['Platforms'], summary: 'List platforms and their limits',
      description: 'The capabilities document: each platform with the text, media and thread limits Herald checks posts against. No key needed.',
      security: [],
      response: { 200: Envelope(ListOf(PlatformEntry)) },
    },
  }, async () => document);
}
