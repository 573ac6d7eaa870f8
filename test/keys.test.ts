// API keys: the format of docs/architecture.md "Security model", hashed at rest, last use recorded without a write per
// request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeApiKey, generateApiKey, isWellFormedApiKey, sha256 } from '../src/lib/crypto.ts';
import { buildTestApp } from './helpers/app.ts';

test('keys are hk_<mode>_ + 30 base62 + a 6-character CRC32 checksum that rejects any single change', () => {
  const key = generateApiKey('live');
  assert.match(key, /^hk_live_[0-9A-Za-z]{36}$/);
  assert.ok(isWellFormedApiKey(key));
  for (let i = 0; i < key.length; i++) {
    const swapped = key.slice(0, i) + (key[i] === 'A' ? 'B' : 'A') + key.slice(i + 1);
    if (swapped !== key) assert.equal(isWellFormedApiKey(swapped), false, `position ${i}`);
  }
  assert.equal(isWellFormedApiKey(key.replace('hk_live_', 'hk_test_')), false, 'the checksum covers the prefix');
  assert.deepEqual(describeApiKey(key), { prefix: key.slice(0, 12), last4: key.slice(-4) });
});

test('only the SHA-256 of a key is stored; last use is written behind, not per request', async () => {
  const t = await buildTestApp();
  try {
    const key = await t.key();
    const { rows } = await t.container.pool.query(
      'SELECT token_hash, prefix, last4, last_used_at FROM api_keys WHERE token_hash = $1',
      [sha256(key)],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].last_used_at, null);
    const dump = JSON.stringify((await t.container.pool.query('SELECT * FROM api_keys')).rows);
    assert.ok(!dump.includes(key.slice(8, 38)), 'the secret part appears nowhere in the table');
    for (let i = 0; i < 5; i++) assert.equal((await t.inject({ url: '/v1/posts', key })).statusCode, 200);
    const before = (
      await t.container.pool.query('SELECT last_used_at FROM api_keys WHERE token_hash = $1', [sha256(key)])
    ).rows[0].last_used_at;
    assert.equal(before, null, 'no write on the request path');
    await t.container.authenticator.close(); // flushes the batch, as a shutdown does
    const after = (
      await t.container.pool.query('SELECT last_used_at FROM api_keys WHERE token_hash = $1', [sha256(key)])
    ).rows[0].last_used_at;
    assert.ok(after instanceof Date && Date.now() - after.getTime() < 60_000);
  } finally {
    await t.close();
  }
});
