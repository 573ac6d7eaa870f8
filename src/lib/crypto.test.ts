// Secret-key primitives after their keys became cached KeyObjects, and ids drawn from a shared random pool:
// values sealed or signed under a key still open under it (current or previous), under no other, and the pooled
// random bytes never repeat across refills of the pool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decrypt, encrypt, generateSecretKey, hmac, verifyHmac, type SecretKeyring } from './crypto.ts';
import { newId, newRequestId } from './ids.ts';

const oldSecret = generateSecretKey();
const newSecret = generateSecretKey();
const before: SecretKeyring = { current: oldSecret, previous: [] };
const rotated: SecretKeyring = { current: newSecret, previous: [oldSecret] };
const stranger: SecretKeyring = { current: generateSecretKey(), previous: [] };

test('a sealed value opens under its key and after a rotation, never under another key or purpose', () => {
  const sealed = encrypt(before, 'connection-token', 'access-token-123');
  assert.equal(decrypt(before, 'connection-token', sealed).toString(), 'access-token-123');
  assert.equal(decrypt(rotated, 'connection-token', sealed).toString(), 'access-token-123');
  assert.throws(() => decrypt(stranger, 'connection-token', sealed), /no configured secret key matches/);
  assert.throws(() => decrypt(before, 'webhook-secret', sealed), /no configured secret key matches/);
  // Each sealing uses its own IV.
  assert.notDeepEqual(encrypt(before, 'connection-token', 'same'), encrypt(before, 'connection-token', 'same'));
});

test('an HMAC verifies under the key that made it and after a rotation, not under another purpose', () => {
  const signature = hmac(before, 'media-upload-url', 'PUT\nmessage');
  assert.equal(hmac(before, 'media-upload-url', 'PUT\nmessage'), signature);
  assert.ok(verifyHmac(before, 'media-upload-url', 'PUT\nmessage', signature));
  assert.ok(verifyHmac(rotated, 'media-upload-url', 'PUT\nmessage', signature));
  assert.ok(!verifyHmac(stranger, 'media-upload-url', 'PUT\nmessage', signature));
  assert.ok(!verifyHmac(before, 'media-read-url', 'PUT\nmessage', signature));
  assert.ok(!verifyHmac(before, 'media-upload-url', 'PUT\nmessage2', signature));
});

test('ids from the random pool are well formed and never repeat, across many refills of the pool', () => {
  const requestIds = new Set<string>();
  const ids = new Set<string>();
  // 4,096-byte pool: 12 bytes per request id, 10 per new-millisecond id, so this refills it hundreds of times.
  for (let i = 0; i < 50_000; i++) {
    requestIds.add(newRequestId());
    ids.add(newId('post', 1_000_000 + i * 2));
  }
  assert.equal(requestIds.size, 50_000);
  assert.equal(ids.size, 50_000);
  for (const id of [...requestIds].slice(0, 100)) assert.match(id, /^req_[A-Za-z0-9_-]{16}$/);
  for (const id of [...ids].slice(0, 100)) assert.match(id, /^post_[0-9a-hjkmnp-tv-z]{26}$/);
  // Ids made in a row sort in the order they were made.
  const inOrder = [...ids];
  assert.deepEqual([...inOrder].sort(), inOrder);
});
