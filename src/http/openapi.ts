// The OpenAPI 3.1 description, generated from the route schemas by @fastify/swagger. One transform adds what
// every /v1 operation shares (security, the scope it needs, context headers, error responses), so routes declare
// only what is theirs. Served at /v1/openapi (YAML) and /v1/openapi.json; rendered at /docs.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';
import type { RouteAccess } from './context.ts';
import type { RouteDeprecation } from './deprecation.ts';
import { deepObjectParameters } from './query.ts';
import { openApiWebhooks } from '../features/webhooks/catalogue.ts';
import { ERROR_CATALOGUE } from '../app/errors.ts';
import { finishDocument } from './openapi.finish.ts';
import { gettingStarted } from './openapi.guide.ts';

const ERROR_RESPONSES: Record<string, string> = {
  400: 'Bad request: malformed body or query, missing Idempotency-Key or workspace header.',
  401: 'Missing, invalid or expired API key.',
  403: 'The key lacks the scope, or cannot reach the workspace or brand.',
  404: 'Not found in this workspace.',
  409: 'State conflict, or the first request with this Idempotency-Key is still running.',
  413: 'Body too large.',
  415: 'Body is not JSON.',
  422: 'A rule failed (details name platform and rule), or the Idempotency-Key was used for another request.',
  429: 'Rate limited; see Retry-After.',
  503: 'Temporarily unavailable; nothing was written.',
};

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
}

const WorkspaceHeader = Type.String({
  format: 'uuid',
  description: 'The workspace to act in. Optional when the key reaches exactly one workspace.',
});
const BrandHeader = Type.String({
  description: "The brand to act for; default: the workspace's default brand (lists: all brands).",
});
const IdempotencyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Required on every mutating call; a retry with the same key replays the first answer for 24 h.',
});

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Herald API',
        version: '1.0.0',
        summary:
          'Self-hostable social publishing: schedule and publish posts on X, LinkedIn, Instagram, Facebook, Threads, Bluesky and Mastodon.',
        description: [
          'JSON in, JSON out. Every response under `/v1` is an envelope: `{ "success": true, "data": …, "request_id": … }` or `{ "success": false, "error": { "code", "message", "details", "retryable", "doc_url" }, "request_id" }`.',
          'Authenticate with `Authorization: Bearer hk_live_…` (or `hk_test_…` for keys that reach only test workspaces). Mutating calls need an `Idempotency-Key` header.',
          `Error codes: ${publicUrl}/docs/errors.`,
          gettingStarted(publicUrl),
        ].join('\n\n'),
        license: { name: 'AGPL-3.0-only', identifier: 'AGPL-3.0-only' },
      },
      servers: [{ url: `${publicUrl}/v1`, description: 'This Herald server' }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'hk_live_… or hk_test_…',
            description: 'A Herald API key.',
          },
        },
      },
      // OpenAPI 3.1 top-level `webhooks`: every event Herald sends, with its payload.
      webhooks: openApiWebhooks() as never,
      tags: [
        { name: 'Posts', description: 'Create, schedule, publish and manage posts.' },
        {
          name: 'Webhooks',
          description:
            'Endpoints that receive signed events (Standard Webhooks), their delivery log and retries. The events themselves are listed under `webhooks`.',
        },
        {
          name: 'Media',
          description: 'Upload images, videos and documents through signed URLs, and attach them to posts by id.',
        },
        { name: 'Workspaces', description: 'Workspaces a key reaches.' },
        {
          name: 'Me',
          description:
            'Who is calling (a signed-in session or a key) and what it reaches; a session changes its password and signs out everywhere here.',
        },
        {
          name: 'Keys',
          description:
            'Your API keys, over HTTP (scope `keys:manage`, never part of `all`): create one (its secret shown once), list, revoke at once. A key never holds more than its maker. `GET /v1/scopes` lists every scope with its sentence.',
        },
        {
          name: 'Members',
          description:
            'Who is in the workspace with which role, and single-use invite links (scope `members:manage`, never part of `all`).',
        },
        {
          name: 'Automations',
          description:
            'Content automations: rules that create posts on a schedule (RRULE in an IANA time zone), from RSS/Atom feeds (each item once) or on events, as drafts, review items, scheduled or published posts. Read with `automations:read`; create, change, trigger, pause, resume and preview with `automations:write`.',
        },
        {
          name: 'Brands',
          description:
            "A workspace's brands: identity, voice, audience, the rules applied to their posts without any model, and the compiled brand context text generation reads. Read with `brand:read`; change with `brand:write` (Herald's addition to the seed's scope list).",
        },
        {
          name: 'Connections',
          description:
            "Platform accounts Herald publishes as: read them with `connections:read`; connect (connect links), refresh and disconnect them with `connections:write` — Herald's addition to the seed's scope list.",
        },
        {
          name: 'Approvals',
          description:
            'The review queue: the approval policy (per workspace, overridable per brand), the items it holds (posts waiting for sign-off) and the batches runs produce; approve, reject, edit and approve, comment. Read with `approvals:read`; decide and change the policy with `approvals:write` (owners and admins).',
        },
        {
          name: 'Repurpose',
          description:
            'Repurpose jobs: one article, text, post or transcribed video turned into drafts, review items or scheduled posts fitted to each platform. Read with `repurpose:read`; start and cancel with `repurpose:write`.',
        },
        {
          name: 'Inbox',
          description:
            'Comments, replies, mentions, direct messages and reviews from the connected accounts: triage, drafts, replies that never post twice, and inbox automations with their runs. Read with `inbox:read`; change, reply and manage automations with `inbox:write`.',
        },
        { name: 'Platforms', description: 'Platforms and their limits.' },
        { name: 'Reference', description: 'This API description itself, for generators and the reference.' },
        {
          name: 'Events',
          description:
            'The events webhooks deliver, read back: catch up after missed deliveries, or poll instead of receiving webhooks (scope `events:read`).',
        },
        {
          name: 'Analytics',
          description:
            "Each post's metrics as the platforms report them over time, summaries over a window with deltas and a CSV export, and insights from a deterministic rules engine. Read with `analytics:read`; generate insights and change their status with `analytics:write`.",
        },
        {
          name: 'Calendar',
          description:
            'A view over posts and the runs schedule automations will make, bucketed by day in a time zone of your choice; move and remove posts from it (`calendar:write`), and ICS feeds that calendar apps subscribe to (`calendar:read`).',
        },
        {
          name: 'Queues',
          description:
            'Posting queues: weekly time slots in IANA zones, pauses and a minimum spacing per connection; `POST /v1/posts` with `queue: "next" | "last"` gives a post the next or the last free slot. Preview the slots, taken and free. Read with `queues:read`; create, change and delete with `queues:write`.',
        },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => String((json as { $id?: string }).$id ?? `Schema${i}`),
    },
    // openapi.finish.ts: named schemas to components, shared header parameters, response headers, examples.
    // query.ts: object-valued query parameters (`metadata[key]=value`) are sent the deepObject way.
    transformObject: (document) =>
      'openapiObject' in document
        ? finishDocument(deepObjectParameters(document.openapiObject), publicUrl)
        : document.swaggerObject,
    transform: ({ schema, url, route }) => {
      if (!url.startsWith('/v1/') || (schema as { hide?: boolean })?.hide)
        return { schema: { ...(schema ?? {}), hide: true } as never, url };
      const access = (route.config as { access?: RouteAccess } | undefined)?.access;
      const s = { ...(schema as Record<string, unknown>) };
      // Actions and DELETEs take no body: the server still accepts none, `{}` or `null` (http/body.ts), but the
      // description says there is none, so generated clients need not pass one.
      // An action whose body has optional fields (rotate-secret) describes that object as an optional body.
      if (access?.actionBody || route.method === 'DELETE') {
        const fields = ((s.body as { anyOf?: Array<{ properties?: object }> } | undefined)?.anyOf ?? []).find(
          (branch) => Object.keys(branch.properties ?? {}).length > 0,
        );
        if (fields) {
          s.body = fields;
          s['x-herald-optional-body'] = true;
        } else {
          delete s.body;
          s.description = `${s.description ?? ''}\n\nTakes no request body.`.trim();
        }
      }
      const headers: Record<string, TSchema> = {};
      if (access?.workspace)
        Object.assign(headers, { 'x-herald-workspace-id': WorkspaceHeader, 'x-herald-brand-id': BrandHeader });
      if (access?.mutates) headers['idempotency-key'] = IdempotencyHeader;
      if (Object.keys(headers).length > 0) {
        s.headers = Type.Object(
          Object.fromEntries(
            Object.entries(headers).map(([k, v]) => [k, k === 'idempotency-key' ? v : Type.Optional(v)]),
          ),
        );
      }
      const responses: Record<string | number, unknown> = { ...((s.response as Record<string, unknown>) ?? {}) };
      const codes = access?.scopes === 'public' ? [400, 429] : [400, 401, 403, 429, 503];
      if ((s.params as unknown) !== undefined) codes.push(404);
      if (access?.mutates) codes.push(409, 413, 415, 422);
      else if (route.method === 'POST') codes.push(413, 415, 422);
      for (const code of codes.sort()) responses[code] ??= errorResponse(ERROR_RESPONSES[code]!);
      s.response = responses;
      if (access && access.scopes !== 'public') {
        const scopes = access.scopes.length > 0 ? access.scopes.map((x) => `\`${x}\``).join(' or ') : 'any valid key';
        s.description = `${s.description ?? ''}\n\nRequires: ${scopes}.`.trim();
        s['x-herald-scopes'] = access.scopes;
        s.security = [{ apiKey: [] }];
      }
      const deprecated = (route.config as { deprecated?: RouteDeprecation } | undefined)?.deprecated;
      if (deprecated) {
        s.deprecated = true;
        // openapi.finish.ts describes the headers its responses carry (and drops this mark).
        s['x-herald-deprecation'] = { sunset: deprecated.sunset !== undefined, link: deprecated.link !== undefined };
        s.description =
          `${s.description ?? ''}\n\nDeprecated since ${deprecated.since}${deprecated.sunset ? `; removed after ${deprecated.sunset}` : ''} (responses carry \`Deprecation\`${deprecated.sunset ? ' and `Sunset`' : ''}).${deprecated.link ? ` See ${deprecated.link}.` : ''}`.trim();
      }
      return { schema: s as never, url };
    },
  });
}

/** The schema of `GET /v1/openapi` (YAML) and `GET /v1/openapi.json`: this document itself. */
export function openApiRouteSchema(format: 'yaml' | 'json') {
  const document = {
    type: 'object',
    title: 'OpenApiDocument',
    description: 'An OpenAPI 3.1 document.',
    properties: { openapi: { type: 'string', const: '3.1.0' } },
    required: ['openapi'],
    additionalProperties: true,
    examples: [{ openapi: '3.1.0', info: { title: 'Herald API', version: '1.0.0' }, paths: {} }],
  };
  return {
    operationId: format === 'yaml' ? 'getOpenApi' : 'getOpenApiJson',
    security: [],
    tags: ['Reference'],
    summary: format === 'yaml' ? 'This API description, in YAML' : 'This API description, in JSON',
    description:
      'The OpenAPI 3.1 document of every `/v1` operation, the webhooks Herald sends and the signed upload URL: what the reference at `/docs` renders and what client generators read. No key needed.',
    response: {
      200: {
        description: 'The OpenAPI document.',
        content: { [format === 'yaml' ? 'application/yaml' : 'application/json']: { schema: document } },
      },
    },
  };
}

/** Every error code with its status and meaning, for the API reference page. */
export function errorCatalogueRows(): Array<{ code: string; status: number; retryable: boolean; when: string }> {
  return Object.entries(ERROR_CATALOGUE).map(([code, d]) => ({
    code,
    status: d.status,
    retryable: d.retryable,
    when: d.when,
  }));
}
