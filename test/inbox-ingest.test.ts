// The inbox ingestion against the simulators (docs/inbox.md "Ingestion", "Test mode"): comments injected on a
// published sandbox post are ingested once, linked to the Herald post, and never doubled — not by a second pass,
// not by a lost cursor (a restart); the cursor advances; a rate limit backs the source off until the platform's
// reset and shows in its health; the simulators' trickle adds comments as their clock moves; one workspace's
// ingestion never touches another's. Time is moved by passing `now`, not by waiting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ingestDue, type IngestDeps } from '../src/features/inbox/ingest.ts';
import { sourcesOf } from '../src/features/inbox/ingest.repo.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { inboxRows, handleOf } from './helpers/inbox-ingest.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;
let offset = 0;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret(), now: () => Date.now() + offset });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
const MINUTE = 60_000;

function deps(maxPages = 10): IngestDeps {
  const c = t.container;
  return {
    pool: c.pool,
    access: c.platformAccess,
    logger: c.logger,
    clock: c.clock,
    pollSeconds: 120,
    batchSize: 500,
    maxPages,
  };
}

/** A pass at `now` (the simulators' clock moved to the same moment). */
function ingestAt(now: Date, maxPages?: number) {
  offset = now.getTime() - Date.now();
  return ingestDue(deps(maxPages), { now });
}

let clock = Date.now();
/** Each pass a poll interval (and a bit) after the previous one, so every source is due. */
const nextPass = (maxPages?: number) => ingestAt(new Date((clock += 3 * MINUTE)), maxPages);

async function publishX(text: string) {
  offset = clock - Date.now();
  const post = await settled(
    (await create({ content: text, platforms: ['x', 'mastodon'], publish_now: true })).id,
    text,
  );
  assert.equal(post.status, 'published');
  return post;
}

describe('inbox ingestion', () => {
  test('comments are ingested once, linked to the post, and a lost cursor (restart) doubles nothing', async () => {
    const post = await publishX(`Inbox ${Date.now()}`);
    const xTarget = post.targets.find((x) => x.platform === 'x')!;
    const account = await handleOf(t, t.connections.x!);
    const injected = await sandbox.simulator('x').inject({
      account,
      kind: 'comment',
      post_id: xTarget.platform_post_id!,
      text: 'How much is it?',
      count: 3,
    });
    assert.ok('ids' in injected, JSON.stringify(injected));

    const first = await nextPass();
    assert.ok(first.created >= 3, JSON.stringify(first));
    let rows = await inboxRows(t, t.connections.x!);
    assert.equal(rows.length, 3);
    for (const r of rows) {
      assert.equal(r.kind, 'comment');
      assert.equal(r.post_id, post.id, 'linked to the Herald post by its platform post id');
      assert.equal(r.platform_post_id, xTarget.platform_post_id);
      assert.equal(r.status, 'open');
      assert.equal(r.workspace_id, t.owner.workspaceId);
      assert.ok(r.author.username);
    }

    await nextPass();
    assert.equal((await inboxRows(t, t.connections.x!)).length, 3, 'a second pass creates nothing');

    // A restart that lost the cursor reads everything again: the unique key keeps one row per item.
    await t.container.pool.query(`UPDATE inbox_sources SET cursor = NULL WHERE connection_id = $1`, [t.connections.x]);
    await nextPass();
    rows = await inboxRows(t, t.connections.x!);
    assert.equal(rows.length, 3, 'nothing doubled after the cursor was lost');

    // The cursor advances: two more, and only those two are new.
    await sandbox.simulator('x').inject({ account, kind: 'reply', parent_id: injected.ids[0], count: 2 });
    await nextPass();
    rows = await inboxRows(t, t.connections.x!);
    assert.equal(rows.length, 5);
    assert.equal(rows.filter((r) => r.kind === 'reply').length, 2);
    const [source] = (await sourcesOf(t.container.pool, t.owner.workspaceId, t.connections.x!)).filter(
      (s) => s.stream === 'mentions',
    );
    assert.equal(source!.itemsIngested, 5);
    assert.ok(source!.cursor && typeof source!.cursor.since === 'string');
  });

  test('more than a page is read in one poll, page by page', async () => {
    const account = await handleOf(t, t.connections.x!);
    const before = (await inboxRows(t, t.connections.x!)).length;
    await sandbox.simulator('x').inject({ account, kind: 'mention', count: 230 });
    await nextPass();
    assert.equal((await inboxRows(t, t.connections.x!)).length, before + 230);
  });

  test('Mastodon: mentions, replies and direct messages by kind', async () => {
    const account = await handleOf(t, t.connections.mastodon!);
    await sandbox.simulator('mastodon').inject({ account, kind: 'comment', count: 2 });
    await sandbox.simulator('mastodon').inject({ account, kind: 'dm', text: 'Hi, a private question' });
    await sandbox.simulator('mastodon').inject({ account, kind: 'mention', text: 'Look at @them' });
    await nextPass();
    const rows = await inboxRows(t, t.connections.mastodon!);
    const kinds = rows.map((r) => r.kind).sort();
    assert.deepEqual(kinds, ['comment', 'comment', 'dm', 'mention']);
    const dm = rows.find((r) => r.kind === 'dm')!;
    assert.equal(dm.text, `@${account} Hi, a private question`);
    assert.equal(dm.post_id, null);
    assert.equal(dm.reply_window_ends_at, null, 'Mastodon sets no reply window');
  });

  test('a rate limit backs the source off until the reset, and the health shows it', async () => {
    const account = await handleOf(t, t.connections.x!);
    sandbox.simulator('x').faults.add({ fault: 'rate_limited', operation: 'list_inbox', retryAfterSeconds: 900 });
    const now = new Date((clock += 3 * MINUTE));
    const tally = await ingestAt(now);
    assert.equal(tally.rateLimited, 1);
    const health = async () =>
      (await sourcesOf(t.container.pool, t.owner.workspaceId, t.connections.x!)).find((s) => s.stream === 'mentions')!;
    let s = await health();
    assert.equal(s.consecutiveFailures, 1);
    assert.equal(s.lastError?.code, 'PLATFORM_RATE_LIMITED');
    // The reset is the simulator's (its clock runs `offset` ahead of this process's, which the header is read by).
    const wait = s.nextPollAt.getTime() - now.getTime();
    assert.ok(wait >= 890_000, `backs off until the reset (${wait} ms)`);
    const shown = await t.inject({ url: `/v1/connections/${t.connections.x}`, key });
    assert.equal(shown.statusCode, 200, shown.body);
    const mentions = shown.json().data.inbox.find((h: { stream: string }) => h.stream === 'mentions');
    assert.equal(mentions.healthy, false);
    assert.equal(mentions.consecutive_failures, 1);
    assert.equal(mentions.last_error.code, 'PLATFORM_RATE_LIMITED');

    // Not polled before then, even though items are waiting.
    await sandbox.simulator('x').inject({ account, kind: 'mention', count: 1 });
    const count = (await inboxRows(t, t.connections.x!)).length;
    await ingestAt(new Date(now.getTime() + 5 * MINUTE));
    assert.equal((await inboxRows(t, t.connections.x!)).length, count);

    // After the reset: polled, healthy again.
    clock = s.nextPollAt.getTime() + MINUTE;
    await ingestAt(new Date(clock));
    assert.equal((await inboxRows(t, t.connections.x!)).length, count + 1);
    s = await health();
    assert.equal(s.consecutiveFailures, 0);
    assert.equal(s.lastError, null);
    assert.ok(s.lastOkAt);
  });

  test('tenant isolation: another workspace ingests only its own connections', async () => {
    const other = await t.workspace('test');
    const { rows: theirs } = await t.container.pool.query<{ id: string; platform: string }>(
      `SELECT id, platform FROM connections WHERE workspace_id = $1 AND platform IN ('x', 'mastodon')`,
      [other.workspaceId],
    );
    const mine = (await inboxRows(t, t.connections.x!)).length;
    const theirX = theirs.find((c) => c.platform === 'x')!;
    await sandbox.simulator('x').inject({ account: await handleOf(t, theirX.id), kind: 'mention', count: 4 });
    await nextPass();
    const rows = await inboxRows(t, theirX.id);
    assert.equal(rows.length, 4);
    assert.ok(rows.every((r) => r.workspace_id === other.workspaceId));
    assert.equal((await inboxRows(t, t.connections.x!)).length, mine, "the other workspace's items are not ours");
    const { rows: leaked } = await t.container.pool.query(
      `SELECT 1 FROM inbox_items i JOIN connections c ON c.id = i.connection_id WHERE i.workspace_id <> c.workspace_id`,
    );
    assert.equal(leaked.length, 0);
  });

  test('the trickle adds comments to sandbox posts as the simulator clock moves, each once', async () => {
    const settings = sandbox.simulator('x').kit.settings;
    const before = await inboxRows(t, t.connections.x!);
    settings.inboxEverySeconds = 60;
    try {
      await nextPass();
      const trickled = (await inboxRows(t, t.connections.x!)).filter((r) => !before.some((b) => b.id === r.id));
      assert.ok(trickled.length > 0, 'comments appeared');
      assert.ok(trickled.every((r) => r.kind === 'comment' && r.post_id !== null));
      // The same moment again: nothing more is due, nothing is doubled.
      offset = clock - Date.now();
      await ingestDue(deps(), { now: new Date(clock + 3 * MINUTE) });
      const again = (await inboxRows(t, t.connections.x!)).length;
      assert.ok(again >= before.length + trickled.length);
      const ids = (await inboxRows(t, t.connections.x!)).map((r) => r.platform_item_id);
      assert.equal(new Set(ids).size, ids.length);
    } finally {
      delete settings.inboxEverySeconds;
    }
  });
});
