// The public representations of webhook endpoints and deliveries (never a secret, except where the caller adds
// the one just generated), and the exact body an event is delivered with.
import type { Queryable } from '../../db/pool.ts';
import { findAttempts, type AttemptRow, type DeliveryRow } from './deliveries.repo.ts';
import type { EndpointRow } from './endpoints.repo.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function endpointJson(e: EndpointRow, now: Date): Record<string, unknown> {
  const previousValid = e.previous_secret_expires_at !== null && e.previous_secret_expires_at > now;
  return {
    id: e.id,
    object: 'webhook_endpoint',
    url: e.url,
    description: e.description,
    events: e.events,
    metadata: e.metadata,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    disabled_at: iso(e.disabled_at),
    failing_since: iso(e.failing_since),
    secret_rotated_at: iso(e.secret_rotated_at),
    previous_secret_expires_at: previousValid ? iso(e.previous_secret_expires_at) : null,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

function attemptJson(a: AttemptRow): Record<string, unknown> {
  return {
    id: a.id,
    trigger: a.trigger,
    started_at: a.started_at.toISOString(),
    duration_ms: a.duration_ms,
    status_code: a.status_code,
    response_body: a.response_body,
    response_truncated: a.response_truncated,
    error: a.error_code ? { code: a.error_code, message: a.error_message ?? '' } : null,
  };
}

function deliveryJson(d: DeliveryRow, attempts: AttemptRow[]): Record<string, unknown> {
  return {
    id: d.id,
    object: 'webhook_delivery',
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    failure_reason: d.failure_reason,
    attempt_count: d.attempt_count,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    last_attempt_at: iso(d.last_attempt_at),
    delivered_at: iso(d.delivered_at),
    created_at: d.created_at.toISOString(),
    attempts: attempts.map(attemptJson),
  };
}

/** Deliveries with their attempts, in one extra query whatever their number. */
export async function renderDeliveries(
  db: Queryable,
  workspaceId: string,
  deliveries: DeliveryRow[],
): Promise<Record<string, unknown>[]> {
  const attempts = await findAttempts(
    db,
    workspaceId,
    deliveries.map((d) => d.id),
  );
  const byDelivery = Map.groupBy(attempts, (a) => a.delivery_id);
  return deliveries.map((d) => deliveryJson(d, byDelivery.get(d.id) ?? []));
}

export async function renderDelivery(
  db: Queryable,
  workspaceId: string,
  delivery: DeliveryRow,
): Promise<Record<string, unknown>> {
  return (await renderDeliveries(db, workspaceId, [delivery]))[0]!;
}

/** The body of a delivery (docs/api.md "Events"): the same bytes on every attempt of an event. */
export function eventBody(event: {
  id: string;
  type: string;
  created_at: Date;
  workspace_id: string;
  data: unknown;
}): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    workspace_id: event.workspace_id,
    data: event.data,
  });
}
