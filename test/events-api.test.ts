// The events API (docs/api.md "Events API"): GET /v1/events and /v1/events/{id} return the events webhooks deliver,
// with the same payloads, newest first, paged by cursor, filtered by type and time, limited to the key's brands,
// and pruned after HERALD_EVENT_RETENTION_DAYS (never fewer than 30).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { createBrand } from '../src/features/workspaces/workspaces.service.ts';
import { eventBody } from '../src/features/webhooks/webhooks.view.ts';
import { pruneEventsTask } from '../src/jobs/tasks/prune-events.ts';
import { Event } from '../src/features/events/events.schemas.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { assertSchema } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

interface EventView {
  id: string;
  object: string;
  type: string;
  created_at: string;
  workspace_id: string;
  data: { id?: string; brand_id?: string };
}

async function createPost(options: { brand?: string; schedule?: boolean; k?: string } = {}): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key: options.k ?? key,
    headers: options.brand ? { 'x-herald-brand-id': options.brand } : {},
    payload: {
      content: 'events api',
      platforms: ['x'],
      ...(options.schedule ? { schedule_at: new Date(Date.now() + 3_600_000).toISOString() } : {}),
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post_id;
}

async function list(query: string, k = key): Promise<{ items: EventView[]; next_cursor: string | null }> {
  const res = await t.inject({ url: `/v1/events${query}`, key: k });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

describe('GET /v1/events', () => {
  test('lists the events of the workspace newest first, with the payloads webhooks deliver', async () => {
    const postId = await createPost({ schedule: true });
    const { items } = await list('?limit=5');
    assert.deepEqual(
      items.slice(0, 2).map((e) => [e.type, e.data.id]),
      [
        ['post.scheduled', postId],
        ['post.created', postId],
      ],
    );
    for (const item of items) assertSchema(Event, item);
    // The same bytes a webhook delivery of the event carries, plus `object`.
    const { rows } = await t.container.pool.query(
      'SELECT id, type, created_at, workspace_id, data FROM events WHERE id = $1',
      [items[0]!.id],
    );
    const { object, ...rest } = items[0]!;
    assert.equal(object, 'event');
    assert.deepEqual(rest, JSON.parse(eventBody(rows[0])));

    const one = await t.inject({ url: `/v1/events/${items[0]!.id}`, key });
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json().data, items[0]);
    const missing = await t.inject({ url: '/v1/events/evt_missing', key });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'PUBLIC_API_NOT_FOUND');
  });

  test('pages by cursor without gaps or repeats, and binds the cursor to its filters', async () => {
    for (let i = 0; i < 4; i++) await createPost();
    const all = (await list('?limit=100')).items.map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.items.length <= 3);
      seen.push(...page.items.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, all);
    assert.equal(new Set(seen).size, seen.length);

    const first = await list('?limit=1');
    const other = await t.inject({ url: `/v1/events?limit=1&type=post.created&cursor=${first.next_cursor}`, key });
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().error.code, 'PUBLIC_API_QUERY_INVALID');
  });

  test('filters by a list of types, comma-separated or repeated, and refuses unknown types', async () => {
    await createPost({ schedule: true });
    const repeated = await list('?type=post.scheduled&type=media.ready&limit=100');
    assert.ok(repeated.items.length > 0);
    assert.ok(repeated.items.every((e) => e.type === 'post.scheduled' || e.type === 'media.ready'));
    const csv = await list('?type=post.scheduled,media.ready&limit=100');
    assert.deepEqual(
      csv.items.map((e) => e.id),
      repeated.items.map((e) => e.id),
    );
    const bad = await t.inject({ url: '/v1/events?type=post.sheduled', key });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'PUBLIC_API_QUERY_INVALID');
  });

  test('filters by creation time: created_from inclusive, created_to exclusive', async () => {
    const ws = t.owner.workspaceId;
    await t.container.pool.query(
      `INSERT INTO events (id, workspace_id, type, data, created_at) VALUES
         ('evt_time_a', $1, 'post.created', '{"id":"post_a"}', '2026-01-10T10:00:00Z'),
         ('evt_time_b', $1, 'post.created', '{"id":"post_b"}', '2026-01-11T10:00:00Z'),
         ('evt_time_c', $1, 'post.created', '{"id":"post_c"}', '2026-01-12T10:00:00Z')`,
      [ws],
    );
    const window = await list('?created_from=2026-01-10T10:00:00Z&created_to=2026-01-12T10:00:00Z');
    assert.deepEqual(
      window.items.map((e) => e.id),
      ['evt_time_b', 'evt_time_a'],
    );
    const bad = await t.inject({ url: '/v1/events?created_from=yesterday', key });
    assert.equal(bad.statusCode, 400);
  });

  test('a key limited to a brand sees that brand’s events and media events, not other brands’ or webhook ones', async () => {
    const brand = await createBrand(t.container.pool, t.owner.workspaceId, 'Events brand');
    const mine = await createPost({ brand: brand.id });
    const theirs = await createPost();
    await t.container.pool.query(
      `INSERT INTO events (id, workspace_id, type, data) VALUES
         ('evt_brand_media', $1, 'media.ready', '{"id":"med_x","object":"media"}'),
         ('evt_brand_hook', $1, 'webhook_endpoint.disabled', '{"id":"whe_x","object":"webhook_endpoint"}')`,
      [t.owner.workspaceId],
    );
    const limited = await t.key({ brandIds: [brand.id] });
    const { items } = await list('?limit=100', limited);
    const ids = items.map((e) => e.data.id);
    assert.ok(ids.includes(mine));
    assert.ok(ids.includes('med_x'));
    assert.ok(!ids.includes(theirs));
    assert.ok(!ids.includes('whe_x'));
    assert.ok(items.every((e) => e.type.startsWith('media.') || e.data.brand_id === brand.id));
    const theirEvent = (await list('?limit=100')).items.find((e) => e.data.id === theirs)!;
    const refused = await t.inject({ url: `/v1/events/${theirEvent.id}`, key: limited });
    assert.equal(refused.statusCode, 404);
    // The brand header narrows a full key the same way.
    const narrowed = await t.inject({ url: '/v1/events?limit=100', key, headers: { 'x-herald-brand-id': brand.id } });
    assert.ok(
      (narrowed.json().data.items as EventView[]).every(
        (e) => e.type.startsWith('media.') || e.data.brand_id === brand.id,
      ),
    );
  });

  test('needs events:read, which `--scopes all` includes', async () => {
    const without = await t.key({ scopes: ['posts:read'] });
    const res = await t.inject({ url: '/v1/events', key: without });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    const { parseScopes } = await import('../src/features/keys/scopes.ts');
    const all = parseScopes('all');
    assert.ok('scopes' in all && all.scopes.includes('events:read'));
  });
});

describe('retention', () => {
  test('events older than HERALD_EVENT_RETENTION_DAYS (and a day) are pruned; younger ones stay', async () => {
    const ws = t.owner.workspaceId;
    const now = new Date('2030-06-01T00:00:00Z');
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    // 30.5 days: past the delivery log's 30, so its finished deliveries may be gone, but inside the day's margin.
    await t.container.pool.query(
      `INSERT INTO events (id, workspace_id, type, data, created_at) VALUES
         ('evt_keep_29', $1, 'post.created', '{}', $2), ('evt_drop_31', $1, 'post.created', '{}', $3),
         ('evt_keep_44', $1, 'post.created', '{}', $4), ('evt_keep_30h', $1, 'post.created', '{}', $5)`,
      [ws, daysAgo(29), daysAgo(31.01), daysAgo(44), daysAgo(30.5)],
    );
    const logger = { info() {} } as never;
    await pruneEventsTask({ pool: t.container.pool, clock: { now: () => now }, logger, retentionDays: 45 })();
    const kept = async () =>
      (
        await t.container.pool.query<{ id: string }>(
          `SELECT id FROM events WHERE id LIKE 'evt_keep%' OR id LIKE 'evt_drop%'`,
        )
      ).rows
        .map((r) => r.id)
        .sort();
    assert.deepEqual(await kept(), ['evt_drop_31', 'evt_keep_29', 'evt_keep_30h', 'evt_keep_44']);
    await pruneEventsTask({ pool: t.container.pool, clock: { now: () => now }, logger, retentionDays: 30 })();
    assert.deepEqual(await kept(), ['evt_keep_29', 'evt_keep_30h']);
  });

  test('the retention setting defaults to 30 days and refuses fewer', () => {
    const base = { HERALD_SECRET_KEY: TEST_SECRET, DATABASE_URL: 'postgres://x@127.0.0.1/x' };
    assert.equal(loadConfig(base).webhooks.eventRetentionDays, 30);
    assert.equal(loadConfig({ ...base, HERALD_EVENT_RETENTION_DAYS: '90' }).webhooks.eventRetentionDays, 90);
    assert.throws(() => loadConfig({ ...base, HERALD_EVENT_RETENTION_DAYS: '7' }), /HERALD_EVENT_RETENTION_DAYS/);
  });
});
