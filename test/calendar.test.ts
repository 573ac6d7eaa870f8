// The calendar API (docs/calendar.md): buckets by local date around midnight and daylight-saving changes in two
// zones, the 92-day window, moving a post (409 when it has gone out, 422 in the past, held again by the approval
// policy), removing one, automation runs as read-only events, and tenant isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;
let n = 0;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

async function createPost(scheduleAt: string, body: Record<string, unknown> = {}) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `calendar post ${++n}\nsecond line`, platforms: ['x'], schedule_at: scheduleAt, ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post as { id: string; status: string };
}

async function events(query: string, k = key) {
  const res = await t.inject({ url: `/v1/calendar/events?${query}`, key: k });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    items: Array<{ id: string; date: string; local_start: string; starts_at: string; status: string; type: string }>;
    next_cursor: string | null;
    has_more: boolean;
  };
}

const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

describe('buckets', () => {
  test('a post half an hour after local midnight is on the local date in Paris and on the day before in New York', async () => {
    const post = await createPost('2027-03-27T23:30:00Z');
    const paris = await events('from=2027-03-27&to=2027-03-30&tz=Europe/Paris&type=post');
    const inParis = paris.items.find((e) => e.id === post.id)!;
    assert.equal(inParis.date, '2027-03-28');
    assert.equal(inParis.local_start, '2027-03-28T00:30:00+01:00');
    const ny = await events('from=2027-03-26&to=2027-03-29&tz=America/New_York&type=post');
    assert.equal(ny.items.find((e) => e.id === post.id)!.date, '2027-03-27');
  });

  test('the day Paris springs forward is 23 hours long: a date window covers exactly it', async () => {
    const inside = await createPost('2027-03-27T23:10:00Z'); // 00:10 CET on the 28th
    const nextDay = await createPost('2027-03-28T22:30:00Z'); // 00:30 CEST on the 29th
    const day = await events('from=2027-03-28&to=2027-03-29&tz=Europe/Paris&type=post');
    const ids = day.items.map((e) => e.id);
    assert.ok(ids.includes(inside.id));
    assert.ok(!ids.includes(nextDay.id), 'a post after the next local midnight is not in the day');
    const next = await events('from=2027-03-29&to=2027-03-30&tz=Europe/Paris&type=post');
    const later = next.items.find((e) => e.id === nextDay.id)!;
    assert.equal(later.date, '2027-03-29');
    assert.equal(later.local_start, '2027-03-29T00:30:00+02:00');
  });

  test('after New York falls back, 04:30 UTC is 23:30 the day before (not the summer-time 00:30)', async () => {
    const before = await createPost('2027-11-07T04:30:00Z'); // 00:30 EDT on the 7th
    const afterChange = await createPost('2027-11-08T04:30:00Z'); // 23:30 EST on the 7th
    const day = await events('from=2027-11-07&to=2027-11-08&tz=America/New_York&type=post');
    const byId = new Map(day.items.map((e) => [e.id, e]));
    assert.equal(byId.get(before.id)?.local_start, '2027-11-07T00:30:00-04:00');
    assert.equal(byId.get(afterChange.id)?.local_start, '2027-11-07T23:30:00-05:00');
    assert.equal(byId.get(afterChange.id)?.date, '2027-11-07');
    const utc = await events('from=2027-11-08&to=2027-11-09&type=post');
    assert.equal(utc.items.find((e) => e.id === afterChange.id)?.date, '2027-11-08');
  });

  test('pages follow one another without gaps or repeats', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await createPost(`2027-06-10T09:00:0${i}Z`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await events(
        `from=2027-06-10&to=2027-06-11&type=post&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...page.items.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, made);
  });
});

describe('window', () => {
  test('92 days is the longest window; 93 is a 422, a reversed one too, a missing end a 400', async () => {
    await events('from=2027-01-01&to=2027-04-03&tz=Europe/Paris');
    const long = await t.inject({ url: '/v1/calendar/events?from=2027-01-01&to=2027-04-04', key });
    assert.equal(long.statusCode, 422, long.body);
    assert.equal(long.json().error.details[0].rule, 'window_too_long');
    const reversed = await t.inject({ url: '/v1/calendar/events?from=2027-02-01&to=2027-01-01', key });
    assert.equal(reversed.statusCode, 422);
    const missing = await t.inject({ url: '/v1/calendar/events?from=2027-01-01', key });
    assert.equal(missing.statusCode, 400);
    const zone = await t.inject({ url: '/v1/calendar/events?from=2027-01-01&to=2027-01-02&tz=Mars/Base', key });
    assert.equal(zone.statusCode, 422);
    assert.equal(zone.json().error.code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.equal(zone.json().error.details[0].rule, 'timezone_unknown');
  });
});

describe('moving and removing', () => {
  test('PATCH reschedules the post and answers the event; a time in the past is a 422', async () => {
    const post = await createPost(inHours(5));
    const to = inHours(30);
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/calendar/events/${post.id}`,
      key,
      payload: { starts_at: to },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.starts_at, to);
    assert.equal(res.json().data.editable, true);
    const read = await t.inject({ url: `/v1/posts/${post.id}`, key });
    assert.equal(read.json().data.schedule_at, to);
    const past = await t.inject({
      method: 'PATCH',
      url: `/v1/calendar/events/${post.id}`,
      key,
      payload: { starts_at: new Date(Date.now() - 86_400_000).toISOString() },
    });
    assert.equal(past.statusCode, 422, past.body);
    assert.equal(past.json().error.details[0].rule, 'schedule_in_past');
    assert.equal(past.json().error.details[0].path, '/starts_at', 'named after the field this endpoint takes');
    assert.match(past.json().error.message, /^starts_at .* is in the past\.$/);
  });

  test('a post scheduled in a zone keeps its zone when moved', async () => {
    const post = await createPost('2027-07-01T09:00:00', { timezone: 'Europe/Paris' });
    const res = await t.inject({
      method: 'PATCH',
      url: `/v1/calendar/events/${post.id}`,
      key,
      payload: { starts_at: '2027-07-02T08:00:00Z' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.local_start, '2027-07-02T10:00:00+02:00');
    assert.equal((await t.inject({ url: `/v1/posts/${post.id}`, key })).json().data.timezone, 'Europe/Paris');
  });

  test('a published post cannot be moved or removed: 409', async () => {
    const post = await createPost(inHours(5));
    await t.container.pool.query("UPDATE posts SET status = 'published', published_at = now() WHERE id = $1", [
      post.id,
    ]);
    const move = await t.inject({
      method: 'PATCH',
      url: `/v1/calendar/events/${post.id}`,
      key,
      payload: { starts_at: inHours(8) },
    });
    assert.equal(move.statusCode, 409, move.body);
    assert.equal(move.json().error.details[0].rule, 'post_settled');
    const remove = await t.inject({ method: 'DELETE', url: `/v1/calendar/events/${post.id}`, key });
    assert.equal(remove.statusCode, 409);
  });

  test('when the policy reviews every post, a move holds the post for approval again', async () => {
    const post = await createPost(inHours(6));
    assert.equal(post.status, 'scheduled');
    const policy = (await t.inject({ url: '/v1/approvals/policy', key })).json().data;
    const set = await t.inject({
      method: 'PATCH',
      url: '/v1/approvals/policy',
      key,
      payload: { version: policy.version, mode: 'everyone' },
    });
    assert.equal(set.statusCode, 200, set.body);
    try {
      const res = await t.inject({
        method: 'PATCH',
        url: `/v1/calendar/events/${post.id}`,
        key,
        payload: { starts_at: inHours(9) },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().data.status, 'pending_approval');
      const read = (await t.inject({ url: `/v1/posts/${post.id}`, key })).json().data;
      assert.equal(read.approval.status, 'pending');
    } finally {
      const now = (await t.inject({ url: '/v1/approvals/policy', key })).json().data;
      await t.inject({
        method: 'PATCH',
        url: '/v1/approvals/policy',
        key,
        payload: { version: now.version, mode: 'off' },
      });
    }
  });

  test('DELETE cancels the post; it stays on the calendar only when cancelled posts are asked for', async () => {
    const at = '2027-08-01T10:00:00.000Z';
    const post = await createPost(at);
    const res = await t.inject({ method: 'DELETE', url: `/v1/calendar/events/${post.id}`, key });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'cancelled');
    assert.equal(res.json().data.editable, false);
    assert.equal((await t.inject({ url: `/v1/posts/${post.id}`, key })).json().data.status, 'cancelled');
    assert.ok(!(await events('from=2027-08-01&to=2027-08-02')).items.some((e) => e.id === post.id));
    assert.ok((await events('from=2027-08-01&to=2027-08-02&status=cancelled')).items.some((e) => e.id === post.id));
  });
});

describe('automation runs', () => {
  test('a schedule automation shows its runs to come, bucketed in the request zone, and they cannot be moved', async () => {
    const id = `auto_cal${++n}`;
    await t.container.pool.query(
      `INSERT INTO automations (id, workspace_id, brand_id, name, status, source, generator, destinations, output, options, created_by)
       VALUES ($1, $2, $3, 'Monday tips', 'active', $4, '{"type":"template","template":"x","count":1}', '[{"platform":"linkedin"}]',
               '{"mode":"draft"}', '{}', $5)`,
      [
        id,
        t.owner.workspaceId,
        t.owner.brandId,
        JSON.stringify({
          type: 'schedule',
          rrule: 'DTSTART;TZID=Europe/Paris:20270101T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO',
          timezone: 'Europe/Paris',
        }),
        t.owner.userId,
      ],
    );
    const page = await events('from=2027-03-22&to=2027-04-05&tz=Europe/Paris&type=automation_run');
    const runs = page.items.filter((e) => e.id.startsWith(`${id}@`));
    assert.deepEqual(
      runs.map((e) => e.local_start),
      ['2027-03-22T09:00:00+01:00', '2027-03-29T09:00:00+02:00'],
    );
    assert.equal(runs[0]!.status, 'planned');
    const move = await t.inject({
      method: 'PATCH',
      url: `/v1/calendar/events/${runs[0]!.id}`,
      key,
      payload: { starts_at: inHours(50) },
    });
    assert.equal(move.statusCode, 409, move.body);
    assert.equal(move.json().error.details[0].rule, 'automation_run_not_editable');
    const linkedinOnly = await events('from=2027-03-22&to=2027-04-05&platform=x&type=automation_run');
    assert.ok(!linkedinOnly.items.some((e) => e.id.startsWith(`${id}@`)));
  });
});

describe('tenancy', () => {
  test("another workspace's key sees none of these events and cannot move or remove them", async () => {
    const post = await createPost('2027-09-01T10:00:00Z');
    const other = await t.workspace('test');
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const seen = await events('from=2027-09-01&to=2027-09-02', otherKey);
    assert.equal(seen.items.length, 0);
    const move = await t.inject({
      method: 'PATCH',
      url: `/v1/calendar/events/${post.id}`,
      key: otherKey,
      payload: { starts_at: inHours(10) },
    });
    assert.equal(move.statusCode, 404);
    const remove = await t.inject({ method: 'DELETE', url: `/v1/calendar/events/${post.id}`, key: otherKey });
    assert.equal(remove.statusCode, 404);
    const unknown = await t.inject({ method: 'DELETE', url: '/v1/calendar/events/not-an-event', key });
    assert.equal(unknown.statusCode, 404);
  });
});
