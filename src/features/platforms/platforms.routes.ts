// GET /v1/platforms: the capabilities document — every platform Herald knows, with its limits. No key needed.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Envelope, ListOf, named, StringEnum } from '../../app/envelope.ts';
import { PLATFORM_LIMITS, describeLimits } from '../../platforms/catalogue.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import type { PlatformRegistry } from '../../platforms/registry.ts';
import type { PlatformName } from '../../platforms/limits.ts';

export const CONNECT_METHODS = ['oauth', 'app_password'] as const;

/** How accounts of a platform can be connected, per workspace mode (from the connect service). */
export type ConnectAvailability = (platform: PlatformName) => {
  method: 'oauth' | 'app_password' | null;
  live: { available: boolean; reason: string | null };
  test: { available: boolean; reason: string | null };
};

const Availability = Type.Object({
  available: Type.Boolean(),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: "Why not, e.g. the platform's app credentials are not configured.",
  }),
});

const PlatformEntry = Type.Object({
  id: Type.String({ examples: ['x'] }),
  object: Type.Literal('platform'),
  name: Type.String({ examples: ['X'] }),
  limits: Type.Object(
    {},
    {
      additionalProperties: true,
      description: "Text limits (in the platform's own counting unit), media rules and thread support.",
    },
  ),
  capabilities: Type.Object(
    {
      publish: Type.Boolean({
        description:
          'Herald can publish to this platform (it has an adapter); otherwise posts can only be validated and kept as drafts.',
      }),
      metrics: Type.Boolean(),
      comments: Type.Boolean(),
      reply: Type.Boolean(),
      first_comment: Type.Boolean({
        description:
          'Posts may carry `platform_options.<platform>.first_comment`: a comment on the post, or a reply to its last part (docs/api.md "First comments").',
      }),
    },
    { description: 'What this Herald can do on the platform.' },
  ),
  connect: Type.Optional(
    Type.Object(
      {
        method: Type.Union([StringEnum(CONNECT_METHODS), Type.Null()], {
          description: "`oauth`: the platform's consent; `app_password`: handle and app password on the hosted page.",
        }),
        live: Availability,
        test: Availability,
      },
      {
        description:
          "Whether `POST /v1/connections/connect-links` can connect accounts of this platform in live and in test workspaces. A live workspace needs the platform's app credentials configured (`HERALD_<PLATFORM>_CLIENT_ID`); a test workspace uses the simulator.",
      },
    ),
  ),
});

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('Platform', PlatformEntry, {
  id: 'bluesky',
  object: 'platform',
  name: 'Bluesky',
  limits: { text: { max_length: 300, unit: 'grapheme' }, media: { max_images: 4 }, thread: { max_parts: 50 } },
  capabilities: { publish: true, metrics: false, comments: false, reply: false, first_comment: true },
  connect: {
    method: 'app_password',
    live: { available: true, reason: null },
    test: { available: true, reason: null },
  },
});
named('ConnectAvailability', Availability);

export function platformsDocument(registry?: PlatformRegistry, connect?: ConnectAvailability) {
  const capabilities = (id: (typeof PLATFORM_NAMES)[number]) => {
    const adapter = registry?.get(id);
    return {
      publish: adapter !== undefined,
      metrics: adapter?.fetchMetrics !== undefined,
      comments: adapter?.listComments !== undefined,
      reply: adapter?.reply !== undefined,
      first_comment:
        adapter !== undefined &&
        (PLATFORM_LIMITS[id].firstComment?.via === 'reply' || adapter.ownComments !== undefined),
    };
  };
  return {
    items: PLATFORM_NAMES.map((id) => ({
      id,
      object: 'platform',
      name: PLATFORM_LIMITS[id].displayName,
      limits: describeLimits(PLATFORM_LIMITS[id]),
      capabilities: capabilities(id),
      ...(connect ? { connect: connect(id) } : {}),
    })),
    next_cursor: null,
    has_more: false,
  };
}

export function registerPlatformsRoutes(
  app: FastifyInstance,
  registry: PlatformRegistry,
  connect?: ConnectAvailability,
): void {
  const document = platformsDocument(registry, connect);
  app.get(
    '/platforms',
    {
      config: { access: { scopes: 'public', workspace: false, mutates: false } },
      schema: {
        operationId: 'listPlatforms',
        tags: ['Platforms'],
        summary: 'List platforms and their limits',
        description:
          'The capabilities document: each platform with the text, media and thread limits Herald checks posts against. No key needed.',
        security: [],
        response: { 200: Envelope(ListOf(PlatformEntry)) },
      },
    },
    async () => document,
  );
}
