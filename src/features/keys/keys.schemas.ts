// TypeBox schemas of the keys API (GET/POST /v1/keys, GET/DELETE /v1/keys/{id}) and the scope catalogue
// (GET /v1/scopes): they validate requests, type the handlers and write the OpenAPI document.
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { SCOPES } from './scopes.ts';

const ScopeName = StringEnum(SCOPES, { description: 'A scope (GET /v1/scopes lists them, each with a sentence).' });

const apiKeyProperties = {
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.String(),
  prefix: Type.String({ description: 'The start of the key (`hk_live_…` or `hk_test_…`), to recognise it.' }),
  last_four: Type.String({ description: 'The last four characters of the key.' }),
  scopes: Type.Array(Type.String()),
  workspace_ids: Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()], {
    description: "The workspaces the key is limited to; null: every workspace of its owner's.",
  }),
  brand_ids: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The brands the key is limited to; null: every brand of its workspaces.',
  }),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'Recorded within about ten seconds.' }),
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  created_by: Type.Union([Type.String(), Type.Null()], {
    description: 'The person who made the key over HTTP; null for keys made by the CLI, at first start or by OAuth.',
  }),
  oauth_client: Type.Union([Type.Object({ name: Type.String() }), Type.Null()], {
    description: 'For a key an assistant received through OAuth: the assistant (its registered name).',
  }),
};

const apiKeyExample = {
  id: 'key_01JD2C4Q8X5M3N7P9R1T3V5W7Y',
  object: 'api_key',
  name: 'Zapier',
  prefix: 'hk_live_4fQz',
  last_four: 'x9Qa',
  scopes: ['posts:read', 'posts:write'],
  workspace_ids: ['0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83'],
  brand_ids: null,
  created_at: '2026-11-20T10:00:00Z',
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  created_by: 'user_01JD2C4Q8X5M3N7P9R1T3V5W7Y',
  oauth_client: null,
};

export const ApiKey = named('ApiKey', Type.Object(apiKeyProperties), apiKeyExample);

export const ApiKeyWithSecret = named(
  'ApiKeyWithSecret',
  Type.Object({
    ...apiKeyProperties,
    secret: Type.String({ description: 'The key itself: shown in this answer only, never again.' }),
  }),
  { ...apiKeyExample, secret: 'hk_live_4fQz…x9Qa' },
);

export const CreateKeyBody = named(
  'CreateKeyBody',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200 }),
      scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
      expires_at: Type.Optional(
        Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'When the key stops working (in the future). A key made by a key that expires expires no later.',
        }),
      ),
      workspace_ids: Type.Optional(
        Type.Union([Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100 }), Type.Null()], {
          description: "Limit the key to these workspaces (the caller's own); default: the caller's reach.",
        }),
      ),
      brand_ids: Type.Optional(
        Type.Union([Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100 }), Type.Null()], {
          description: 'Limit the key to these brands of its workspaces.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  { name: 'Zapier', scopes: ['posts:read', 'posts:write'], expires_at: '2027-06-30T00:00:00Z' },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const KeyIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const ListKeysQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const SCOPE_AREAS = [
  'posts',
  'media',
  'connections',
  'webhooks',
  'events',
  'approvals',
  'inbox',
  'automations',
  'calendar',
  'analytics',
  'brand',
  'repurpose',
  'queues',
  'keys',
  'members',
] as const;

export const ScopeInfo = named(
  'ScopeInfo',
  Type.Object({
    object: Type.Literal('scope'),
    name: Type.String(),
    area: StringEnum(SCOPE_AREAS, { description: 'What the scope is about (for grouping in a form).' }),
    description: Type.String(),
    in_all: Type.Boolean({
      description: '`false` for the scopes over keys and members: `--scopes all` never includes them.',
    }),
  }),
  {
    object: 'scope',
    name: 'posts:write',
    area: 'posts',
    description: 'Create, edit, schedule, publish, cancel and delete posts.',
    in_all: true,
  },
);

export const ScopeList = named('ScopeList', Type.Object({ items: Type.Array(ScopeInfo) }));
