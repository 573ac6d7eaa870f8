// GET /v1/platforms: the capabilities document — every platform Herald knows, with its limits. No key needed.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Envelope, ListOf } from '../../http/envelope.ts';
import { PLATFORM_LIMITS, describeLimits } from '../../platforms/catalogue.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';

const PlatformEntry = Type.Object({
  id: Type.String({ examples: ['x'] }),
  object: Type.Literal('platform'),
  name: Type.String({ examples: ['X'] }),
  limits: Type.Object({}, { additionalProperties: true, description: 'Text limits (in the platform\'s own counting unit), media rules and thread support.' }),
});

export function platformsDocument() {
  return {
    items: PLATFORM_NAMES.map((id) => ({ id, object: 'platform', name: PLATFORM_LIMITS[id].displayName, limits: describeLimits(PLATFORM_LIMITS[id]) })),
    next_cursor: null,
    has_more: false,
  };
}

export function registerPlatformsRoutes(app: FastifyInstance): void {
  const document = platformsDocument();
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
