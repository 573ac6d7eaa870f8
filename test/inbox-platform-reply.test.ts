// Answering ingested items through the simulators (docs/inbox.md "Ingestion"): sendPlatformReply posts the answer
// where the platform shows it (a reply post on X, a reply or direct status on Mastodon), and turns the platform's
// faults into data — a deleted item and a closed reply window are rules (never retryable), a rate limit and an
// outage are retryable, a private reply where the platform has none is refused before any call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findItem } from '../src/features/inbox/inbox.repo.ts';
import { ingestDue } from '../src/features/inbox/ingest.ts';
import { sendPlatformReply, type PlatformReplyDeps } from '../src/features/inbox/platform-reply.ts';
import type { InboxItemRow } from '../src/features/inbox/inbox.types.ts';
import type { PlatformName } from '../src/platforms/limits.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { handleOf, inboxRows } from './helpers/inbox-ingest.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
  const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
  const post = await create({ content: `Reply path ${Date.now()}`, platforms: ['x', 'mastodon'], publish_now: true });
  assert.equal((await settled(post.id, 'published')).status, 'published');
});
after(async () => {
  await t.close();
  await sandbox.close();
});

function deps(): PlatformReplyDeps {
  const c = t.container;
  return { pool: c.pool, access: c.platformAccess, logger: c.logger, clock: c.clock };
}

let passes = 0;
/** Injects one item on the platform's simulator, ingests it, and returns its row. */
async function ingestOne(platform: PlatformName, kind: 'comment' | 'dm', text: string): Promise<InboxItemRow> {
  const connectionId = t.connections[platform]!;
  const injected = await sandbox.simulator(platform).inject({ account: await handleOf(t, connectionId), kind, text });
  assert.ok('ids' in injected, JSON.stringify(injected));
  const c = t.container;
  await ingestDue(
    {
      pool: c.pool,
      access: c.platformAccess,
      logger: c.logger,
      clock: c.clock,
      pollSeconds: 60,
      batchSize: 100,
      maxPages: 5,
    },
    { now: new Date(Date.now() + ++passes * 10 * 60_000) },
  );
  const row = (await inboxRows(t, connectionId)).find((r) => r.platform_item_id === injected.ids[0]);
  assert.ok(row, 'ingested');
  return (await findItem(c.pool, t.owner.workspaceId, row.id))!;
}

const cases: Array<{ platform: PlatformName; deleted: string; window?: string }> = [
  { platform: 'x', deleted: 'item_deleted', window: 'reply_window_closed' },
  { platform: 'mastodon', deleted: 'item_deleted' },
];

describe('sendPlatformReply', () => {
  for (const { platform, deleted, window } of cases) {
    test(`${platform}: the answer appears on the simulator, replying to the item`, async () => {
      const item = await ingestOne(platform, 'comment', 'Is this in stock?');
      const text = `Yes, it is! ${Date.now()}`;
      const result = await sendPlatformReply(deps(), item, text);
      assert.ok(result.ok, JSON.stringify(result));
      const posts = await sandbox.simulator(platform).posts();
      const answer = posts.find((p) => p.id === result.platformReplyId)!;
      assert.equal(answer.replyTo, item.platformItemId);
      assert.ok(answer.text.includes(text));
    });

    test(`${platform}: a deleted item is the rule ${deleted}, never retryable`, async () => {
      const item = await ingestOne(platform, 'comment', 'Delete me');
      sandbox.simulator(platform).faults.add({ fault: 'item_deleted', operation: 'create_post' });
      const result = await sendPlatformReply(deps(), item, 'Too late');
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.rule === deleted && result.code === 'PLATFORM_ITEM_DELETED' && !result.retryable);
    });

    if (window)
      test(`${platform}: a closed reply window is the rule ${window}`, async () => {
        const item = await ingestOne(platform, 'comment', 'Window');
        sandbox.simulator(platform).faults.add({ fault: 'reply_window_closed', operation: 'create_post' });
        const result = await sendPlatformReply(deps(), item, 'Closed?');
        assert.ok(!result.ok && result.rule === window && result.code === 'PLATFORM_REPLY_WINDOW_CLOSED');
      });

    test(`${platform}: a rate limit and an outage are retryable`, async () => {
      const item = await ingestOne(platform, 'comment', 'Busy');
      sandbox.simulator(platform).faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 5 });
      const limited = await sendPlatformReply(deps(), item, 'Now?');
      assert.ok(!limited.ok && limited.retryable && limited.code === 'PLATFORM_RATE_LIMITED', JSON.stringify(limited));
      sandbox.simulator(platform).faults.add({ fault: 'server_error', operation: 'create_post' });
      const down = await sendPlatformReply(deps(), item, 'And now?');
      assert.ok(!down.ok && down.retryable, JSON.stringify(down));
    });
  }

  test('mastodon: a DM is answered with a direct status addressed to its author', async () => {
    const item = await ingestOne('mastodon', 'dm', 'Can I ask privately?');
    assert.equal(item.kind, 'dm');
    const result = await sendPlatformReply(deps(), item, 'Of course.');
    assert.ok(result.ok, JSON.stringify(result));
    const answer = (await sandbox.simulator('mastodon').posts()).find((p) => p.id === result.platformReplyId)!;
    assert.equal(answer.text, `@${item.author.username} Of course.`);
  });

  test('x: a private reply is refused before any call (X gives Herald no DMs)', async () => {
    const item = await ingestOne('x', 'comment', 'DM me');
    const result = await sendPlatformReply(deps(), item, 'Sent you a DM', { private: true });
    assert.ok(!result.ok && result.rule === 'private_reply_unsupported' && !result.retryable);
  });

  test('a reply window that closed by Herald’s clock is refused without calling the platform', async () => {
    const item = await ingestOne('mastodon', 'comment', 'Old one');
    const result = await sendPlatformReply(deps(), { ...item, replyWindowEndsAt: new Date(Date.now() - 1000) }, 'Hi');
    assert.ok(!result.ok && result.rule === 'reply_window_closed' && result.code === 'PLATFORM_REPLY_WINDOW_CLOSED');
  });
});
