// Revocation takes effect on every process within a second: two `herald serve --role api` processes on one
// database stop accepting a key after `herald keys revoke` (docs/architecture.md "Security model").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { pollUntil, runHerald, spawnHerald, type HeraldProcess } from './helpers/processes.ts';

let t: TestApp;
const servers: HeraldProcess[] = [];

before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await t.close();
});

test('a key revoked with the CLI is refused by two API processes within a second', async () => {
  const env = { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET, PORT: '0' };
  for (let i = 0; i < 2; i++) servers.push(spawnHerald(['serve', '--role', 'api'], env));
  const urls = await Promise.all(servers.map((s) => s.url));
  const key = await t.key();
  const id = (
    await t.container.pool.query<{ id: string }>('SELECT id FROM api_keys ORDER BY created_at DESC, id DESC LIMIT 1')
  ).rows[0]!.id;
  const status = async (url: string) =>
    (await fetch(`${url}/v1/posts`, { headers: { authorization: `Bearer ${key}` } })).status;
  // Both processes have the key in their one-second cache before it is revoked.
  assert.deepEqual(await Promise.all(urls.map(status)), [200, 200]);

  const revoke = await runHerald(['keys', 'revoke', id], env);
  assert.equal(revoke.code, 0, revoke.stderr);
  const latencies = await Promise.all(urls.map((url) => pollUntil(async () => (await status(url)) === 401, 10_000)));
  console.log(
    `# revocation seen by the two API processes after ${latencies.join(' ms and ')} ms (ceiling 10 s; contract 1 s)`,
  );
  const body = (await (await fetch(`${urls[0]}/v1/posts`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    error: { code: string };
  };
  assert.equal(body.error.code, 'PUBLIC_API_KEY_INVALID');
});

test('serve --role api refuses to start while migrations are pending', async () => {
  const { createTestDatabase } = await import('./helpers/db.ts');
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.connectionString });
  try {
    await client.connect();
    await client.query('DELETE FROM herald_migrations WHERE id = 1');
    const res = await runHerald(['serve', '--role', 'api'], {
      DATABASE_URL: db.connectionString,
      HERALD_SECRET_KEY: TEST_SECRET,
      PORT: '0',
    });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /Migrations are pending.*herald migrate/s);
  } finally {
    await client.end();
    await db.drop();
  }
});
