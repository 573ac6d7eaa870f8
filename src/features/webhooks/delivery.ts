// One delivery attempt: sign the event, POST it through the SSRF guard, log the attempt, and decide what comes
// next — delivered (2xx), disabled (410 Gone, or 5 days of nothing but failures), retried later on the
// schedule, or failed for good. The attempt's result and its consequences commit in one transaction.
import type { Pool } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { queueDeliveries } from '../../app/delivery-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretKeyring } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { OutboundError, outboundRequest, type OutboundResponse } from '../../lib/outbound.ts';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import { appendEvent } from '../events/outbox.ts';
import * as deliveries from './deliveries.repo.ts';
import type { AttemptErrorCode, DeliveryOutcome } from './deliveries.repo.ts';
import * as endpoints from './endpoints.repo.ts';
import { nextRetryDelayMs, parseRetryAfter } from './schedule.ts';
import { openSecret, signatureHeaders } from './signing.ts';
import { endpointJson, eventBody } from './webhooks.view.ts';

/** Bytes of a receiver's answer kept in the attempt log. */
export const RESPONSE_BODY_LIMIT = 2048;
const USER_AGENT = 'Herald-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface DeliveryDeps {
  pool: Pool;
  keyring: SecretKeyring;
  guard: OutboundGuard;
  /** Drives the retry schedule and the failure window; signatures always use the wall clock. */
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  disableAfterMs: number;
  /** Called once per attempt (metrics). */
  onAttempt?: (result: 'delivered' | 'failed', durationMs: number) => void;
}

interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  body: string | null;
  truncated: boolean;
  durationMs: number;
  errorCode: AttemptErrorCode | null;
  errorMessage: string | null;
  retryAfterMs: number | null;
}

function fromResponse(res: OutboundResponse, now: Date): AttemptResult {
  const ok = res.status >= 200 && res.status < 300;
  return {
    ok,
    statusCode: res.status,
    // PostgreSQL text holds no NUL, and a receiver may answer anything.
    body: res.body.length > 0 ? res.body.toString('utf8').replaceAll('\u0000', '\uFFFD') : null,
    truncated: res.truncated,
    durationMs: res.durationMs,
    errorCode: ok ? null : 'http_status',
    errorMessage: ok
      ? null
      : `The endpoint answered ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}.`,
    retryAfterMs: res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers['retry-after'], now) : null,
  };
}

function fromError(error: unknown, durationMs: number, timeoutMs: number): AttemptResult {
  const failure = { ok: false, statusCode: null, body: null, truncated: false, durationMs, retryAfterMs: null };
  if (!(error instanceof OutboundError)) throw error;
  const codes: Record<OutboundError['kind'], AttemptErrorCode> = {
    timeout: 'timeout',
    connect: 'connection_failed',
    reset: 'connection_reset',
    blocked: 'address_blocked',
    aborted: 'connection_reset',
  };
  const message = error.kind === 'timeout' ? `No complete answer within ${timeoutMs} ms.` : error.message;
  return { ...failure, errorCode: codes[error.kind], errorMessage: message.slice(0, 500) };
}

export function createDeliverer(deps: DeliveryDeps) {
  const { pool, clock } = deps;

  async function send(url: string, headers: Record<string, string>, body: string, now: Date): Promise<AttemptResult> {
    const started = performance.now();
    try {
      const res = await outboundRequest({
        method: 'POST',
        url,
        headers,
        body,
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: RESPONSE_BODY_LIMIT,
        guard: deps.guard,
      });
      return fromResponse(res, now);
    } catch (error) {
      return fromError(error, Math.round(performance.now() - started), deps.timeoutMs);
    }
  }

  /** Disables the endpoint (once) and tells the workspace's other endpoints. */
  async function disable(
    tx: Parameters<typeof appendEvent>[0],
    workspaceId: string,
    endpointId: string,
    reason: 'endpoint_gone' | 'failing',
    at: Date,
  ): Promise<void> {
    const disabled = await endpoints.disableEndpoint(tx, workspaceId, endpointId, reason, at);
    if (!disabled) return;
    deps.logger.warn({ workspace_id: workspaceId, endpoint_id: endpointId, reason }, 'webhook endpoint disabled');
    await appendEvent(tx, workspaceId, 'webhook_endpoint.disabled', endpointJson(disabled, at));
  }

  /** Runs one attempt of a delivery. A delivery that is gone or no longer pending is left alone (a stale job). */
  return async function deliver(
    workspaceId: string,
    deliveryId: string,
    trigger: 'automatic' | 'manual' = 'automatic',
  ): Promise<void> {
    const work = await deliveries.loadDeliveryWork(pool, workspaceId, deliveryId);
    if (!work || work.delivery.status !== 'pending') return;
    if (!work.enabled) {
      await deliveries.failDelivery(pool, workspaceId, deliveryId, 'endpoint_disabled');
      return;
    }
    const now = clock.now();
    const secrets = [openSecret(deps.keyring, work.secret)];
    if (work.previous_secret && work.previous_secret_expires_at && work.previous_secret_expires_at > now)
      secrets.push(openSecret(deps.keyring, work.previous_secret));
    const body = eventBody(work.event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signatureHeaders(work.event.id, body, secrets),
    };
    const result = await send(work.url, headers, body, now);
    deps.onAttempt?.(result.ok ? 'delivered' : 'failed', result.durationMs);

    const endpointId = work.delivery.endpoint_id;
    const attempt = {
      id: newId('att'),
      trigger,
      startedAt: now,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      responseBody: result.body,
      responseTruncated: result.truncated,
      errorCode: result.errorCode,
      errorMessage: result.errorMessage,
    };
    if (result.ok) {
      await deliveries.recordAttempt(pool, workspaceId, deliveryId, attempt, {
        status: 'delivered',
        failureReason: null,
        nextAttemptAt: null,
      });
      return;
    }
    await withTransaction(pool, async (tx) => {
      // Locked first, so a twin job of the same delivery (a rare duplicate) cannot also count this failure.
      const current = await deliveries.findDelivery(tx, workspaceId, endpointId, deliveryId, true);
      if (current?.status !== 'pending') return;
      const failingSince = (await endpoints.markFailing(tx, workspaceId, endpointId, now)) ?? now;
      let outcome: DeliveryOutcome;
      if (result.statusCode === 410) {
        outcome = { status: 'failed', failureReason: 'endpoint_gone', nextAttemptAt: null };
        await disable(tx, workspaceId, endpointId, 'endpoint_gone', now);
      } else if (now.getTime() - failingSince.getTime() >= deps.disableAfterMs) {
        outcome = { status: 'failed', failureReason: 'endpoint_disabled', nextAttemptAt: null };
        await disable(tx, workspaceId, endpointId, 'failing', now);
      } else {
        const delay = nextRetryDelayMs(current.attempt_count + 1, { retryAfterMs: result.retryAfterMs });
        outcome =
          delay === null
            ? { status: 'failed', failureReason: 'retries_exhausted', nextAttemptAt: null }
            : { status: 'pending', failureReason: null, nextAttemptAt: new Date(now.getTime() + delay) };
      }
      const moved = await deliveries.recordAttempt(tx, workspaceId, deliveryId, attempt, outcome);
      if (moved && outcome.nextAttemptAt)
        await queueDeliveries(tx, workspaceId, [deliveryId], { runAt: outcome.nextAttemptAt });
    });
  };
}

export type Deliverer = ReturnType<typeof createDeliverer>;
