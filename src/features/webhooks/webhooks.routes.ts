// Routes of the webhooks API: schema, access and one service call each. Webhooks belong to the workspace as a
// whole, so a key limited to some brands cannot manage them (it would receive every brand's events).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Pool, Queryable } from '../../db/pool.ts';
import type { RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { typed } from '../../http/type-provider.ts';
import { type IdempotencyDeps } from '../../app/idempotency.ts';
import { AppError } from '../../app/errors.ts';
import type { WebhookContext, WebhooksService } from './webhooks.service.ts';
import {
  CreateWebhookBody,
  DeletedWebhook,
  DeliveryIdParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RotateSecretBody,
  UpdateWebhookBody,
  WebhookEndpointWithSecret,
  WebhookIdParams,
} from './webhooks.schemas.ts';

const read: RouteAccess = { scopes: ['webhooks:manage'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['webhooks:manage'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };
const EndpointRef = Type.Ref('WebhookEndpoint');
const DeliveryRef = Type.Ref('WebhookDelivery');
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or `{}`.',
});

function webhookContext(request: FastifyRequest, db: Queryable): WebhookContext {
  const { principal, workspaceId } = request.ctx;
  if (!principal || !workspaceId) throw new AppError('PUBLIC_API_INTERNAL_ERROR', 'Request context missing.');
  if (principal.brandIds !== null) {
    throw new AppError(
      'PUBLIC_API_BRAND_FORBIDDEN',
      'Webhooks receive the events of every brand of the workspace; a key limited to some brands cannot manage them.',
    );
  }
  return { db, workspaceId };
}

export function registerWebhooksRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; webhooks: WebhooksService },
): void {
  const app = typed(fastify);
  const { webhooks, pool } = deps;
  const tags = ['Webhooks'];

  app.post(
    '/webhooks',
    {
      config: { access: write },
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Events of the workspace are sent to `url`, signed the Standard Webhooks way. The answer holds the `whsec_…` signing secret: it is shown only here. The URL must be `https://` and reach a public address (`PUBLIC_API_VALIDATION_FAILED` with rule `address_blocked`, `dns_unresolved` or `scheme_blocked` otherwise).',
        body: CreateWebhookBody,
        response: { 201: Envelope(WebhookEndpointWithSecret, 'The endpoint, with its secret (shown once).') },
      },
    },
    mutation(
      deps,
      async (request, tx) => ({
        status: 201,
        data: await webhooks.create(webhookContext(request, tx), request.body),
      }),
      { secret: true },
    ),
  );

  app.get(
    '/webhooks',
    {
      config: { access: read },
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'List webhook endpoints',
        description: 'Newest first, paginated by an opaque cursor.',
        querystring: ListWebhooksQuery,
        response: { 200: Envelope(ListOf(EndpointRef)) },
      },
    },
    async (request) => webhooks.list(webhookContext(request, pool), request.query),
  );

  app.get(
    '/webhooks/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'Get a webhook endpoint',
        description: 'The endpoint and its health (`failing_since`, `disabled_reason`); never its secret.',
        params: WebhookIdParams,
        response: { 200: Envelope(EndpointRef) },
      },
    },
    async (request) => webhooks.get(webhookContext(request, pool), request.params.id),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Edit a webhook endpoint',
        description:
          'Change the URL (checked like at creation), the events, the description, or `enabled`. Re-enabling an automatically disabled endpoint clears its failure state; deliveries that failed meanwhile can be retried one by one.',
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: Envelope(EndpointRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await webhooks.update(webhookContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { access: action },
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Stops all deliveries to it at once and deletes its delivery log.',
        params: WebhookIdParams,
        body: NoBody,
        response: {
          200: Envelope(DeletedWebhook),
        },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await webhooks.remove(webhookContext(request, tx), request.params.id),
    })),
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { access: action },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Generates a new secret, shown only in this answer. For 24 h (or `previous_secret_expires_in` seconds) every delivery is signed with both secrets, so receivers can switch without losing a message.',
        params: WebhookIdParams,
        body: RotateSecretBody,
        response: { 200: Envelope(WebhookEndpointWithSecret, 'The endpoint, with its new secret (shown once).') },
      },
    },
    mutation(
      deps,
      async (request, tx) => ({
        status: 200,
        data: await webhooks.rotateSecret(webhookContext(request, tx), request.params.id, request.body),
      }),
      { secret: true },
    ),
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: { access: action },
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Send a test event',
        description:
          'Queues a `webhook.test` event to this endpoint only. Follow the returned delivery (`GET /webhooks/{id}/deliveries/{delivery_id}`) to see the answer.',
        params: WebhookIdParams,
        body: NoBody,
        response: { 200: Envelope(DeliveryRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await webhooks.sendTest(webhookContext(request, tx), request.params.id),
    })),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { access: read },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'List deliveries',
        description:
          'Deliveries to this endpoint, newest first, each with every attempt: time, status code, duration, the first 2 KiB of the answer, and the error.',
        params: WebhookIdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Envelope(ListOf(DeliveryRef)) },
      },
    },
    async (request) => webhooks.listDeliveries(webhookContext(request, pool), request.params.id, request.query),
  );

  app.get(
    '/webhooks/:id/deliveries/:delivery_id',
    {
      config: { access: read },
      schema: {
        operationId: 'getWebhookDelivery',
        tags,
        summary: 'Get a delivery',
        description: 'One delivery with its attempts and the payload sent.',
        params: DeliveryIdParams,
        response: { 200: Envelope(DeliveryRef) },
      },
    },
    async (request) =>
      webhooks.getDelivery(webhookContext(request, pool), request.params.id, request.params.delivery_id),
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/retry',
    {
      config: { access: action },
      schema: {
        operationId: 'retryWebhookDelivery',
        tags,
        summary: 'Retry a delivery',
        description:
          "Sends the event again now, with the same `webhook-id`. A pending delivery's next attempt is brought forward; a delivered or failed one gets a new attempt. The endpoint must be enabled.",
        params: DeliveryIdParams,
        body: NoBody,
        response: { 200: Envelope(DeliveryRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await webhooks.retryDelivery(webhookContext(request, tx), request.params.id, request.params.delivery_id),
    })),
  );
}
