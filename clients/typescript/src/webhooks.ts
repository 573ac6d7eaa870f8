// Verifies the signature of a webhook delivery as Herald signs it (Standard Webhooks, standardwebhooks.com):
// HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint's `whsec_` secret, base64, in
// `webhook-signature` as space-separated `v1,<signature>` entries (one per secret Herald signs with).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery's body: the event, whose `data` is the resource as the API shows it. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  workspace_id: string;
  data: T;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export type WebhookHeaders =
  Headers | Record<string, string | readonly string[] | undefined> | Iterable<readonly [string, string]>;

export interface VerifyOptions {
  /** Largest difference between the delivery's timestamp and now (default 300 s, the scheme's five minutes). */
  toleranceSeconds?: number;
  /** Now, for tests. */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in headers ? (headers as Iterable<readonly [string, string]>) : Object.entries(headers);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value.join(' ');
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

function secretBytes(secret: string): Buffer {
  const bytes = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  if (bytes.length === 0) throw new WebhookVerificationError('the webhook secret is empty');
  return bytes;
}

/**
 * Checks a delivery and returns its event. `payload` must be the body exactly as received (before any JSON
 * parsing); `secret` the endpoint's `whsec_…` secret, or several during a rotation. Throws
 * WebhookVerificationError when a header is missing, the timestamp is outside the tolerance or no signature
 * matches.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  secret: string | readonly string[],
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyOptions = {},
): WebhookEvent<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const expected = (typeof secret === 'string' ? [secret] : secret).map((s) =>
    createHmac('sha256', secretBytes(s)).update(`${id}.${timestamp}.`).update(body).digest(),
  );
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return expected.some((e) => e.length === given.length && timingSafeEqual(e, given));
  });
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
}
