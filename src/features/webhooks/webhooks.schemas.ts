// TypeBox schemas of the webhooks API: they validate requests, type the handlers and write the OpenAPI document.
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { Metadata, MetadataInput, MetadataPatch } from '../../app/metadata.ts';
import { EVENT_TYPES } from '../events/outbox.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from './catalogue.ts';

// The values of the enumerations below, exported for the API tables (docs/api.md).
export const WEBHOOK_DISABLED_REASONS = ['manual', 'endpoint_gone', 'failing'] as const;
export const DELIVERY_ATTEMPT_TRIGGERS = ['automatic', 'manual'] as const;
export const DELIVERY_ATTEMPT_ERRORS = [
  'http_status',
  'timeout',
  'connection_failed',
  'connection_reset',
  'address_blocked',
] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const DELIVERY_FAILURE_REASONS = ['retries_exhausted', 'endpoint_disabled', 'endpoint_gone'] as const;

const EventFilter = StringEnum(['*', ...SUBSCRIBABLE_EVENT_TYPES], { description: 'An event type, or `*`.' });
const Events = Type.Array(EventFilter, {
  minItems: 1,
  maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Event types to receive, or `["*"]` for every type (including types added later).',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    '`https://` address that receives the events (plain `http://` only for hosts in `HERALD_OUTBOUND_ALLOWLIST`).',
});
const Description = Type.String({ maxLength: 500 });

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description), metadata: Type.Optional(MetadataInput) },
  {
    additionalProperties: false,
    examples: [
      {
        url: 'https://example.com/herald/webhooks',
        events: ['post.published', 'post.failed'],
        description: 'Production',
      },
    ],
  },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(
      Type.Boolean({ description: '`false` pauses deliveries; `true` re-enables an endpoint, whatever disabled it.' }),
    ),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    metadata: Type.Optional(MetadataPatch),
  },
  {
    additionalProperties: false,
    description: 'A JSON Merge Patch (RFC 7396): fields present replace, `description: null` removes it.',
    examples: [{ enabled: true }],
  },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const RotateSecretBody = Type.Union(
  [
    Type.Object(
      {
        previous_secret_expires_in: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 86_400,
            default: 86_400,
            description:
              'Seconds the old secret keeps signing beside the new one (default and maximum 24 h; `0` stops it at once, e.g. after a leak).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'No body, `{}`, or how long the old secret stays valid.' },
);
export type RotateSecretBody = Static<typeof RotateSecretBody>;

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ examples: ['whe_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('webhook_endpoint'),
    url: Type.String({ format: 'uri' }),
    description: Type.Union([Type.String(), Type.Null()]),
    events: Type.Array(Type.String()),
    metadata: Metadata,
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([StringEnum(WEBHOOK_DISABLED_REASONS), Type.Null()], {
      description:
        '`manual` (PATCH `enabled: false`), `endpoint_gone` (it answered 410), `failing` (every attempt failed for 5 days); null while enabled.',
    }),
    disabled_at: NullableTimestamp,
    failing_since: Type.Union([Timestamp, Type.Null()], {
      description: 'First failed attempt since the last success; null while healthy.',
    }),
    secret_rotated_at: NullableTimestamp,
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'Until then the secret before the last rotation still signs too.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpoint', title: 'Webhook endpoint' },
);

export const WebhookEndpointWithSecret = Type.Intersect([
  Type.Ref('WebhookEndpoint'),
  Type.Object({
    secret: Type.String({ description: 'The `whsec_…` signing secret. Shown only in this answer: store it now.' }),
  }),
]);

export const Attempt = Type.Object({
  id: Type.String(),
  trigger: StringEnum(DELIVERY_ATTEMPT_TRIGGERS, {
    description: '`manual`: a test event or a retry someone asked for.',
  }),
  started_at: Timestamp,
  duration_ms: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the answer; null when none came (timeout, refused, blocked).',
  }),
  response_body: Type.Union([Type.String(), Type.Null()], { description: 'The first 2 KiB of the answer.' }),
  response_truncated: Type.Boolean(),
  error: Type.Union([
    Type.Object({
      code: StringEnum(DELIVERY_ATTEMPT_ERRORS),
      message: Type.String(),
    }),
    Type.Null(),
  ]),
});

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ examples: ['dlv_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('webhook_delivery'),
    endpoint_id: Type.String(),
    event_id: Type.String({
      description: 'The event delivered; also the `webhook-id` header, the same on every attempt.',
    }),
    event_type: Type.String(),
    status: StringEnum(DELIVERY_STATUSES),
    failure_reason: Type.Union([StringEnum(DELIVERY_FAILURE_REASONS), Type.Null()]),
    attempt_count: Type.Integer(),
    next_attempt_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the next automatic attempt is due (pending only).',
    }),
    last_attempt_at: NullableTimestamp,
    delivered_at: NullableTimestamp,
    created_at: Timestamp,
    attempts: Type.Array(Attempt, { description: 'Every attempt, oldest first.' }),
    payload: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'The event as sent (single-delivery answers only).' }),
    ),
  },
  { $id: 'WebhookDelivery', title: 'Webhook delivery' },
);

export const WebhookIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The endpoint id (`whe_…`).' }),
});
export const DeliveryIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The endpoint id (`whe_…`).' }),
  delivery_id: Type.String({ maxLength: 200, description: 'The delivery id (`dlv_…`).' }),
});

const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }));
const Cursor = Type.Optional(
  Type.String({
    maxLength: 1000,
    description: 'The `next_cursor` of the previous page; only valid with the same filters.',
  }),
);

export const ListWebhooksQuery = Type.Object({ limit: Limit, cursor: Cursor }, { additionalProperties: false });
export type ListWebhooksQuery = Static<typeof ListWebhooksQuery>;

export const ListDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(['pending', 'delivered', 'failed'])),
    event_type: Type.Optional(StringEnum(EVENT_TYPES)),
    event_id: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Limit,
    cursor: Cursor,
  },
  { additionalProperties: false },
);
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

const ENDPOINT_EXAMPLE = {
  id: 'whe_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'webhook_endpoint',
  url: 'https://example.com/herald/webhooks',
  description: 'Production',
  events: ['post.published', 'post.failed'],
  metadata: {},
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  secret_rotated_at: null,
  previous_secret_expires_at: null,
  created_at: '2026-11-20T10:05:00Z',
  updated_at: '2026-11-20T10:05:00Z',
};

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('CreateWebhookRequest', CreateWebhookBody);
named('UpdateWebhookRequest', UpdateWebhookBody);
named('RotateSecretRequest', RotateSecretBody.anyOf[0], { previous_secret_expires_in: 3600 });
named('WebhookEndpoint', WebhookEndpoint, ENDPOINT_EXAMPLE);
named('WebhookEndpointWithSecret', WebhookEndpointWithSecret, {
  ...ENDPOINT_EXAMPLE,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
});
named('DeliveryAttempt', Attempt);
named('WebhookDelivery', WebhookDelivery, {
  id: 'dlv_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'webhook_delivery',
  endpoint_id: 'whe_01jdq4x1k9m2v7c3r5t8w0yz6b',
  event_id: 'evt_01jdq4x1k9m2v7c3r5t8w0yz6b',
  event_type: 'post.published',
  status: 'delivered',
  failure_reason: null,
  attempt_count: 1,
  next_attempt_at: null,
  last_attempt_at: '2026-12-01T09:00:03Z',
  delivered_at: '2026-12-01T09:00:03Z',
  created_at: '2026-12-01T09:00:02Z',
  attempts: [
    {
      id: 'dla_01jdq4x1k9m2v7c3r5t8w0yz6b',
      trigger: 'automatic',
      started_at: '2026-12-01T09:00:03Z',
      duration_ms: 212,
      status_code: 200,
      response_body: 'ok',
      response_truncated: false,
      error: null,
    },
  ],
});
export const DeletedWebhook = named(
  'DeletedWebhook',
  Type.Object({ id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) }),
  { id: 'whe_01jdq4x1k9m2v7c3r5t8w0yz6b', object: 'webhook_endpoint', deleted: true },
);
