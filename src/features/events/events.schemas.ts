// TypeBox schemas of the events API (GET /v1/events): the same events the webhooks deliver, with the same payloads.
import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp } from '../../app/envelope.ts';
import { EVENT_TYPES } from './outbox.ts';

export const EventType = StringEnum(EVENT_TYPES, { description: 'An event type (docs/api.md "Event types").' });

export const Event = Type.Object(
  {
    id: Type.String({
      description: 'The event id: the `webhook-id` of its deliveries.',
      examples: ['evt_01jdq4x1k9m2v7c3r5t8w0yz6b'],
    }),
    object: Type.Literal('event'),
    type: EventType,
    created_at: Timestamp,
    workspace_id: Type.String({ format: 'uuid' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The resource as it was when the event happened: exactly the `data` its webhook delivery carries (see the `webhooks` section for each type).',
      },
    ),
  },
  {
    $id: 'Event',
    title: 'Event',
    examples: [
      {
        id: 'evt_01jdq4x1k9m2v7c3r5t8w0yz6b',
        object: 'event',
        type: 'media.ready',
        created_at: '2026-12-01T09:00:02.120Z',
        workspace_id: '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83',
        data: {
          id: 'med_01jdq4x1k9m2v7c3r5t8w0yz6b',
          object: 'media',
          kind: 'image',
          filename: 'launch.png',
          content_type: 'image/png',
          status: 'ready',
          metadata: { asset_id: 'dam_4411' },
        },
      },
    ],
  },
);

export const EventIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The event id (`evt_…`).' }),
});

export const ListEventsQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Array(EventType, {
        maxItems: EVENT_TYPES.length,
        description:
          'Only events of these types: `type=post.published&type=post.failed` or `type=post.published,post.failed`.',
      }),
    ),
    created_from: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only events created at or after this time.' }),
    ),
    created_to: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only events created before this time.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'The `next_cursor` of the previous page; only valid with the same filters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListEventsQuery = Static<typeof ListEventsQuery>;
