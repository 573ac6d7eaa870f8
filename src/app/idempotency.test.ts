// The idempotency core against a real database: the race its one-statement lock and look-up leaves open (a request
// that held the key commits its answer after this one's snapshot was taken, just before this one took the lock)
// ends with that answer replayed and nothing of this run kept.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createPool, type Pool } from '../db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/db.ts';
import { runIdempotent, type IdempotencyClaim } from './idempotency.ts';

let db: TestDatabase;
let pool: Pool;
const keyring = { current: randomBytes(32).toString('base64url'), previous: [] };
const workspaceId = '00000000-0000-0000-0000-0000000000aa';

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.connectionString, 4);
  await pool.query('CREATE TABLE race_effects (note text)');
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

const claim = (key: string): IdempotencyClaim => ({
  workspaceId,
  userId: 'usr_race',
  key,
  fingerprint: Buffer.from('same request'),
  ttlSeconds: 3600,
  brandIds: null,
});

test('an answer committed by the key holder after the look-up is replayed, and this run leaves nothing', async () => {
  const answer = await runIdempotent({ pool, keyring }, claim('k-race'), 'req_second', async (tx) => {
    await tx.query(`INSERT INTO race_effects VALUES ('second run')`);
    // The first request's commit, landing between this request's look-up and its store.
    await pool.query(
      `INSERT INTO idempotency_keys (workspace_id, user_id, key, fingerprint, response_status, response_body, expires_at)
       VALUES ($1, 'usr_race', 'k-race', $2, 201, $3, now() + interval '1 hour')`,
      [workspaceId, Buffer.from('same request'), Buffer.from('{"first":true}')],
    );
    return { status: 201, data: { second: true } };
  });
  assert.deepEqual(answer, { status: 201, text: '{"first":true}', replayed: true });
  const { rows } = await pool.query('SELECT note FROM race_effects');
  assert.deepEqual(rows, [], 'the second run was rolled back');
});

test('an expired answer under the key is replaced by the new run', async () => {
  await pool.query(
    `INSERT INTO idempotency_keys (workspace_id, user_id, key, fingerprint, response_status, response_body, expires_at)
     VALUES ($1, 'usr_race', 'k-old', 'old', 201, 'old', now() - interval '1 second')`,
    [workspaceId],
  );
  const answer = await runIdempotent({ pool, keyring }, claim('k-old'), 'req_new', async (tx) => {
    await tx.query(`INSERT INTO race_effects VALUES ('new run')`);
    return { status: 201, data: { fresh: true } };
  });
  assert.equal(answer.replayed, false);
  assert.match(answer.text, /"fresh":true/);
  const again = await runIdempotent({ pool, keyring }, claim('k-old'), 'req_again', async () => {
    throw new Error('a replay runs nothing');
  });
  assert.equal(again.replayed, true);
  assert.equal(again.text, answer.text);
  const { rows } = await pool.query('SELECT note FROM race_effects');
  assert.deepEqual(rows, [{ note: 'new run' }]);
});
