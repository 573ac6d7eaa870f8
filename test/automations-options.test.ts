// Content automations' options and per-destination text (docs/automations.md "The automation"), through the public
// API: `use_item_image` attaches a feed item's image (an RSS enclosure, an Atom media:content) as media by URL and
// nothing without it; `content_override` is that destination's platform text; `max_items_per_run` caps a run and
// leaves the rest to the next; `utm` and `hashtags` shape the text; an event source on `post.published` runs once
// per event, not again when the outbox is read again, and not for the posts it made itself; every event automation
// is read, past the scheduler's batch. Feeds and their images are served over local HTTP through the SSRF guard's
// allow-list; one worker runs the jobs, the test polls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { scheduleDueAutomations } from '../src/features/automations/automations.scheduler.ts';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, type MediaTestApp } from './helpers/media.ts';
import { png } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';
import { PUBLISHING_ENV } from './helpers/publishing.ts';
import { fakeDns } from './helpers/webhooks.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;
let feedServer: http.Server;
let origin: string;
/** Each feed path's body, set by the test that polls it. */
const feeds = new Map<string, { type: string; body: string }>();

before(async () => {
  feedServer = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://feeds.test').pathname;
    if (path === '/img/cover.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png(64, 48));
    const feed = feeds.get(path);
    if (!feed) return void res.writeHead(404).end('no such feed');
    res.writeHead(200, { 'content-type': feed.type }).end(feed.body);
  });
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  origin = `http://feeds.test:${(feedServer.address() as AddressInfo).port}`;
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildMediaTestApp({
    lookup: fakeDns({ 'feeds.test': ['127.0.0.1'], 'private.example': ['10.0.0.7'] }),
    env: { ...PUBLISHING_ENV, HERALD_SANDBOX_URL: sandbox.url, HERALD_OUTBOUND_ALLOWLIST: 'feeds.test' },
  });
  key = await t.key();
  worker = await startWorker(t.container);
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
  await new Promise<void>((resolve) => feedServer.close(() => resolve()));
});

interface Entry {
  guid: string;
  title: string;
  /** Days after 2024-01-01: the feed's dates, so "oldest first" is the date order. */
  day?: number;
  image?: string;
}

const pubDate = (e: Entry) => new Date(Date.UTC(2024, 0, 1 + (e.day ?? 0))).toUTCString();

/** An RSS 2.0 feed; an item's image is an `<enclosure>` of type image/png. */
function rss(entries: Entry[]): string {
  const items = entries.map(
    (e) =>
      `<item><guid>${e.guid}</guid><title>${e.title}</title><link>${origin}/p/${e.guid}</link>` +
      `<pubDate>${pubDate(e)}</pubDate>` +
      (e.image ? `<enclosure url="${e.image}" type="image/png" length="100"/>` : '') +
      '</item>',
  );
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>${origin}/</link>${items.join('')}</channel></rss>`;
}

/** An Atom feed; an item's image is a Media RSS `<media:content medium="image">`. */
function atom(entries: Entry[]): string {
  const items = entries.map(
    (e) =>
      `<entry><id>${e.guid}</id><title>${e.title}</title><link href="${origin}/p/${e.guid}"/>` +
      `<updated>${new Date(Date.UTC(2024, 0, 1 + (e.day ?? 0))).toISOString()}</updated>` +
      (e.image ? `<media:content url="${e.image}" medium="image" type="image/png"/>` : '') +
      '</entry>',
  );
  return (
    '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">' +
    `<title>Blog</title><id>${origin}/</id><updated>2024-02-01T00:00:00Z</updated>${items.join('')}</feed>`
  );
}

function serveFeed(path: string, format: 'rss' | 'atom', entries: Entry[]): string {
  feeds.set(path, {
    type: format === 'rss' ? 'application/rss+xml' : 'application/atom+xml',
    body: format === 'rss' ? rss(entries) : atom(entries),
  });
  return `${origin}${path}`;
}

type Run = { status: string; items_seen: number; items_new: number; posts_created: string[]; error: unknown };
type Post = {
  id: string;
  content: string;
  status: string;
  created_via: string;
  platform_options: Record<string, { content?: string }>;
  media: { id: string; status: string; source_url: string | null }[];
  targets: { platform: string; url: string | null }[];
};

async function create(body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/v1/automations', key, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; options: Record<string, unknown> };
}

async function runsOf(id: string): Promise<Run[]> {
  const res = await t.inject({ url: `/v1/automations/${id}/runs`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.items;
}

/** Waits until `n` runs of the automation have finished; newest first. */
function finishedRuns(id: string, n: number): Promise<Run[]> {
  return pollFor(`${n} finished runs of ${id}`, async () => {
    const runs = await runsOf(id);
    return runs.filter((r) => !['queued', 'running'].includes(r.status)).length >= n ? runs : undefined;
  });
}

async function getPost(id: string): Promise<Post> {
  const res = await t.inject({ url: `/v1/posts/${id}`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** One scheduler pass with its clock a minute ahead: a feed made due polls, and events are read once settled. */
const schedule = () =>
  scheduleDueAutomations({
    pool: t.container.pool,
    clock: { now: () => new Date(Date.now() + 60_000) },
    batchSize: 100,
    rssPollMinutes: 15,
  });

const makeDue = (id: string) =>
  t.container.pool.query(`UPDATE automations SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [id]);

/** The feed's next poll: made due now, then one scheduler pass; answers the finished runs, newest first. */
async function poll(id: string, n: number, status = 'completed'): Promise<Run[]> {
  await makeDue(id);
  await schedule();
  const runs = await finishedRuns(id, n);
  assert.equal(runs[0]!.status, status, JSON.stringify(runs[0]));
  return runs;
}

const feedAutomation = (feedUrl: string, extra: Record<string, unknown> = {}) => ({
  name: 'Feed',
  source: { type: 'rss', feed_url: feedUrl },
  generator: { type: 'template' },
  destinations: [{ platform: 'linkedin' }],
  ...extra,
});

describe('use_item_image', () => {
  for (const format of ['rss', 'atom'] as const) {
    test(`${format}: the item's image is attached to the post as media by URL, and fetched`, async () => {
      const image = `${origin}/img/cover.png`;
      const url = serveFeed(`/${format}-image.xml`, format, [{ guid: `${format}-img-1`, title: 'Cover story', image }]);
      const a = await create(feedAutomation(url, { options: { use_item_image: true, backfill: true } }));
      const [run] = await poll(a.id, 1);
      assert.equal(run!.posts_created.length, 1, JSON.stringify(run));
      const post = await getPost(run!.posts_created[0]!);
      assert.equal(post.media.length, 1, JSON.stringify(post.media));
      assert.equal(post.media[0]!.source_url, image);
      const media = await pollFor(`the ${format} item's image fetched`, async () => {
        const res = await t.inject({ url: `/v1/media/${post.media[0]!.id}`, key });
        const m = res.json().data as { status: string };
        return m.status === 'processing' ? undefined : m;
      });
      assert.equal(media.status, 'ready', JSON.stringify(media));
    });
  }

  test('off (the default): the same item makes a post without media', async () => {
    const url = serveFeed('/no-image.xml', 'rss', [
      { guid: 'plain-1', title: 'Cover story', image: `${origin}/img/cover.png` },
    ]);
    const a = await create(feedAutomation(url, { options: { backfill: true } }));
    assert.equal(a.options.use_item_image, false);
    const [run] = await poll(a.id, 1);
    assert.equal(run!.posts_created.length, 1, JSON.stringify(run));
    assert.deepEqual((await getPost(run!.posts_created[0]!)).media, []);
  });

  test('an image the SSRF guard refuses refuses the post: the run fails saying why, and leaves no media', async () => {
    const url = serveFeed('/private-image.xml', 'rss', [
      { guid: 'priv-1', title: 'Inside', image: 'https://private.example/cover.png' },
    ]);
    const a = await create(feedAutomation(url, { options: { use_item_image: true, backfill: true } }));
    const [run] = await poll(a.id, 1, 'failed');
    assert.match(JSON.stringify(run!.error), /posts_refused.*url_address_blocked/);
    const media = await t.container.pool.query('SELECT count(*)::int AS n FROM media WHERE source_url LIKE $1', [
      'https://private.example/%',
    ]);
    assert.equal(media.rows[0].n, 0);
  });
});

describe('content_override', () => {
  test('the destination with an override gets its own text; the others the generated one', async () => {
    const url = serveFeed('/override.xml', 'rss', [{ guid: 'ov-1', title: 'Launch day' }]);
    const a = await create(
      feedAutomation(url, {
        generator: { type: 'template', template: 'New on the blog: {{item.title}} {{item.url}}' },
        destinations: [{ platform: 'linkedin' }, { platform: 'x', content_override: 'Short: {{item.title}}' }],
        options: { backfill: true },
      }),
    );
    const [run] = await poll(a.id, 1);
    const post = await getPost(run!.posts_created[0]!);
    assert.deepEqual(post.targets.map((x) => x.platform).sort(), ['linkedin', 'x']);
    assert.equal(post.content, `New on the blog: Launch day ${origin}/p/ov-1`);
    assert.equal(post.platform_options.x?.content, 'Short: Launch day');
    assert.equal(post.platform_options.linkedin?.content, undefined);
  });

  test('an override on the first destination becomes the content, and the other platform keeps the template', async () => {
    const a = await create({
      name: 'Library override',
      source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'UTC' },
      generator: { type: 'library', items: ['A long tip about planning your week.'] },
      destinations: [{ platform: 'x', content_override: 'Tip of the day on {{brand.name}}' }, { platform: 'linkedin' }],
    });
    const res = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/trigger`, key });
    assert.equal(res.statusCode, 202, res.body);
    const [run] = await finishedRuns(a.id, 1);
    assert.equal(run!.status, 'completed', JSON.stringify(run));
    const post = await getPost(run!.posts_created[0]!);
    assert.match(post.content, /^Tip of the day on \S/);
    assert.equal(post.platform_options.linkedin?.content, 'A long tip about planning your week.');
  });
});

describe('max_items_per_run', () => {
  test('a run posts at most the cap, oldest first; the next polls post the rest, each item once', async () => {
    const entries: Entry[] = [1, 2, 3, 4, 5].map((n) => ({ guid: `cap-${n}`, title: `Item ${n}`, day: n }));
    // The feed lists the newest first, as feeds do.
    const url = serveFeed('/capped.xml', 'rss', [...entries].reverse());
    const a = await create(feedAutomation(url, { options: { max_items_per_run: 2, backfill: true } }));
    const titles = async (run: Run) =>
      Promise.all(run.posts_created.map(async (id) => (await getPost(id)).content.split('\n')[0]));
    let runs = await poll(a.id, 1);
    assert.deepEqual(await titles(runs[0]!), ['Item 1', 'Item 2']);
    assert.equal(runs[0]!.items_seen, 5);
    assert.equal(runs[0]!.items_new, 2);
    runs = await poll(a.id, 2);
    assert.deepEqual(await titles(runs[0]!), ['Item 3', 'Item 4']);
    runs = await poll(a.id, 3);
    assert.deepEqual(await titles(runs[0]!), ['Item 5']);
    runs = await poll(a.id, 4);
    assert.deepEqual(runs[0]!.posts_created, [], 'nothing left to post');
  });

  test('without the option a run posts at most 5', async () => {
    const entries: Entry[] = Array.from({ length: 7 }, (_, i) => ({ guid: `dflt-${i}`, title: `D${i}`, day: i }));
    const a = await create(
      feedAutomation(serveFeed('/default-cap.xml', 'rss', entries), { options: { backfill: true } }),
    );
    assert.equal(a.options.max_items_per_run, 5);
    const [run] = await poll(a.id, 1);
    assert.equal(run!.posts_created.length, 5);
    const [next] = await poll(a.id, 2);
    assert.equal(next!.posts_created.length, 2);
  });
});

describe('utm and hashtags', () => {
  test('the link carries the given UTM parameters and the hashtags close the post', async () => {
    const url = serveFeed('/tagged.xml', 'rss', [{ guid: 'tag-1', title: 'Tagged' }]);
    const a = await create(
      feedAutomation(url, {
        destinations: [{ platform: 'linkedin' }, { platform: 'x', content_override: '{{item.title}} {{item.url}}' }],
        options: {
          backfill: true,
          utm: { source: 'herald', medium: 'feed', campaign: 'spring' },
          hashtags: ['#launch', '#news'],
        },
      }),
    );
    const [run] = await poll(a.id, 1);
    const post = await getPost(run!.posts_created[0]!);
    const link = `${origin}/p/tag-1?utm_source=herald&utm_medium=feed&utm_campaign=spring`;
    assert.equal(post.content, `Tagged\n\n${link}\n\n#launch #news`);
    assert.equal(post.platform_options.x?.content, `Tagged ${link}\n\n#launch #news`);
  });

  test('utm_source defaults to each destination’s platform', async () => {
    const url = serveFeed('/per-platform.xml', 'rss', [{ guid: 'pp-1', title: 'Per platform' }]);
    const a = await create(
      feedAutomation(url, {
        destinations: [{ platform: 'linkedin' }, { platform: 'x' }],
        options: { backfill: true, utm: {} },
      }),
    );
    const [run] = await poll(a.id, 1);
    const post = await getPost(run!.posts_created[0]!);
    const link = (source: string) => `${origin}/p/pp-1?utm_source=${source}&utm_medium=social&utm_campaign=automation`;
    assert.equal(post.content, `Per platform\n\n${link('linkedin')}`);
    assert.equal(post.platform_options.x?.content, `Per platform\n\n${link('x')}`);
  });
});

describe('an event source on post.published', () => {
  test('runs once per published post, not again when the outbox is read again, nor for its own posts', async () => {
    const a = await create({
      name: 'Cross-post',
      source: { type: 'event', event: 'post.published' },
      generator: { type: 'template', template: 'Just published: {{item.summary}} {{item.url}}' },
      destinations: [{ platform: 'linkedin' }],
      output: { mode: 'publish_now' },
    });
    const made = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'Our spring collection is out.', platforms: ['x'], publish_now: true },
    });
    assert.equal(made.statusCode, 201, made.body);
    const postId = made.json().data.post.id as string;
    const original = await pollFor('the post published', async () => {
      const p = await getPost(postId);
      return p.status === 'published' ? p : undefined;
    });
    await schedule();
    const [run] = await finishedRuns(a.id, 1);
    assert.equal(run!.status, 'completed', JSON.stringify(run));
    assert.equal(run!.posts_created.length, 1);
    const echo = await getPost(run!.posts_created[0]!);
    assert.equal(echo.content, `Just published: Our spring collection is out. ${original.targets[0]!.url}`);
    assert.equal(echo.created_via, 'automation');
    // Its own post publishes too: a post.published the automation must not answer (a loop).
    await pollFor('the automation’s post published', async () => (await getPost(echo.id)).status === 'published');
    // The outbox read again from before the event (a cursor moved back): the slot is taken, no second run.
    await t.container.pool.query(`UPDATE automations SET event_cursor = 'evt_' WHERE id = $1`, [a.id]);
    await schedule();
    await schedule();
    const runs = await runsOf(a.id);
    assert.equal(runs.length, 1, JSON.stringify(runs));
    const published = await t.container.pool.query(
      `SELECT count(*)::int AS n FROM events WHERE type = 'post.published' AND data->>'id' = ANY($1)`,
      [[postId, echo.id]],
    );
    assert.equal(published.rows[0].n, 2, 'both posts were published, one run answered them');
  });
});

describe('event sources beyond one scheduler batch', () => {
  test('every event automation is read, not only the first batch; the default template posts the event’s text', async () => {
    const made = [];
    for (const name of ['Echo one', 'Echo two', 'Echo three'])
      made.push(
        await create({
          name,
          source: { type: 'event', event: 'post.scheduled' },
          generator: { type: 'template' },
          destinations: [{ platform: 'linkedin' }],
        }),
      );
    const scheduled = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'See you at the fair.', platforms: ['x'], schedule_at: new Date(Date.now() + 86_400_000) },
    });
    assert.equal(scheduled.statusCode, 201, scheduled.body);
    // A batch of one: the pass pages through the event automations instead of reading the first one again.
    await scheduleDueAutomations({
      pool: t.container.pool,
      clock: { now: () => new Date(Date.now() + 60_000) },
      batchSize: 1,
      rssPollMinutes: 15,
    });
    for (const a of made) {
      const [run] = await finishedRuns(a.id, 1);
      assert.equal(run!.status, 'completed', JSON.stringify(run));
      assert.equal(run!.posts_created.length, 1);
      assert.equal((await getPost(run!.posts_created[0]!)).content, 'See you at the fair.');
    }
  });
});
