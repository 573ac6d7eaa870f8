// Evergreen recycling (docs/queues.md "Recycling"): a rule on a published post, its 422s and its 409, stopping it;
// the recycle_posts pass making exactly `times` copies at their times under a clock the test moves, rotating the
// variants, once even with two passes at the same moment; X's duplicate rule; the family on the calendar and in
// analytics; tenant isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { recycleDuePosts } from '../src/features/recycling/recycling.copies.ts';
import { taskList } from '../src/jobs/worker.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { seedPublishedPost } from './helpers/analytics.ts';

const DAY = 86_400_000;
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
let t: TestApp;
let key: string;
let n = 0;

before(async () => {
  t = await buildTestApp({ clock });
  key = await t.key();
});
after(() => t.close());

const pass = () =>
  recycleDuePosts({ pool: t.container.pool, posts: t.container.posts, clock, logger: t.container.logger });

/** A post created through the API, then marked published as the engine would leave it. */
async function publishedPost(body: Record<string, unknown> = {}, k = key): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key: k,
    payload: {
      content: `Evergreen ${++n}`,
      platforms: ['bluesky'],
      schedule_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
      ...body,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.post_id as string;
  await t.container.pool.query(`UPDATE posts SET status = 'published', published_at = now() WHERE id = $1;`, [id]);
  await t.container.pool.query(
    `UPDATE post_targets SET status = 'published', published_at = now() WHERE post_id = $1`,
    [id],
  );
  return id;
}

async function recycle(id: string, body: Record<string, unknown>, k = key) {
  return t.inject({ method: 'POST', url: `/v1/posts/${id}/recycle`, key: k, payload: body });
}

async function copiesOf(id: string) {
  const { rows } = await t.container.pool.query<{ id: string; content: string; schedule_at: Date; status: string }>(
    'SELECT id, content, schedule_at, status FROM posts WHERE recycled_from = $1 ORDER BY schedule_at',
    [id],
  );
  return rows;
}

describe('the rule', () => {
  test('POST /v1/posts/{id}/recycle makes a rule the post shows; DELETE stops it, and again is the same answer', async () => {
    const id = await publishedPost();
    const res = await recycle(id, { every_days: 3, times: 2 });
    assert.equal(res.statusCode, 201, res.body);
    const rule = res.json().data.recycle;
    assert.equal(rule.status, 'active');
    assert.equal(rule.vary, 'none');
    assert.equal(rule.done, 0);
    const firstAt = new Date(rule.next_at).getTime() - clock.now().getTime();
    assert.ok(Math.abs(firstAt - 3 * DAY) < 60_000, 'the first copy is every_days from now');
    const post = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
    assert.equal(post.recycle.status, 'active');
    assert.equal(post.recycled_from, null);

    const stop = await t.inject({ method: 'DELETE', url: `/v1/posts/${id}/recycle`, key });
    assert.equal(stop.statusCode, 200, stop.body);
    assert.equal(stop.json().data.recycle.status, 'stopped');
    assert.equal(stop.json().data.recycle.next_at, null);
    const again = await t.inject({ method: 'DELETE', url: `/v1/posts/${id}/recycle`, key });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().data.recycle.status, 'stopped');

    const never = await publishedPost();
    const none = await t.inject({ method: 'DELETE', url: `/v1/posts/${never}/recycle`, key });
    assert.equal(none.statusCode, 200, none.body);
    assert.equal(none.json().data.recycle, null);
  });

  test('a post that is not published gets 409 PUBLIC_API_STATE_CONFLICT', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'Only a draft', platforms: ['bluesky'] },
    });
    const draft = res.json().data.post_id as string;
    const refused = await recycle(draft, { every_days: 1, times: 1 });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
  });

  test('ranges, until and variants are 422s naming the rule', async () => {
    const id = await publishedPost();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ every_days: 0, times: 1 }, 'every_days_too_small'],
      [{ every_days: 1, times: 0 }, 'times_out_of_range'],
      [{ every_days: 1, times: 101 }, 'times_out_of_range'],
      [{ every_days: 1, times: 2, until: new Date(clock.now().getTime() - 1000).toISOString() }, 'until_in_past'],
      [
        { every_days: 5, times: 2, until: new Date(clock.now().getTime() + 2 * DAY).toISOString() },
        'until_before_first_copy',
      ],
      [{ every_days: 1, times: 2, vary: 'rotate_variants' }, 'variants_required'],
      [{ every_days: 1, times: 2, vary: 'rotate_variants', variants: [] }, 'variants_required'],
      [{ every_days: 1, times: 2, vary: 'none', variants: ['Again'] }, 'variants_need_rotation'],
    ];
    for (const [body, rule] of cases) {
      const res = await recycle(id, body);
      assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_VALIDATION_FAILED');
      assert.ok(
        res.json().error.details.some((d: { rule: string }) => d.rule === rule),
        `${rule} in ${res.body}`,
      );
    }
  });

  test("a variant too long for a target platform is a 422 naming the variant and the platform's rule", async () => {
    const id = await publishedPost({ platforms: ['bluesky'] });
    const res = await recycle(id, { every_days: 1, times: 2, variants: ['Short one', 'x'.repeat(400)] });
    assert.equal(res.statusCode, 422, res.body);
    const detail = res.json().error.details[0];
    assert.equal(detail.platform, 'bluesky');
    assert.equal(detail.path, '/variants/1');
  });

  test('X refuses a repeated text: vary none is a 422 duplicate_text naming X; variants that never repeat pass', async () => {
    const id = await publishedPost({ platforms: ['x', 'bluesky'] });
    const refused = await recycle(id, { every_days: 2, times: 3 });
    assert.equal(refused.statusCode, 422, refused.body);
    const details = refused.json().error.details as Array<{ rule: string; platform: string }>;
    assert.deepEqual(
      details.map((d) => [d.rule, d.platform]),
      [['duplicate_text', 'x']],
      'named for X only: Bluesky has no duplicate rule',
    );
    const single = await recycle(id, { every_days: 2, times: 3, variants: ['Only one'] });
    assert.equal(single.statusCode, 422, 'one variant for three copies repeats itself on X');
    const ok = await recycle(id, { every_days: 2, times: 3, variants: ['Take one', 'Take two'] });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().data.recycle.vary, 'rotate_variants');
    await t.inject({ method: 'DELETE', url: `/v1/posts/${id}/recycle`, key });
  });

  test('another workspace sees no such post', async () => {
    const id = await publishedPost();
    const other = await t.workspace('test');
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const res = await recycle(id, { every_days: 1, times: 1 }, otherKey);
    assert.equal(res.statusCode, 404, res.body);
    const stop = await t.inject({ method: 'DELETE', url: `/v1/posts/${id}/recycle`, key: otherKey });
    assert.equal(stop.statusCode, 404, stop.body);
    const post = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
    assert.equal(post.recycle, null, 'nothing was made for the owner');
  });
});

describe('the copies', () => {
  test('exactly `times` copies, each at its time, rotating the variants, then the rule is finished', async () => {
    const start = offset;
    const id = await publishedPost({ platforms: ['x'], content: 'The original' });
    const res = await recycle(id, { every_days: 2, times: 3, variants: ['Variant A', 'Variant B'] });
    assert.equal(res.statusCode, 201, res.body);
    const firstAt = new Date(res.json().data.recycle.next_at).getTime();
    await pass();
    assert.equal((await copiesOf(id)).length, 0, 'nothing before the first copy is due');
    for (let i = 1; i <= 4; i++) {
      offset = start + i * 2 * DAY - 30 * 60_000; // within the hour before the copy's time
      await pass();
    }
    const copies = await copiesOf(id);
    assert.deepEqual(
      copies.map((c) => c.content),
      ['Variant A', 'Variant B', 'Variant A'],
    );
    assert.deepEqual(
      copies.map((c) => c.schedule_at.getTime() - firstAt),
      [0, 2 * DAY, 4 * DAY],
      'each copy at its occurrence',
    );
    assert.ok(copies.every((c) => c.status === 'scheduled'));
    const post = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
    assert.equal(post.recycle.status, 'finished');
    assert.equal(post.recycle.done, 3);
    assert.equal(post.recycle.last_copy_id, copies[2]!.id);
    const copy = (await t.inject({ url: `/v1/posts/${copies[0]!.id}`, key })).json().data;
    assert.equal(copy.recycled_from, id);
    assert.equal(copy.created_via, 'api');

    const from = new Date(firstAt - DAY).toISOString();
    const to = new Date(firstAt + 5 * DAY).toISOString();
    const cal = await t.inject({ url: `/v1/calendar/events?from=${from}&to=${to}&type=post`, key });
    assert.equal(cal.statusCode, 200, cal.body);
    const family = (cal.json().data.items as Array<{ post_id: string; recycled_from: string | null }>).filter(
      (e) => e.recycled_from === id,
    );
    assert.equal(family.length, 3, 'the copies are on the calendar as one family');

    const listed = await t.inject({ url: `/v1/posts?recycled_from=${id}&sort=schedule_at&limit=2`, key });
    assert.equal(listed.statusCode, 200, listed.body);
    const page = listed.json().data as { items: Array<{ id: string }>; next_cursor: string };
    const rest = (
      await t.inject({ url: `/v1/posts?recycled_from=${id}&sort=schedule_at&cursor=${page.next_cursor}`, key })
    ).json().data as { items: Array<{ id: string }>; has_more: boolean };
    assert.deepEqual(
      [...page.items, ...rest.items].map((p) => p.id),
      copies.map((c) => c.id),
      'the copies, and only them, page by page',
    );
    assert.equal(rest.has_more, false);
  });

  test('two passes at once make each due copy once', async () => {
    const start = offset;
    const ids = await Promise.all([publishedPost(), publishedPost(), publishedPost()]);
    for (const id of ids) assert.equal((await recycle(id, { every_days: 1, times: 5 })).statusCode, 201);
    offset = start + DAY;
    const made = await Promise.all([pass(), pass()]);
    assert.equal(made[0] + made[1], 3, `${made}`);
    for (const id of ids) assert.equal((await copiesOf(id)).length, 1);
    await Promise.all([pass(), pass()]);
    for (const id of ids) assert.equal((await copiesOf(id)).length, 1, 'the next occurrence is not due yet');
  });

  test('a stopped rule makes no further copy', async () => {
    const start = offset;
    const id = await publishedPost();
    await recycle(id, { every_days: 1, times: 3 });
    offset = start + DAY;
    await pass();
    await t.inject({ method: 'DELETE', url: `/v1/posts/${id}/recycle`, key });
    offset = start + 3 * DAY;
    await pass();
    assert.equal((await copiesOf(id)).length, 1);
  });

  test('a copy the posts service refuses stops the rule with its error; a copy of a copy is of the first family', async () => {
    const start = offset;
    const id = await publishedPost();
    assert.equal((await recycle(id, { every_days: 1, times: 3 })).statusCode, 201);
    offset = start + DAY - 30 * 60_000;
    await pass();
    const [copy] = await copiesOf(id);
    assert.ok(copy);
    await t.container.pool.query(`UPDATE posts SET status = 'published' WHERE id = $1`, [copy.id]);
    assert.equal((await recycle(copy.id, { every_days: 1, times: 1 })).statusCode, 201);
    // The original now breaks Bluesky's length rule, as a brand rule or a removed connection might make it fail.
    await t.container.pool.query('UPDATE posts SET content = $2 WHERE id = $1', [id, 'y'.repeat(400)]);
    offset = start + 2 * DAY - 30 * 60_000;
    await pass();
    const rule = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data.recycle;
    assert.equal(rule.status, 'stopped');
    assert.equal(rule.done, 1);
    assert.equal(rule.error.code, 'PUBLIC_API_VALIDATION_FAILED');
    const family = await copiesOf(id);
    assert.equal(family.length, 2, 'the copy of the copy joined the family, the refused copy left nothing');
    assert.ok(family.some((c) => c.id === copy.id));
  });

  test('a post added to a queue is recycled into the same queue', async () => {
    const start = offset;
    const hours = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);
    const slots = [0, 1, 2, 3, 4, 5, 6].flatMap((d) =>
      hours.map((time) => ({ day_of_week: d, time, timezone: 'UTC' })),
    );
    const q = await t.inject({ method: 'POST', url: '/v1/queues', key, payload: { name: 'evergreen', slots } });
    assert.equal(q.statusCode, 201, q.body);
    const queueId = q.json().data.id as string;
    const id = await publishedPost({ schedule_at: undefined, queue: 'next', queue_id: queueId });
    assert.equal((await recycle(id, { every_days: 1, times: 1 })).statusCode, 201);
    offset = start + DAY - 30 * 60_000;
    await pass();
    const [copy] = await copiesOf(id);
    assert.ok(copy, 'the copy was made');
    const view = (await t.inject({ url: `/v1/posts/${copy.id}`, key })).json().data;
    assert.equal(view.queue_id, queueId);
    assert.equal(view.schedule_at, view.queue_slot, 'it holds a slot of the queue');
  });

  test("the worker's recycle_posts task runs the pass", async () => {
    const start = offset;
    const id = await publishedPost();
    assert.equal((await recycle(id, { every_days: 1, times: 1 })).statusCode, 201);
    offset = start + DAY - 30 * 60_000;
    const task = taskList(t.container).recycle_posts as unknown as () => Promise<void>;
    await task();
    assert.equal((await copiesOf(id)).length, 1);
  });

  test('analytics summary ?family= counts the original and its copies only', async () => {
    const base = { workspaceId: t.owner.workspaceId, brandId: t.owner.brandId };
    const at = new Date(clock.now().getTime() - DAY);
    const seed = (likes: number) =>
      seedPublishedPost(t.container.pool, {
        ...base,
        publishedAt: at,
        targets: [{ platform: 'bluesky', readings: [{ at, metrics: { likes } }] }],
      });
    const original = await seed(10);
    const copy = await seed(5);
    await seed(1000); // not of the family
    await t.container.pool.query('UPDATE posts SET recycled_from = $1 WHERE id = $2', [original.postId, copy.postId]);
    const window = `from=${new Date(at.getTime() - DAY).toISOString()}&to=${clock.now().toISOString()}`;
    const res = await t.inject({ url: `/v1/analytics/summary?family=${original.postId}&${window}`, key });
    assert.equal(res.statusCode, 200, res.body);
    const { totals } = res.json().data;
    assert.equal(totals.posts, 2);
    assert.equal(totals.metrics.likes, 15);
  });
});
