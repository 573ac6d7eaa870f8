import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret, openSecret, sealSecret, signatureHeaders } from './signing.ts';

const keyring = { current: 'k'.repeat(40), previous: [] };

test('a generated secret is whsec_ + 32 random bytes in base64, and sealing round-trips', () => {
  const secret = generateWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  assert.notEqual(secret, generateWebhookSecret());
  const sealed = sealSecret(keyring, secret);
  assert.ok(!sealed.toString('latin1').includes(secret.slice(6)));
  assert.equal(openSecret(keyring, sealed), secret);
});

test('headers verify with the reference verifier; two secrets give two signatures, each verifiable alone', () => {
  const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
  const body = JSON.stringify({ id: 'evt_1', type: 'post.created', data: { text: 'héllo 🚀' } });
  const headers = signatureHeaders('evt_1', body, [a, b]);
  assert.equal(headers['webhook-id'], 'evt_1');
  assert.match(headers['webhook-signature'], /^v1,\S+ v1,\S+$/);
  assert.deepEqual(new Webhook(a).verify(body, { ...headers }), JSON.parse(body));
  assert.deepEqual(new Webhook(b).verify(body, { ...headers }), JSON.parse(body));
  assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers }), WebhookVerificationError);
  assert.throws(() => new Webhook(a).verify(body.replace('héllo', 'hello'), { ...headers }), WebhookVerificationError);
});

test('the timestamp is the signing time, so a signature too old is refused by receivers', () => {
  const secret = generateWebhookSecret();
  const old = signatureHeaders('evt_2', '{}', [secret], new Date(Date.now() - 10 * 60_000));
  assert.throws(() => new Webhook(secret).verify('{}', { ...old }), /too old/);
});
