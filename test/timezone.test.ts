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

// Scheduling in a named zone (docs/api.md "Scheduling in a time zone"), against the same server running in Kathmandu:
// a local schedule_at is read in `timezone`, never in the server's zone.
async function call(method: string, path: string, body?: unknown) {
  const url = await server.url;
  const key = await t.key();
  const res = await fetch(`${url}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(method === 'GET' ? {} : { 'idempotency-key': `tz-${Math.random()}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as {
      data: { post: Record<string, unknown>; post_id: string } & Record<string, unknown>;
      error: { code: string; message: string; details: Array<{ path: string; rule?: string }> };
    },
  };
}

const createLocal = (schedule_at: string, timezone?: string) =>
  call('POST', '/posts', { content: 'tz', platforms: ['x'], schedule_at, ...(timezone ? { timezone } : {}) });

test('a local schedule_at with timezone is read in that zone, summer and winter, and the zone is kept', async () => {
  const summer = await createLocal('2031-07-01T09:00:00', 'America/New_York');
  assert.equal(summer.status, 201, JSON.stringify(summer.json));
  assert.equal(summer.json.data.post.schedule_at, '2031-07-01T13:00:00.000Z');
  assert.equal(summer.json.data.post.timezone, 'America/New_York');
  const winter = await createLocal('2031-01-15T09:00', 'america/new_york');
  assert.equal(winter.json.data.post.schedule_at, '2031-01-15T14:00:00.000Z');
  assert.equal(winter.json.data.post.timezone, 'America/New_York', 'the canonical name is kept');
  const kathmandu = await createLocal('2031-03-01T09:15:00', 'Asia/Kathmandu');
  assert.equal(kathmandu.json.data.post.schedule_at, '2031-03-01T03:30:00.000Z');
  const absolute = await createLocal('2031-03-01T12:00:00Z');
  assert.equal(absolute.json.data.post.timezone, null);
});

test('a local time in a DST gap is a 422 naming the gap and both readings', async () => {
  for (const [local, readings] of [
    ['2026-03-08T02:30', ['2026-03-08T01:30:00-05:00', '2026-03-08T03:30:00-04:00']],
    ['2031-03-09T02:30:00', ['2031-03-09T01:30:00-05:00', '2031-03-09T03:30:00-04:00']],
  ] as const) {
    const res = await createLocal(local, 'America/New_York');
    assert.equal(res.status, 422, JSON.stringify(res.json));
    assert.equal(res.json.error.code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.equal(res.json.error.details[0]!.rule, 'local_time_skipped');
    assert.equal(res.json.error.details[0]!.path, '/schedule_at');
    assert.match(res.json.error.message, /does not exist in America\/New_York/);
    assert.match(res.json.error.message, /from 02:00 to 03:00/);
    for (const reading of readings) assert.ok(res.json.error.message.includes(reading), res.json.error.message);
  }
});

test('a local time that occurs twice is a 422 naming both readings', async () => {
  for (const [local, readings] of [
    ['2026-11-01T01:30', ['2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-05:00']],
    ['2031-11-02T01:30', ['2031-11-02T01:30:00-04:00', '2031-11-02T01:30:00-05:00']],
  ] as const) {
    const res = await createLocal(local, 'America/New_York');
    assert.equal(res.status, 422, JSON.stringify(res.json));
    assert.equal(res.json.error.details[0]!.rule, 'local_time_repeated');
    for (const reading of readings) assert.ok(res.json.error.message.includes(reading), res.json.error.message);
  }
  // Either reading, sent with its offset, is accepted as the absolute time it is.
  const chosen = await createLocal('2031-11-02T01:30:00-05:00');
  assert.equal(chosen.json.data.post.schedule_at, '2031-11-02T06:30:00.000Z');
});

test('neither an offset nor a timezone is a 400; both is a 400 naming both; an unknown zone is a 422', async () => {
  const neither = await createLocal('2031-07-01T09:00:00');
  assert.equal(neither.status, 400);
  assert.equal(neither.json.error.code, 'PUBLIC_API_BODY_INVALID');
  assert.deepEqual(
    neither.json.error.details.map((d) => d.path),
    ['/schedule_at'],
  );
  const both = await createLocal('2031-07-01T09:00:00+02:00', 'Europe/Paris');
  assert.equal(both.status, 400);
  assert.equal(both.json.error.code, 'PUBLIC_API_BODY_INVALID');
  assert.deepEqual(both.json.error.details.map((d) => d.path).sort(), ['/schedule_at', '/timezone']);
  const zulu = await createLocal('2031-07-01T09:00:00Z', 'Europe/Paris');
  assert.equal(zulu.status, 400);
  // An unknown zone is well-formed, so a 422 naming the rule, as on every endpoint that takes a zone.
  const unknown = await createLocal('2031-07-01T09:00:00', 'Mars/Olympus_Mons');
  assert.equal(unknown.status, 422);
  assert.equal(unknown.json.error.details[0]!.path, '/timezone');
  assert.equal(unknown.json.error.details[0]!.rule, 'timezone_unknown');
  const checked = await call('POST', '/posts/validate', {
    content: 'tz',
    platforms: ['x'],
    schedule_at: '2031-07-01T09:00:00',
    timezone: 'Mars/Olympus_Mons',
  });
  assert.equal(checked.status, 200, JSON.stringify(checked.json));
  assert.equal(checked.json.data.valid, false);
  assert.deepEqual(
    (checked.json.data.issues as Array<{ rule: string; path: string }>).map((i) => [i.rule, i.path]),
    [['timezone_unknown', '/timezone']],
  );
  // A bare offset is not an IANA zone (it has no daylight-saving rules), though the engine would take it.
  const offset = await createLocal('2031-07-01T09:00:00', '+05:00');
  assert.equal(offset.status, 422);
  assert.equal(offset.json.error.details[0]!.path, '/timezone');
  const nonsense = await createLocal('2031-02-30T09:00:00', 'Europe/Paris');
  assert.equal(nonsense.status, 400);
});

test('edits read a local schedule_at in the zone kept on the post; a new zone alone keeps the local time', async () => {
  const id = (await createLocal('2031-07-01T09:00:00', 'America/New_York')).json.data.post_id;
  const moved = await call('PATCH', `/posts/${id}`, { schedule_at: '2031-12-01T09:00' });
  assert.equal(moved.status, 200, JSON.stringify(moved.json));
  assert.equal(moved.json.data.schedule_at, '2031-12-01T14:00:00.000Z');
  assert.equal(moved.json.data.timezone, 'America/New_York');
  const paris = await call('PATCH', `/posts/${id}`, { timezone: 'Europe/Paris' });
  assert.equal(paris.json.data.schedule_at, '2031-12-01T08:00:00.000Z', '09:00 in Paris');
  assert.equal(paris.json.data.timezone, 'Europe/Paris');
  const gap = await call('PATCH', `/posts/${id}`, { schedule_at: '2032-03-28T02:30' });
  assert.equal(gap.status, 422, 'Paris skips 02:00–03:00 on 28 March 2032');
  const absolute = await call('PATCH', `/posts/${id}`, { schedule_at: '2031-12-02T10:00:00Z' });
  assert.equal(absolute.json.data.schedule_at, '2031-12-02T10:00:00.000Z');
  assert.equal(absolute.json.data.timezone, null, 'an absolute time leaves no zone on the post');
  const local = await call('PATCH', `/posts/${id}`, { schedule_at: '2031-12-03T10:00' });
  assert.equal(local.status, 400, 'no zone kept any more, none given');
  const both = await call('PATCH', `/posts/${id}`, { schedule_at: '2031-12-03T10:00+01:00', timezone: 'Europe/Paris' });
  assert.equal(both.status, 400);
  const draft = await call('POST', '/posts', { content: 'tz', platforms: ['x'], timezone: 'Asia/Tokyo' });
  assert.equal(draft.json.data.post.timezone, 'Asia/Tokyo', 'a draft keeps its zone for a later schedule');
  const scheduled = await call('PATCH', `/posts/${draft.json.data.post_id}`, { schedule_at: '2031-05-05T09:00' });
  assert.equal(scheduled.json.data.schedule_at, '2031-05-05T00:00:00.000Z');
  assert.equal(scheduled.json.data.status, 'scheduled');
});

test('POST /v1/posts/validate reports a skipped local time as an issue beside the others', async () => {
  const res = await call('POST', '/posts/validate', {
    content: 'tz',
    platforms: ['x'],
    schedule_at: '2031-03-09T02:30',
    timezone: 'America/New_York',
  });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  const data = res.json.data as unknown as { valid: boolean; issues: Array<{ rule: string; path: string }> };
  assert.equal(data.valid, false);
  assert.deepEqual(
    data.issues.map((i) => [i.rule, i.path]),
    [['local_time_skipped', '/schedule_at']],
  );
});
