// Standard Webhooks signing (standardwebhooks.com): `whsec_` secrets, and the `webhook-id`, `webhook-timestamp`
// and `webhook-signature` headers produced with the reference `standardwebhooks` package, so receivers can
// verify with any Standard Webhooks library. Secrets are stored encrypted; only this file sees them in clear.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { decrypt, encrypt, type SecretKeyring } from '../../lib/crypto.ts';

const PURPOSE = 'webhook-secret';

/** A new endpoint secret: 32 random bytes, base64, with the `whsec_` prefix. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function sealSecret(keyring: SecretKeyring, secret: string): Buffer {
  return encrypt(keyring, PURPOSE, secret);
}

export function openSecret(keyring: SecretKeyring, sealed: Buffer): string {
  return decrypt(keyring, PURPOSE, sealed).toString('utf8');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The three signature headers for one attempt. Every secret given signs (the current one first, then a
 * rotated-out one still in its grace period), space-separated as the spec allows. The timestamp is always the
 * wall clock: receivers reject signatures more than five minutes off their own time.
 */
export function signatureHeaders(
  messageId: string,
  body: string,
  secrets: readonly string[],
  at: Date = new Date(),
): SignedHeaders {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
