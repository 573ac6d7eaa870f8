// Threads' inbox against its simulator (docs/inbox.md "Platforms"): replies to the account's posts and replies to
// those replies are read from each recent post's conversation once each (a second pass and a lost cursor double
// nothing); an answer is a reply published with reply_to_id, and the platform's faults come back as data (deleted
// item, rate limit, outage).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sendPlatformReply } from '../src/features/inbox/platform-reply.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { handleOf, inboxPoller, inboxRows } from './helpers/inbox-ingest.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;
let postMediaId: string;
let postId: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
  const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
  const text = `Threads inbox ${Date.now()}`;
  const post = await settled((await create({ content: text, platforms: ['threads'], publish_now: true })).id, text);
  assert.equal(post.status, 'published');
  postId = post.id;
  postMediaId = post.targets.find((x) => x.platform === 'threads')!.platform_post_id!;
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { ingest, replyDeps, connection, sim, injectOne, ingested } = inboxPoller('threads', () => ({ t, sandbox }));

describe('threads inbox', () => {
  test('replies and replies to replies are ingested once, by kind, linked to the post', async () => {
    const comments = await injectOne('comment', { post_id: postMediaId, text: 'Nice one' });
    const replies = await injectOne('reply', { post_id: postMediaId, parent_id: comments[0]!, text: 'Agreed' });
    await ingest();
    const rows = await inboxRows(t, connection());
    const by = (id: string) => rows.find((r) => r.platform_item_id === id)!;
    const comment = by(comments[0]!);
    assert.equal(comment.kind, 'comment');
    assert.equal(comment.post_id, postId, 'linked to the Herald post by its media id');
    assert.equal(comment.thread_id, postMediaId);
    assert.equal(comment.parent_id, postMediaId);
    assert.equal(comment.text, 'Nice one');
    assert.ok(comment.author.username);
    const reply = by(replies[0]!);
    assert.equal(reply.kind, 'reply');
    assert.equal(reply.parent_id, comments[0]);
    assert.equal(reply.thread_id, postMediaId);

    const count = rows.length;
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, count, 'a second pass creates nothing');
    await t.container.pool.query(`UPDATE inbox_sources SET cursor = NULL WHERE connection_id = $1`, [connection()]);
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, count, 'nothing doubled after the cursor was lost');
  });

  test('more than a page of a conversation is read in one poll', async () => {
    const before = (await inboxRows(t, connection())).length;
    await sim().inject({ account: await handleOf(t, connection()), kind: 'comment', post_id: postMediaId, count: 150 });
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, before + 150);
  });

  test('mentions, DMs and reviews are refused by the control switch (Herald reads none on Threads)', async () => {
    const account = await handleOf(t, connection());
    for (const kind of ['mention', 'dm', 'review'] as const) {
      const result = await sim().inject({ account, kind });
      assert.ok('error' in result);
    }
  });

  test('an answer is a reply to the item; the account’s own reply is ingested as from_account', async () => {
    const [id] = await injectOne('comment', { post_id: postMediaId, text: 'In stock?' });
    const item = await ingested(id!);
    const text = `Yes! ${Date.now()}`;
    const result = await sendPlatformReply(replyDeps(), item, text);
    assert.ok(result.ok, JSON.stringify(result));
    const answer = (await sim().posts()).find((p) => p.id === result.platformReplyId)!;
    assert.equal(answer.replyTo, id);
    assert.equal(answer.text, text);
    await ingest();
    const own = (await inboxRows(t, connection())).find((r) => r.platform_item_id === result.platformReplyId)!;
    assert.equal(own.from_account, true);
    assert.equal(own.kind, 'reply');
  });

  test('a deleted item is the rule item_deleted; a rate limit and an outage are retryable', async () => {
    const [id] = await injectOne('comment', { post_id: postMediaId, text: 'Delete me' });
    const item = await ingested(id!);
    sim().faults.add({ fault: 'item_deleted', operation: 'create_post' });
    const deleted = await sendPlatformReply(replyDeps(), item, 'Too late');
    assert.ok(!deleted.ok && deleted.rule === 'item_deleted' && !deleted.retryable, JSON.stringify(deleted));
    sim().faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 5 });
    const limited = await sendPlatformReply(replyDeps(), item, 'Now?');
    assert.ok(!limited.ok && limited.retryable, JSON.stringify(limited));
    sim().faults.add({ fault: 'server_error', operation: 'create_post' });
    const down = await sendPlatformReply(replyDeps(), item, 'And now?');
    assert.ok(!down.ok, JSON.stringify(down));
    const priv = await sendPlatformReply(replyDeps(), item, 'DM', { private: true });
    assert.ok(!priv.ok && priv.rule === 'private_reply_unsupported');
  });
});
