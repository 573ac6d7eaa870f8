// The event catalogue: what each event type of docs/api.md "Events" means and what its `data` holds. It is the
// documentation — the OpenAPI 3.1 `webhooks` section is generated from it — and the list endpoints subscribe to.
import { EVENT_TYPES, type EventType } from '../events/outbox.ts';

type Payload =
  'post' | 'media' | 'connection' | 'brand' | 'webhook_endpoint' | 'webhook_test' | 'approval_item' | 'resource';

interface EventDefinition {
  description: string;
  /** What `data` is. */
  payload: Payload;
  /** The area that emits it is not built yet: the type is reserved (and subscribable), but never sent today. */
  notYetEmitted?: true;
}

export const EVENT_CATALOGUE: Record<EventType, EventDefinition> = {
  'post.created': { payload: 'post', description: 'A post was created (draft, scheduled or to be published now).' },
  'post.updated': { payload: 'post', description: 'A draft or scheduled post was edited.' },
  'post.deleted': { payload: 'post', description: 'A post was deleted; `data` is the post as it was.' },
  'post.scheduled': { payload: 'post', description: 'A post got a publication time (at creation or by an edit).' },
  'post.cancelled': {
    payload: 'post',
    description:
      'A draft or scheduled post was cancelled, or the targets of a post being published that were waiting for an attempt; `status` says where that left the post.',
  },
  'post.publishing': { payload: 'post', description: 'Publication of a post has started on its platforms.' },
  'post.queued': {
    payload: 'post',
    description:
      'A post was added to a queue (`queue: "next"` or `"last"` on create) and took the slot its `queue_slot` and `schedule_at` name; `post.created` and `post.scheduled` come with it.',
  },
  'post.rescheduled': {
    payload: 'post',
    description:
      'A queued post moved to another slot because its queue changed: its slots or pauses were edited, or an earlier post left the queue and the gap closed (docs/queues.md).',
  },
  'post.published': {
    payload: 'post',
    description:
      'Every target of the post is published; each target carries its platform post id and URL, and each part of a thread its own.',
  },
  'post.partially_published': {
    payload: 'post',
    description:
      "Some of the post is on its platforms, or may be, and not all of it: targets published beside failed or cancelled ones, a thread stopped after its first parts, or a part sent without an answer when its target was cancelled (`unknown`); see each target's `error` and `parts`.",
  },
  'post.failed': {
    payload: 'post',
    description:
      "No target could be published and no part of the post is known to be out; see each target's `error` (after `PLATFORM_UNKNOWN_OUTCOME` or a 5xx a retry looks the part up before sending it again).",
  },
  'media.ready': {
    payload: 'media',
    description: 'An upload, or a file fetched from a URL, was checked and can be attached to posts.',
  },
  'media.failed': {
    payload: 'media',
    description:
      'An upload was refused or a fetch from a URL failed (`failure_reason` says why), or a video transcode failed (`video.transcodes[].error`; the media stays `ready`).',
  },
  'connection.connected': { payload: 'connection', description: 'A social account was connected (or reconnected).' },
  'connection.expired': {
    payload: 'connection',
    description: "A connection's authorisation expired or was revoked on the platform; it must be reconnected.",
  },
  'connection.disconnected': { payload: 'connection', description: 'A connection was removed.' },
  'brand.created': { payload: 'brand', description: 'A brand was created.' },
  'brand.updated': {
    payload: 'brand',
    description: "A brand's settings changed (`changed` lists the fields); `version` is the new version.",
  },
  'brand.deleted': { payload: 'brand', description: 'A brand was deleted.' },
  'webhook.test': {
    payload: 'webhook_test',
    description: 'Sent by `POST /webhooks/{id}/test`, to that endpoint only, whatever it subscribes to.',
  },
  'webhook_endpoint.disabled': {
    payload: 'webhook_endpoint',
    description:
      "An endpoint was disabled automatically: it answered 410 Gone, or every attempt to it failed for 5 days (`disabled_reason`). Sent to the workspace's other endpoints.",
  },
  'approval.requested': {
    payload: 'approval_item',
    description: 'An item entered the review queue (a post held by the approval policy); `data` is the item.',
  },
  'approval.approved': {
    payload: 'approval_item',
    description:
      'An item was approved; its post is scheduled at its time or publishing (`post.scheduled` / `post.publishing` follow).',
  },
  'approval.rejected': {
    payload: 'approval_item',
    description: 'An item was rejected with its `reason`; its post is a draft again.',
  },
  'approval.expired': {
    payload: 'approval_item',
    description:
      "An item waited past its `expires_at`; its post went back to draft or was cancelled (the policy's `on_expire`).",
  },
  'inbox.item.created': {
    payload: 'resource',
    description:
      'A comment, mention or message arrived in the inbox (the `inbox_item`; `from_account` for the account’s own).',
  },
  'inbox.item.replied': {
    payload: 'resource',
    description: 'A reply to an inbox item was posted: `{item, response}` with its `platform_reply_id`.',
  },
  'inbox.reply.failed': {
    payload: 'resource',
    description: 'A reply could not be posted: `{item_id, response}` with its `error` (`code`, `rule`).',
  },
  'inbox.automation.triggered': {
    payload: 'resource',
    description:
      'An inbox automation matched an item and acted (`outcome` `sent` or `queued_for_approval`), with its `webhook_payload` when it has a `webhook` action.',
  },
  'automation.run.completed': {
    payload: 'resource',
    description:
      'A content automation finished a run (`data` is the run: `items_new`, `posts_created`, and `error` when some posts were refused).',
  },
  'automation.run.failed': {
    payload: 'resource',
    description:
      'A content automation run failed: its feed could not be read, its destinations are gone, or every post was refused (`data` is the run with its `error`).',
  },
  'automation.paused': {
    payload: 'resource',
    description:
      'A content automation paused itself after too many failed runs in a row (`HERALD_AUTOMATION_PAUSE_AFTER_FAILURES`); `data` is the automation with its `last_error`.',
  },
  'repurpose.completed': {
    payload: 'resource',
    description:
      'A repurpose job finished with at least one output made into a post (`status` `completed` or `partially_completed`).',
  },
  'repurpose.failed': {
    payload: 'resource',
    description: 'A repurpose job failed: its source could not be read, or no output passed the platform rules.',
  },
};

/** Types an endpoint may subscribe to (`webhook.test` is sent on request only, to the endpoint tested). */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'webhook.test');

const RESOURCE = {
  type: 'object',
  additionalProperties: true,
  description: 'The resource the event is about, as its own endpoint returns it.',
};
const DATA_SCHEMAS: Record<Payload, object> = {
  post: { $ref: '#/components/schemas/Post' },
  approval_item: { $ref: '#/components/schemas/ApprovalItem' },
  webhook_endpoint: { $ref: '#/components/schemas/WebhookEndpoint' },
  webhook_test: {
    type: 'object',
    properties: {
      endpoint_id: { type: 'string' },
      url: { type: 'string', format: 'uri' },
      message: { type: 'string' },
    },
    required: ['endpoint_id', 'url', 'message'],
  },
  media: { ...RESOURCE, description: 'The media record, as `GET /media/{id}` returns it.' },
  connection: { ...RESOURCE, description: 'The connection, as `GET /connections/{id}` returns it (never its tokens).' },
  brand: {
    type: 'object',
    description:
      'The brand in short (`GET /brands/{id}` has the rest), and for `brand.updated` the fields that changed.',
    required: ['brand_id', 'id', 'object', 'name', 'slug', 'is_default', 'version', 'updated_at', 'changed'],
    properties: {
      brand_id: { type: 'string', description: 'The brand id again, as every brand-scoped event carries it.' },
      id: { type: 'string' },
      object: { type: 'string', const: 'brand' },
      name: { type: 'string' },
      slug: { type: 'string' },
      is_default: { type: 'boolean' },
      version: { type: 'integer' },
      updated_at: { type: 'string', format: 'date-time' },
      changed: {
        type: 'array',
        items: { type: 'string' },
        description: 'Fields changed (empty but for `brand.updated`).',
      },
    },
  },
  resource: RESOURCE,
};

const HEADER_DOCS: Array<[string, string]> = [
  ['webhook-id', 'The event id (`evt_…`): the same on every retry of this event, so use it to ignore duplicates.'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed. Reject messages more than 5 minutes off.'],
  [
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with your `whsec_` secret. After a rotation, one per valid secret for 24 h.',
  ],
];

/** The OpenAPI 3.1 top-level `webhooks` object: one entry per event type, with its payload schema. */
export function openApiWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const def = EVENT_CATALOGUE[type];
      const schema = {
        type: 'object',
        required: ['id', 'type', 'created_at', 'workspace_id', 'data'],
        properties: {
          id: {
            type: 'string',
            description: 'The event id, also sent as `webhook-id`.',
            examples: ['evt_01jdq4x1k9m2v7c3r5t8w0yz6b'],
          },
          type: { type: 'string', const: type },
          created_at: { type: 'string', format: 'date-time' },
          workspace_id: { type: 'string', format: 'uuid' },
          data: DATA_SCHEMAS[def.payload],
        },
      };
      const operation = {
        operationId: `event_${type.replace(/\./g, '_')}`,
        summary: type,
        description: `${def.notYetEmitted ? '**Not emitted yet**: the area that sends it is not built; the type is reserved and can be subscribed to already.\n\n' : ''}${def.description}\n\nDelivered as a signed POST (Standard Webhooks) to every enabled endpoint subscribed to \`${type}\` or \`*\`. Answer 2xx within 10 s; anything else is retried with backoff for about 3 days, and 410 Gone disables the endpoint.`,
        tags: ['Webhooks'],
        ...(def.notYetEmitted ? { 'x-herald-not-yet-emitted': true } : {}),
        // Herald calls the receiver: no Herald credentials; the signature headers authenticate the message.
        security: [],
        parameters: HEADER_DOCS.map(([name, description]) => ({
          in: 'header',
          name,
          required: true,
          description,
          schema: { type: 'string' },
        })),
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: {
          '2XX': { description: 'Received. The body is ignored.' },
          '410': { description: 'Gone: Herald disables the endpoint and stops sending to it.' },
        },
      };
      return [type, { post: operation }];
    }),
  );
}
