// Webhook endpoints and their deliveries (docs/api.md "Events", scope webhooks:manage): register, list, edit,
// delete, rotate the secret, send a test event, read the delivery log and retry a delivery. Each write happens
// in the caller's transaction, jobs included.
import type { Queryable } from '../../db/pool.ts';
import { queueDeliveries } from '../../app/delivery-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretKeyring } from '../../lib/crypto.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { initialMetadata, mergeMetadata } from '../../app/metadata.ts';
import { newId } from '../../lib/ids.ts';
import { OutboundBlockedError, type OutboundGuard } from '../../lib/ssrf.ts';
import { appendEvent } from '../events/outbox.ts';
import * as deliveries from './deliveries.repo.ts';
import * as endpoints from './endpoints.repo.ts';
import type { EndpointRow } from './endpoints.repo.ts';
import { createDeliveries } from './fanout.ts';
import { generateWebhookSecret, openSecret, sealSecret } from './signing.ts';
import type {
  CreateWebhookBody,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RotateSecretBody,
  UpdateWebhookBody,
} from './webhooks.schemas.ts';
import { endpointJson, eventBody, renderDeliveries, renderDelivery } from './webhooks.view.ts';

/** Endpoints one workspace may register: each event costs one delivery per endpoint. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 50;
const SECRET_GRACE_SECONDS = 86_400;

export interface WebhooksDeps {
  clock: Clock;
  keyring: SecretKeyring;
  guard: OutboundGuard;
}

/** What the webhooks service needs to know about its caller. */
export interface WebhookContext {
  db: Queryable;
  workspaceId: string;
}

export function createWebhooksService(deps: WebhooksDeps) {
  const { clock } = deps;

  /** https required (http for allow-listed hosts), and every address the host resolves to must be reachable. */
  async function checkUrl(raw: string): Promise<string> {
    try {
      return (await deps.guard.checkUrl(raw.trim())).href;
    } catch (error) {
      if (!(error instanceof OutboundBlockedError)) throw error;
      throw validationFailed([{ path: '/url', rule: error.code, message: error.message }]);
    }
  }

  function checkEvents(events: string[]): string[] {
    if (events.includes('*') && events.length > 1) {
      throw new AppError('PUBLIC_API_BODY_INVALID', '`*` already means every event type; send it alone.', {
        details: [{ path: '/events', message: '`*` must be the only entry' }],
      });
    }
    return events;
  }

  async function load(ctx: WebhookContext, id: string, lock = false): Promise<EndpointRow> {
    const endpoint = await endpoints.findEndpoint(ctx.db, ctx.workspaceId, id, lock);
    if (!endpoint) throw notFound('webhook endpoint');
    return endpoint;
  }

  async function loadDelivery(ctx: WebhookContext, endpointId: string, deliveryId: string, lock = false) {
    await load(ctx, endpointId);
    const delivery = await deliveries.findDelivery(ctx.db, ctx.workspaceId, endpointId, deliveryId, lock);
    if (!delivery) throw notFound('delivery');
    return delivery;
  }

  function refuseDisabled(endpoint: EndpointRow, action: string): void {
    if (!endpoint.enabled) {
      throw new AppError(
        'PUBLIC_API_STATE_CONFLICT',
        `This endpoint is disabled (${endpoint.disabled_reason}); enable it (PATCH \`enabled: true\`) to ${action}.`,
      );
    }
  }

  return {
    async create(ctx: WebhookContext, body: CreateWebhookBody) {
      const events = checkEvents(body.events);
      const url = await checkUrl(body.url);
      if ((await endpoints.countEndpoints(ctx.db, ctx.workspaceId)) >= MAX_ENDPOINTS_PER_WORKSPACE) {
        throw validationFailed([
          {
            path: '/url',
            rule: 'endpoint_limit',
            message: `A workspace can have at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first.`,
          },
        ]);
      }
      const secret = generateWebhookSecret();
      const row = await endpoints.insertEndpoint(ctx.db, {
        id: newId('whe'),
        workspaceId: ctx.workspaceId,
        url,
        description: body.description ?? null,
        events,
        metadata: initialMetadata(body.metadata),
        secret: sealSecret(deps.keyring, secret),
      });
      return { ...endpointJson(row, clock.now()), secret };
    },

    async list(ctx: WebhookContext, query: ListWebhooksQuery) {
      const limit = query.limit ?? 20;
      const binding = { list: 'webhook_endpoints' };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await endpoints.listEndpoints(ctx.db, ctx.workspaceId, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, binding, (row) => row.created_at);
      const now = clock.now();
      return { items: page.map((e) => endpointJson(e, now)), ...more };
    },

    async get(ctx: WebhookContext, id: string) {
      return endpointJson(await load(ctx, id), clock.now());
    },

    async update(ctx: WebhookContext, id: string, patch: UpdateWebhookBody) {
      const endpoint = await load(ctx, id, true);
      const changes: endpoints.EndpointChanges = {};
      if (patch.url !== undefined) changes.url = await checkUrl(patch.url);
      if (patch.events !== undefined) changes.events = checkEvents(patch.events);
      if (patch.description !== undefined) changes.description = patch.description;
      if (patch.metadata !== undefined) changes.metadata = mergeMetadata(endpoint.metadata, patch.metadata);
      if (patch.enabled === true && !endpoint.enabled) changes.enable = true;
      if (patch.enabled === false && endpoint.enabled) changes.enable = { reason: 'manual', at: clock.now() };
      return endpointJson(await endpoints.updateEndpoint(ctx.db, ctx.workspaceId, id, changes), clock.now());
    },

    /** Deletes the endpoint with its delivery log; jobs still queued for it find nothing and stop. */
    async remove(ctx: WebhookContext, id: string) {
      await load(ctx, id);
      await endpoints.deleteEndpoint(ctx.db, ctx.workspaceId, id);
      return { id, object: 'webhook_endpoint', deleted: true };
    },

    async rotateSecret(ctx: WebhookContext, id: string, body: RotateSecretBody) {
      const endpoint = await load(ctx, id, true);
      const now = clock.now();
      const grace = body?.previous_secret_expires_in ?? SECRET_GRACE_SECONDS;
      const secret = generateWebhookSecret();
      const row = await endpoints.rotateSecret(ctx.db, ctx.workspaceId, id, {
        secret: sealSecret(deps.keyring, secret),
        // Re-sealed rather than copied, so a secret key rotated since the endpoint was made is not needed later.
        previous: grace > 0 ? sealSecret(deps.keyring, openSecret(deps.keyring, endpoint.secret)) : null,
        previousExpiresAt: grace > 0 ? new Date(now.getTime() + grace * 1000) : null,
        at: now,
      });
      return { ...endpointJson(row, now), secret };
    },

    /** Queues a `webhook.test` event to this endpoint only; returns the pending delivery to follow. */
    async sendTest(ctx: WebhookContext, id: string) {
      const endpoint = await load(ctx, id);
      refuseDisabled(endpoint, 'send it a test event');
      const event = await appendEvent(ctx.db, ctx.workspaceId, 'webhook.test', {
        endpoint_id: endpoint.id,
        url: endpoint.url,
        message: 'A test event from Herald: your endpoint is reachable and can check signatures.',
      });
      const [deliveryId] = await createDeliveries(ctx.db, ctx.workspaceId, event, [endpoint.id], 'manual');
      return renderDelivery(
        ctx.db,
        ctx.workspaceId,
        (await deliveries.findDelivery(ctx.db, ctx.workspaceId, endpoint.id, deliveryId!))!,
      );
    },

    async listDeliveries(ctx: WebhookContext, id: string, query: ListDeliveriesQuery) {
      await load(ctx, id);
      const limit = query.limit ?? 20;
      const filters = { status: query.status, eventType: query.event_type, eventId: query.event_id };
      const binding = { list: 'webhook_deliveries', endpoint: id, ...filters };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await deliveries.listDeliveries(ctx.db, ctx.workspaceId, id, filters, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, binding, (row) => row.created_at);
      return { items: await renderDeliveries(ctx.db, ctx.workspaceId, page), ...more };
    },

    /** One delivery with its attempts and the exact payload sent. */
    async getDelivery(ctx: WebhookContext, id: string, deliveryId: string) {
      const delivery = await loadDelivery(ctx, id, deliveryId);
      const view = await renderDelivery(ctx.db, ctx.workspaceId, delivery);
      const event = await deliveries.findEvent(ctx.db, ctx.workspaceId, delivery.event_id);
      if (event) view.payload = JSON.parse(eventBody(event));
      return view;
    },

    /**
     * Sends the delivery again now. A pending delivery's next attempt is brought forward (the schedule goes on
     * if it fails); a delivered or failed one gets one more attempt, with the same `webhook-id`.
     */
    async retryDelivery(ctx: WebhookContext, id: string, deliveryId: string) {
      const endpoint = await load(ctx, id);
      refuseDisabled(endpoint, 'retry its deliveries');
      await loadDelivery(ctx, id, deliveryId, true);
      const reopened = await deliveries.reopenDelivery(ctx.db, ctx.workspaceId, deliveryId, clock.now());
      await queueDeliveries(ctx.db, ctx.workspaceId, [deliveryId], { trigger: 'manual' });
      return renderDelivery(ctx.db, ctx.workspaceId, reopened);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
