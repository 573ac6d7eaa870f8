// Time zones: inputs carry Z or an offset and come back in UTC, whatever the server process's own TZ is.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { spawnHerald, type HeraldProcess } from './helpers/processes.ts';

let t: TestApp;
let server: HeraldProcess;

before(async () => {
  t = await buildTestApp();
  // Kathmandu is UTC+5:45: an offset that no rounding to whole hours can get right by accident.
  server = spawnHerald(['serve', '--role', 'api'], {
    DATABASE_URL: t.db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    PORT: '0',
    TZ: 'Asia/Kathmandu',
    PGTZ: 'America/St_Johns',
  });
});
after(async () => {
  await server.stop();
  await t.close();
});

test('a server running in Asia/Kathmandu stores and returns UTC, and filters by absolute time', async () => {
  const url = await server.url;
  const key = await t.key();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const create = async (schedule_at: string) => {
    const res = await fetch(`${url}/v1/posts`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': schedule_at },
      body: JSON.stringify({ content: 'tz', platforms: ['x'], schedule_at }),
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { data: { post: { schedule_at: string; created_at: string } } }).data.post;
  };
  const a = await create('2031-03-01T00:00:00-03:30');
  const b = await create('2031-03-01T09:15:00+05:45');
  const c = await create('2031-03-01T12:00:00Z');
  assert.equal(a.schedule_at, '2031-03-01T03:30:00.000Z');
  assert.equal(b.schedule_at, '2031-03-01T03:30:00.000Z');
  assert.equal(c.schedule_at, '2031-03-01T12:00:00.000Z');
  assert.match(a.created_at, /Z$/);
  const window = new URLSearchParams({
    scheduled_from: '2031-03-01T09:00:00+05:45',
    scheduled_to: '2031-03-01T09:30:00+05:45',
    sort: 'schedule_at',
  });
  const list = (await (await fetch(`${url}/v1/posts?${window}`, { headers })).json()) as {
    data: { items: Array<{ schedule_at: string }> };
  };
  assert.deepEqual(
    list.data.items.map((p) => p.schedule_at),
    ['2031-03-01T03:30:00.000Z', '2031-03-01T03:30:00.000Z'],
  );
});
